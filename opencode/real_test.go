package opencode_test

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// These tests drive a real opencode (see opencodetest.StartOpencode: skipped
// when it cannot be had, a failure with HERMES_E2E=1) through the /api
// surface with a scripted model.

// realAPI is a scripted model, a real opencode with two projects, a
// Client of it and a watcher delivering its events, all stopped when the
// test ends.
type realAPI struct {
	m      *opencodetest.Model
	oc     *opencodetest.Opencode
	c      *opencode.Client
	events events
	ctx    context.Context
}

func startRealAPI(t *testing.T) *realAPI {
	t.Helper()
	m := opencodetest.NewModel()
	t.Cleanup(m.Close)
	oc := opencodetest.StartOpencode(t, opencodetest.OpencodeOptions{ModelURL: m.URL, Projects: 2})
	if oc == nil {
		return nil // skipped
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	c, err := opencode.NewClient(oc.URL, opencode.WithBasicAuth(oc.Username, oc.Password))
	if err != nil {
		t.Fatal(err)
	}
	evs := make(events, 4096)
	startWatch(t, c, evs, nil)
	// The stream has no replay: nothing the test does may come before it.
	evs.next(t, "server.connected", isType(opencode.TypeServerConnected))
	return &realAPI{m: m, oc: oc, c: c, events: evs, ctx: ctx}
}

// next returns the next event for which match is true, waiting as long as
// the test's context: a real opencode takes seconds over its first turn.
func (r *realAPI) next(t *testing.T, what string, match func(opencode.Event) bool) opencode.Event {
	t.Helper()
	for {
		select {
		case ev := <-r.events:
			if match(ev) {
				return ev
			}
		case <-r.ctx.Done():
			t.Fatalf("no %s event: %v", what, r.ctx.Err())
		}
	}
}

// ofTypeIn matches events of type typ of session sid.
func ofTypeIn(typ, sid string) func(opencode.Event) bool {
	return func(ev opencode.Event) bool { return ev.Type == typ && ev.SessionID() == sid }
}

func TestRealAPISurfaceQuestion(t *testing.T) {
	t.Parallel()
	r := startRealAPI(t)
	ctx := r.ctx
	info, err := r.c.Probe(ctx)
	if err != nil || info.Version != opencode.TestedVersion || !info.Healthy || !info.API {
		t.Fatalf("Probe = %+v, %v", info, err)
	}

	// The session lives in the second project: every call must name it.
	dir := r.oc.Dirs[1]
	sid, err := r.oc.CreateSessionIn(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	callID := r.m.AskQuestion(
		opencodetest.QuestionArg{Question: "Which colour?", Header: "Colour",
			Options: []opencodetest.OptionArg{{Label: "Red", Description: "warm"}, {Label: "Blue", Description: "cold"}}},
		opencodetest.QuestionArg{Question: "Which toppings?", Header: "Toppings", Multiple: true,
			Options: []opencodetest.OptionArg{{Label: "Cheese"}, {Label: "Olives"}, {Label: "Basil"}}},
	)
	r.m.Say("done")
	if err := r.oc.PromptAPIIn(ctx, dir, sid, "ask me"); err != nil {
		t.Fatal(err)
	}

	ev := r.next(t, "question.v2.asked", ofTypeIn(opencode.TypeQuestionV2Asked, sid))
	q := ev.QuestionAsked
	if ev.Surface != opencode.SurfaceAPI || ev.Kind() != opencode.TypeQuestionAsked || ev.Directory != dir ||
		q.Surface != opencode.SurfaceAPI || q.Tool == nil || q.Tool.CallID != callID {
		t.Fatalf("question.v2.asked = %+v, request %+v", ev, q)
	}
	if len(q.Questions) != 2 || q.Questions[0].Question != "Which colour?" || q.Questions[0].Options[1].Label != "Blue" ||
		q.Questions[0].Multiple || !q.Questions[1].Multiple || len(q.Questions[1].Options) != 3 {
		t.Fatalf("questions %+v", q.Questions)
	}

	// Listed by the /api lists only, per directory and per session.
	byDir, err := r.c.API().ListQuestions(ctx, dir)
	if err != nil || len(byDir) != 1 || !reflect.DeepEqual(byDir[0], *q) {
		t.Errorf("api list of %s = %+v, %v; want the asked request", dir, byDir, err)
	}
	if other, err := r.c.API().ListQuestions(ctx, r.oc.Dirs[0]); err != nil || len(other) != 0 {
		t.Errorf("api list of the other project = %+v, %v; want none", other, err)
	}
	// A directory the server does not have is a server error (500), not
	// an empty list: a caller must not read it as "nothing pending".
	if _, err := r.c.API().ListQuestions(ctx, filepath.Join(dir, "gone")); !errors.Is(err, opencode.ErrTransient) {
		t.Errorf("api list of a directory that does not exist: %v, want ErrTransient", err)
	}
	bySession, err := r.c.API().ListSessionQuestions(ctx, dir, sid)
	if err != nil || len(bySession) != 1 || bySession[0].ID != q.ID {
		t.Errorf("api list of the session = %+v, %v", bySession, err)
	}
	if legacy, err := r.c.ListQuestions(ctx, dir); err != nil || len(legacy) != 0 {
		t.Errorf("legacy list = %+v, %v; want none", legacy, err)
	}
	// Only its own surface answers it.
	err = r.c.Requests(opencode.SurfaceLegacy).ReplyQuestion(ctx, dir, sid, q.ID, [][]string{{"Red"}, {"Basil"}})
	if !errors.Is(err, opencode.ErrNotFound) {
		t.Errorf("legacy reply: %v, want ErrNotFound", err)
	}
	var apiErr *opencode.APIError
	err = r.c.API().ReplyQuestion(ctx, dir, "ses_doesnotexist", q.ID, [][]string{{"Red"}, {"Basil"}})
	if !errors.Is(err, opencode.ErrNotFound) || !errors.As(err, &apiErr) || apiErr.Tag() != "SessionNotFoundError" {
		t.Errorf("reply under another session: %v", err)
	}

	answers := [][]string{{"Red"}, {"Cheese", "Basil"}}
	if err := r.c.Requests(ev.Surface).ReplyQuestion(ctx, dir, sid, q.ID, answers); err != nil {
		t.Fatal(err)
	}
	got, err := r.m.WaitToolResult(ctx, callID)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"Which colour?"="Red"`, `"Which toppings?"="Cheese, Basil"`} {
		if !strings.Contains(got, want) {
			t.Errorf("model was told %q, want it to contain %q", got, want)
		}
	}
	replied := r.next(t, "question.v2.replied", ofTypeIn(opencode.TypeQuestionV2Replied, sid))
	if replied.Surface != opencode.SurfaceAPI || replied.QuestionReplied.RequestID != q.ID ||
		!reflect.DeepEqual(replied.QuestionReplied.Answers, answers) {
		t.Errorf("question.v2.replied = %+v", replied.QuestionReplied)
	}
	err = r.c.API().ReplyQuestion(ctx, dir, sid, q.ID, answers)
	if !errors.Is(err, opencode.ErrNotFound) || !errors.As(err, &apiErr) || apiErr.Tag() != "QuestionNotFoundError" {
		t.Errorf("second reply: %v", err)
	}
}

func TestRealAPISurfaceQuestionRejected(t *testing.T) {
	t.Parallel()
	r := startRealAPI(t)
	ctx := r.ctx
	dir := r.oc.Dirs[0]
	sid, err := r.oc.CreateSessionIn(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	r.m.AskQuestion(opencodetest.QuestionArg{Question: "Go on?", Header: "Go on",
		Options: []opencodetest.OptionArg{{Label: "Yes"}, {Label: "No"}}})
	if err := r.oc.PromptAPIIn(ctx, dir, sid, "ask me"); err != nil {
		t.Fatal(err)
	}
	ev := r.next(t, "question.v2.asked", ofTypeIn(opencode.TypeQuestionV2Asked, sid))
	if err := r.c.API().RejectQuestion(ctx, dir, sid, ev.QuestionAsked.ID); err != nil {
		t.Fatal(err)
	}
	rejected := r.next(t, "question.v2.rejected", ofTypeIn(opencode.TypeQuestionV2Rejected, sid))
	if rejected.Surface != opencode.SurfaceAPI || rejected.Kind() != opencode.TypeQuestionRejected ||
		rejected.QuestionRejected.RequestID != ev.QuestionAsked.ID {
		t.Errorf("question.v2.rejected = %+v", rejected)
	}
	if qs, err := r.c.API().ListSessionQuestions(ctx, dir, sid); err != nil || len(qs) != 0 {
		t.Errorf("still listed after reject: %+v, %v", qs, err)
	}
}

func TestRealAPISurfacePermission(t *testing.T) {
	t.Parallel()
	r := startRealAPI(t)
	ctx := r.ctx
	dir := r.oc.Dirs[1]
	sid, err := r.oc.CreateSessionIn(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	const command = "echo hi > out.txt"
	callID, err := r.m.CallTool("bash", map[string]string{"command": command, "description": "write"})
	if err != nil {
		t.Fatal(err)
	}
	r.m.Say("done")
	if err := r.oc.PromptAPIIn(ctx, dir, sid, "write a file"); err != nil {
		t.Fatal(err)
	}

	ev := r.next(t, "permission.v2.asked", ofTypeIn(opencode.TypePermissionV2Asked, sid))
	p := ev.PermissionAsked
	if ev.Surface != opencode.SurfaceAPI || ev.Kind() != opencode.TypePermissionAsked || ev.Directory != dir ||
		p.Surface != opencode.SurfaceAPI || p.Permission != "bash" || !slices.Contains(p.Patterns, command) ||
		len(p.Always) == 0 || p.Tool == nil || p.Tool.CallID != callID {
		t.Fatalf("permission.v2.asked = %+v, request %+v", ev, p)
	}
	byDir, err := r.c.API().ListPermissions(ctx, dir)
	if err != nil || len(byDir) != 1 || !reflect.DeepEqual(byDir[0], *p) {
		t.Errorf("api list = %+v, %v; want the asked request", byDir, err)
	}
	if bySession, err := r.c.API().ListSessionPermissions(ctx, dir, sid); err != nil || len(bySession) != 1 {
		t.Errorf("api list of the session = %+v, %v", bySession, err)
	}
	if legacy, err := r.c.ListPermissions(ctx, dir); err != nil || len(legacy) != 0 {
		t.Errorf("legacy list = %+v, %v; want none", legacy, err)
	}
	err = r.c.Requests(opencode.SurfaceLegacy).ReplyPermission(ctx, dir, sid, p.ID, "once", "")
	if !errors.Is(err, opencode.ErrNotFound) {
		t.Errorf("legacy reply: %v, want ErrNotFound", err)
	}

	// "always" remembers what save (Always) named, as the legacy always
	// does: that is what the mapping rests on.
	if err := r.c.Requests(ev.Surface).ReplyPermission(ctx, dir, sid, p.ID, "always", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := r.m.WaitToolResult(ctx, callID); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "out.txt")); err != nil || strings.TrimSpace(string(b)) != "hi" {
		t.Errorf("the command did not run: %q, %v", b, err)
	}
	replied := r.next(t, "permission.v2.replied", ofTypeIn(opencode.TypePermissionV2Replied, sid))
	if replied.PermissionReplied.RequestID != p.ID || replied.PermissionReplied.Reply != "always" {
		t.Errorf("permission.v2.replied = %+v", replied.PermissionReplied)
	}
	var saved struct {
		Data []struct {
			Action   string `json:"action"`
			Resource string `json:"resource"`
		} `json:"data"`
	}
	if err := r.oc.Get(ctx, "/api/permission/saved?location%5Bdirectory%5D="+urlQueryEscape(dir), &saved); err != nil {
		t.Fatal(err)
	}
	var resources []string
	for _, s := range saved.Data {
		if s.Action == "bash" {
			resources = append(resources, s.Resource)
		}
	}
	slices.Sort(resources)
	want := slices.Sorted(slices.Values(p.Always))
	if !reflect.DeepEqual(resources, want) {
		t.Errorf("saved after always: %v, want save = %v", resources, want)
	}

	// A reject with a message: the command does not run.
	callID, err = r.m.CallTool("bash", map[string]string{"command": "echo no > no.txt", "description": "write"})
	if err != nil {
		t.Fatal(err)
	}
	r.m.Say("done")
	if err := r.oc.PromptAPIIn(ctx, dir, sid, "write another"); err != nil {
		t.Fatal(err)
	}
	ev = r.next(t, "permission.v2.asked", ofTypeIn(opencode.TypePermissionV2Asked, sid))
	if err := r.c.API().ReplyPermission(ctx, dir, sid, ev.PermissionAsked.ID, "reject", "not that file"); err != nil {
		t.Fatal(err)
	}
	got, err := r.m.WaitToolResult(ctx, callID)
	if err != nil {
		t.Fatal(err)
	}
	// Unlike the legacy reply, whose message reaches the agent as
	// feedback, the /api surface (1.18.33) tells the model only that the
	// command could not run: the message is dropped.
	if !strings.Contains(got, "Unable to execute command") || strings.Contains(got, "not that file") {
		t.Errorf("model was told %q after a reject with a message", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "no.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a rejected command ran: %v", err)
	}
}

func urlQueryEscape(s string) string { return url.QueryEscape(s) }
