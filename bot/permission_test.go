package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/bot/internal/bounded"
	"github.com/hermes-bot/hermes-bot/bot/risk"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// permView is the permission message e shows, alone.
func (c *core) permView(e *pending.Entry) *frontend.View {
	c.t.Helper()
	m := c.message(e)
	if !m.Open || len(m.Request.Members) != 1 || m.Request.Members[0].Permission == nil {
		c.t.Fatalf("message %d shows %+v, want one open permission", m.ID, m)
	}
	return m.Request.Members[0]
}

func TestPermissionPosted(t *testing.T) {
	c := newCore(t, Config{})
	ev := permEvent("per_1", "rm -rf build && make")
	ev.PermissionAsked.Patterns = []string{"rm -rf build", "make"}
	ev.PermissionAsked.Always = []string{"rm *", "make *"}
	e := c.askPerm(ev)

	if n := len(c.fe.Messages()); n != 1 {
		t.Fatalf("posted %d messages, want 1", n)
	}
	v := c.permView(e)
	if v.Kind != frontend.KindPermission || v.RequestID != "per_1" || v.SessionID != testSession || v.Directory != "/home/user/projects/demo" ||
		v.Permission.Kind != "bash" || !reflect.DeepEqual(v.Permission.Patterns, []string{"rm -rf build", "make"}) ||
		!reflect.DeepEqual(v.Permission.Always, []string{"rm *", "make *"}) || risk.MetaStrings(v.Permission.Metadata)["command"] != "rm -rf build && make" {
		t.Errorf("message shows %+v (permission %+v)", v, v.Permission)
	}
	if a := frontend.Assess(v); a.Level != risk.High {
		t.Errorf("risk %v, want high", a.Level)
	}
	if e.Kind != pending.KindPermission || e.CallID != "call_per_1" || e.ToolMessageID != "msg_1" ||
		e.Permission == nil || e.Permission.Kind != "bash" || !reflect.DeepEqual(e.Permission.Always, []string{"rm *", "make *"}) ||
		e.ExpiresAt.Sub(e.CreatedAt) != DefaultTTL {
		t.Errorf("entry = %+v (permission %+v)", e, e.Permission)
	}

	// Seen again (a reconnect's list): nothing new.
	ev.Listed = true
	c.b.HandleEvent(context.Background(), ev)
	if n := len(c.fe.Messages()); n != 1 {
		t.Errorf("posted %d messages after the request was listed again", n)
	}
}

// The level a front-end shows is the one auto-approval decides on, from
// what the life cycle read of the tool call.
func TestPermissionRiskLevelsShown(t *testing.T) {
	for cmd, want := range map[string]risk.Level{
		"ls -la":                risk.Low,
		"make test":             risk.Medium,
		"echo hi; sudo rm -r /": risk.High,
	} {
		c := newCore(t, Config{})
		e := c.askPerm(c.permIn(project(t), "per_1", cmd))
		if got := frontend.Assess(c.permView(e)).Level; got != want {
			t.Errorf("%q shown as %v, want %v", cmd, got, want)
		}
	}
}

func TestPermissionEditShowsFileAndDiff(t *testing.T) {
	c := newCore(t, Config{})
	diff := "Index: /home/user/projects/demo/src/app.go\n+const x = 2 // <new>\n"
	meta, _ := json.Marshal(map[string]string{"filepath": "/home/user/projects/demo/src/app.go", "diff": diff})
	e := c.askPerm(opencode.Event{
		Directory: "/home/user/projects/demo", Type: opencode.TypePermissionAsked,
		PermissionAsked: &opencode.PermissionRequest{
			ID: "per_e", SessionID: testSession, Permission: "edit",
			Patterns: []string{"src/app.go"}, Always: []string{"*"}, Metadata: meta,
		},
	})
	v := c.permView(e)
	if m := risk.MetaStrings(v.Permission.Metadata); v.Permission.Kind != "edit" || m["filepath"] != "/home/user/projects/demo/src/app.go" || m["diff"] != diff {
		t.Errorf("message shows %+v, want the edit's file and diff as opencode sent them", v.Permission)
	}
	if a := frontend.Assess(v); a.Level != risk.Medium {
		t.Errorf("risk %v, want medium", a.Level)
	}
}

func TestPermissionUnknownMetadataPosted(t *testing.T) {
	for _, meta := range []string{`[1,2]`, `{"weird":{"x":1},"command":7}`, `"text"`, ``} {
		c := newCore(t, Config{})
		e := c.askPerm(opencode.Event{
			Directory: "/p/demo", Type: opencode.TypePermissionAsked,
			PermissionAsked: &opencode.PermissionRequest{
				ID: "per_x", SessionID: testSession, Permission: "mystery_tool",
				Patterns: []string{"thing-<1>"}, Metadata: json.RawMessage(meta),
			},
		})
		v := c.permView(e)
		if v.Permission.Kind != "mystery_tool" || !reflect.DeepEqual(v.Permission.Patterns, []string{"thing-<1>"}) || v.Permission.Run != nil {
			t.Errorf("metadata %q: message shows %+v", meta, v.Permission)
		}
		if a := frontend.Assess(v); a.Level != risk.Medium {
			t.Errorf("metadata %q: risk %v, want medium", meta, a.Level)
		}
	}
}

func TestPermissionButtons(t *testing.T) {
	for _, tc := range []struct {
		act   frontend.Action
		reply string
	}{
		{frontend.AllowOnce, "once"},
		{frontend.AllowAlways, "always"},
		{frontend.Reject, "reject"},
	} {
		t.Run(tc.reply, func(t *testing.T) {
			c := newCore(t, Config{})
			e := c.askPerm(permEvent("per_1", "git push origin main"))
			if ack := c.tap(ann, tc.act, e.UID, e, 0, 0); ack != en(i18n.ToastSending) {
				t.Errorf("press told %q", ack)
			}
			want := []permCall{{Dir: "/home/user/projects/demo", SessionID: testSession, RequestID: "per_1", Reply: tc.reply}}
			if got := c.oc.PermReplies(); !reflect.DeepEqual(got, want) {
				t.Fatalf("replies = %+v, want %+v", got, want)
			}
			c.wantIn(c.closedAs(e, frontend.Decided), "reply="+tc.reply, "by=Ann", "requests=per_1")
			c.gone(e.UID)

			// A second tap, and our own reply's echo, change nothing.
			if ack := c.tap(ann, frontend.AllowOnce, e.UID, e, 0, 0); ack != en(i18n.ToastAnswered) {
				t.Errorf("second tap told %q", ack)
			}
			before := c.fe.Messages()
			c.b.HandleEvent(context.Background(), opencode.Event{Type: opencode.TypePermissionReplied,
				PermissionReplied: &opencode.PermissionReplied{SessionID: testSession, RequestID: "per_1", Reply: tc.reply}})
			if after := c.fe.Messages(); !reflect.DeepEqual(before, after) || len(c.oc.PermReplies()) != 1 {
				t.Error("second tap or echo changed something")
			}
		})
	}
}

func TestPermissionRejectWithReason(t *testing.T) {
	c := newCore(t, Config{})
	e := c.askPerm(permEvent("per_1", "npm publish"))
	if ack := c.tap(ben, frontend.RejectWithReason, e.UID, e, 0, 0); ack != en(i18n.ToastTypeAnswer) {
		t.Errorf("press told %q", ack)
	}
	p := c.prompt()
	if p.At != msgID(e) || p.Key != e.UID || !p.Reason || p.User != ben || p.Entry.Permission == nil {
		t.Fatalf("prompt = %+v, want Ben asked for a reason by the request's message", p)
	}
	if got := c.entry(e.UID); !got.AwaitingText || !got.AwaitingReason || !c.b.Awaits(e.UID, 0, true) {
		t.Fatalf("entry after reason press = %+v", got)
	}
	if n := len(c.oc.PermReplies()); n != 0 {
		t.Fatal("asking for a reason answered")
	}
	c.typeIn(p, ben, "not before the review <3")
	want := []permCall{{Dir: "/home/user/projects/demo", SessionID: testSession, RequestID: "per_1", Reply: "reject", Message: "not before the review <3"}}
	if got := c.oc.PermReplies(); !reflect.DeepEqual(got, want) {
		t.Fatalf("replies = %+v, want %+v", got, want)
	}
	c.wantIn(c.closedAs(e, frontend.Decided), "reply=reject", "by=Ben", "reason=not before the review <3")
	c.gone(e.UID)
}

// A reason typed by someone other than who asked to give one is taken:
// whom a front-end lets answer is its own business.
func TestPermissionReasonByAnother(t *testing.T) {
	c := newCore(t, Config{})
	e := c.askPerm(permEvent("per_1", "make deploy"))
	c.tap(ann, frontend.RejectWithReason, e.UID, e, 0, 0)
	c.typeIn(c.prompt(), ben, "use staging")
	if r := c.oc.PermReplies(); len(r) != 1 || r[0].Message != "use staging" || r[0].Reply != "reject" {
		t.Fatalf("replies = %+v", r)
	}
	c.wantIn(c.closedAs(e, frontend.Decided), "by=Ben")
}

func TestPermissionFailureClasses(t *testing.T) {
	for _, tc := range []struct {
		name     string
		err      error
		kept     bool
		toPerson string
	}{
		{name: "not found", err: opencode.ErrNotFound},
		{name: "not accepted", err: opencode.ErrNotAccepted, kept: true, toPerson: "did not accept"},
		{name: "transient", err: opencode.ErrTransient, kept: true, toPerson: "Could not reach opencode"},
		{name: "unauthorized", err: opencode.ErrUnauthorized, kept: true, toPerson: "Could not reach opencode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCore(t, Config{})
			e := c.askPerm(permEvent("per_1", "make"))
			before, shown := c.entry(e.UID), c.message(e)
			c.oc.permErrs = map[string][]error{"per_1": {tc.err}}
			if ack := c.tap(ann, frontend.AllowOnce, e.UID, e, 0, 0); ack != en(i18n.ToastSending) {
				t.Errorf("press told %q", ack)
			}
			if !tc.kept {
				c.gone(e.UID)
				c.closedAs(e, frontend.NoLongerPending)
				if ack := c.tap(ann, frontend.AllowOnce, e.UID, e, 0, 0); ack != en(i18n.ToastGone) {
					t.Errorf("press after close told %q", ack)
				}
				return
			}
			if after := c.entry(e.UID); !reflect.DeepEqual(before, after) {
				t.Errorf("entry changed:\n%+v\n%+v", before, after)
			}
			if now := c.message(e); !reflect.DeepEqual(now, shown) {
				t.Errorf("message changed:\n%+v\n%+v", shown, now)
			}
			if told := c.fe.Told(); len(told) != 1 || !strings.HasPrefix(told[0], "Ann: ") || !strings.Contains(told[0], tc.toPerson) {
				t.Errorf("told %q, want Ann told %q", told, tc.toPerson)
			}
			// The person can decide again.
			c.tap(ann, frontend.Reject, e.UID, e, 0, 0)
			if r := c.oc.PermReplies(); len(r) != 2 || r[1].Reply != "reject" {
				t.Fatalf("replies = %+v", r)
			}
			c.gone(e.UID)
		})
	}
}

func TestPermissionBusyWhileSending(t *testing.T) {
	c := newCore(t, Config{})
	e := c.askPerm(permEvent("per_1", "make"))
	unlock, err := c.b.locks.lock(context.Background(), e.UID)
	if err != nil {
		t.Fatal(err)
	}
	ack := c.tap(ann, frontend.AllowOnce, e.UID, e, 0, 0)
	unlock()
	if ack != en(i18n.ToastBusy) {
		t.Errorf("press told %q, want %q", ack, en(i18n.ToastBusy))
	}
	if n := len(c.oc.PermReplies()); n != 0 {
		t.Fatalf("busy press replied %d times", n)
	}
}

func TestPermissionRepliedElsewhere(t *testing.T) {
	for _, reply := range []string{"once", "always", "reject"} {
		t.Run(reply, func(t *testing.T) {
			c := newCore(t, Config{})
			e := c.askPerm(permEvent("per_1", "make"))
			c.b.HandleEvent(context.Background(), opencode.Event{Type: opencode.TypePermissionReplied,
				PermissionReplied: &opencode.PermissionReplied{SessionID: testSession, RequestID: "per_1", Reply: reply}})
			c.gone(e.UID)
			c.wantIn(c.closedAs(e, frontend.DecidedElsewhere), "reply="+reply, "requests=per_1")
			if ack := c.tap(ann, frontend.AllowOnce, e.UID, e, 0, 0); ack != en(i18n.ToastAnsweredElsewhere) {
				t.Errorf("press after told %q", ack)
			}
			if n := len(c.oc.PermReplies()); n != 0 {
				t.Errorf("replied %d times", n)
			}
		})
	}
}

func TestExpirePermission(t *testing.T) {
	c := newCore(t, Config{TTL: time.Minute})
	e := c.askPerm(permEvent("per_1", "make"))
	c.now = c.now.Add(time.Minute)
	if err := c.b.ExpireDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []permCall{{Dir: e.Directory, SessionID: testSession, RequestID: "per_1", Reply: "reject", Message: expiredReason}}
	if got := c.oc.PermReplies(); !reflect.DeepEqual(got, want) {
		t.Fatalf("replies = %+v, want %+v", got, want)
	}
	if !strings.Contains(expiredReason, "in time") || !strings.Contains(expiredReason, "continue") {
		t.Errorf("the agent is told %q", expiredReason)
	}
	c.gone(e.UID)
	c.wantIn(c.closedAs(e, frontend.Expired), fmt.Sprintf("told=%d", frontend.ToldRejected))
	if ack := c.tap(ann, frontend.AllowOnce, e.UID, e, 0, 0); ack != en(i18n.ToastExpired) {
		t.Errorf("press on expired told %q", ack)
	}
}

func TestExpireRetriesThenGivesUp(t *testing.T) {
	c := newCore(t, Config{TTL: time.Minute})
	c.b.expireRetryFor = 5 * time.Minute
	e := c.askPerm(permEvent("per_1", "make"))
	q := c.asked("que_1", dbQuestion())
	c.oc.permErrs = map[string][]error{"per_1": {opencode.ErrTransient, opencode.ErrUnauthorized, opencode.ErrTransient, opencode.ErrTransient}}
	c.oc.rejectErrs = []error{opencode.ErrTransient, nil}
	ctx := context.Background()

	c.now = c.now.Add(time.Minute)
	if err := c.b.ExpireDue(ctx); err != nil {
		t.Fatal(err)
	}
	pe, qe := c.entry(e.UID), c.entry(q.UID)
	if !pe.ExpiredNotified || !qe.ExpiredNotified {
		t.Fatalf("entries kept without the expired mark: %+v %+v", pe, qe)
	}
	// Each message says it expired and that opencode is still being told.
	for _, x := range []*pending.Entry{e, q} {
		c.wantIn(c.closedAs(x, frontend.Expired), fmt.Sprintf("told=%d", frontend.NotTold))
	}
	shown := c.fe.Messages()
	// Presses are refused meanwhile.
	if ack := c.tap(ann, frontend.AllowOnce, e.UID, e, 0, 0); ack != en(i18n.ToastExpired) {
		t.Errorf("press on expired permission told %q", ack)
	}
	if ack := c.tap(ann, frontend.Pick, q.UID, q, 0, 0); ack != en(i18n.ToastExpired) {
		t.Errorf("press on expired question told %q", ack)
	}
	if len(c.oc.Replies()) != 0 {
		t.Fatal("a press answered an expired question")
	}

	// The next sweep retries: the question's reject goes through, the
	// permission's still fails; the messages are not changed again.
	c.now = c.now.Add(30 * time.Second)
	if err := c.b.ExpireDue(ctx); err != nil {
		t.Fatal(err)
	}
	c.gone(q.UID)
	c.entry(e.UID)
	if now := c.fe.Messages(); !reflect.DeepEqual(now, shown) {
		t.Errorf("messages changed by the retry:\n%+v\n%+v", shown, now)
	}
	if got := c.oc.rejects; len(got) != 2 {
		t.Errorf("question rejects = %q, want a retry", got)
	}

	// Still failing within the bound: kept; past it: given up.
	c.now = c.now.Add(4 * time.Minute)
	if err := c.b.ExpireDue(ctx); err != nil {
		t.Fatal(err)
	}
	c.entry(e.UID)
	c.now = c.now.Add(time.Minute)
	if err := c.b.ExpireDue(ctx); err != nil {
		t.Fatal(err)
	}
	c.gone(e.UID)
	if n := len(c.oc.PermReplies()); n != 4 {
		t.Errorf("%d permission rejects, want 4", n)
	}
	if !strings.Contains(c.logs.String(), "giving up") {
		t.Error("giving up was not logged")
	}
}

func TestExpireNotFoundDeletes(t *testing.T) {
	c := newCore(t, Config{TTL: time.Minute})
	e := c.askPerm(permEvent("per_1", "make"))
	c.oc.permErrs = map[string][]error{"per_1": {opencode.ErrNotFound}}
	c.now = c.now.Add(2 * time.Minute)
	if err := c.b.ExpireDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.gone(e.UID)
}

func TestSessionContextShown(t *testing.T) {
	c := newCore(t, Config{})
	c.oc.sessions = map[string]opencode.Session{
		testSession:      {ID: testSession, Title: "Refactor <auth>", ParentID: "ses_parent0001"},
		"ses_parent0001": {ID: "ses_parent0001", Title: "Ship v2"},
	}
	wantContext := func(what string, v *frontend.View) {
		t.Helper()
		if v.SessionTitle != "Refactor <auth>" || v.ParentSessionID != "ses_parent0001" || v.ParentTitle != "Ship v2" {
			t.Errorf("%s shows session %q, parent %q %q", what, v.SessionTitle, v.ParentSessionID, v.ParentTitle)
		}
	}
	q := c.asked("que_1", dbQuestion())
	wantContext("question", c.message(q).Request.Members[0])
	p := c.askPerm(permEvent("per_1", "make"))
	wantContext("permission", c.permView(p))
	if got := c.entry(p.UID); got.SessionTitle != "Refactor <auth>" || got.ParentSessionID != "ses_parent0001" || got.ParentTitle != "Ship v2" {
		t.Errorf("entry context = %q %q %q", got.SessionTitle, got.ParentSessionID, got.ParentTitle)
	}
	// Looked up once each, though two requests were posted.
	if calls := c.oc.SessionCalls(); len(calls) != 2 {
		t.Errorf("GetSession calls = %q, want one per session", calls)
	}
	// Outcomes keep the context.
	c.tap(ann, frontend.Pick, q.UID, q, 0, 0)
	c.tap(ann, frontend.AllowOnce, p.UID, p, 0, 0)
	c.closedAs(q, frontend.Answered)
	c.closedAs(p, frontend.Decided)
	for _, e := range []*pending.Entry{q, p} {
		if m := c.message(e); len(m.Closed.Members) != 1 {
			t.Errorf("message of %s closed without its request: %+v", e.RequestID, m)
		} else {
			wantContext("outcome of "+e.RequestID, m.Closed.Members[0])
		}
	}
}

func TestSessionLookupFailureFallsBack(t *testing.T) {
	c := newCore(t, Config{})
	c.oc.sessionErr = opencode.ErrTransient
	v := c.permView(c.askPerm(permEvent("per_1", "make")))
	if v.SessionID != testSession || v.SessionTitle != "" || v.ParentSessionID != "" {
		t.Errorf("message shows session %q %q, parent %q", v.SessionID, v.SessionTitle, v.ParentSessionID)
	}

	// A look-up that hangs is cut off, and the message still goes out.
	c2 := newCore(t, Config{})
	c2.oc.sessionBlock = true
	c2.b.sessionTimeout = 20 * time.Millisecond
	if m := c2.message(c2.asked("que_1", dbQuestion())); !m.Open || m.Request.Members[0].SessionTitle != "" {
		t.Errorf("message after a hung look-up = %+v", m)
	}

	// A failure is remembered briefly, then tried again.
	c3 := newCore(t, Config{})
	c3.oc.sessionErr = opencode.ErrTransient
	c3.asked("que_1", dbQuestion())
	c3.asked("que_2", dbQuestion())
	if n := len(c3.oc.SessionCalls()); n != 1 {
		t.Errorf("%d look-ups within the retry pause, want 1", n)
	}
	c3.oc.mu.Lock()
	c3.oc.sessionErr = nil
	c3.oc.sessions = map[string]opencode.Session{testSession: {ID: testSession, Title: "Back"}}
	c3.oc.mu.Unlock()
	c3.now = c3.now.Add(sessionRetryAfter)
	if v := c3.message(c3.asked("que_3", dbQuestion())).Request.Members[0]; v.SessionTitle != "Back" {
		t.Errorf("after the pause the message shows session %q, want Back", v.SessionTitle)
	}
}

func TestSessionCacheBounded(t *testing.T) {
	c := bounded.New[sessionKey, cachedSession](maxCachedSessions)
	for i := range maxCachedSessions + 10 {
		c.Put(sessionKey{"d", string(rune('a'+i%26)) + strings.Repeat("x", i/26), ""}, cachedSession{})
	}
	if n := c.Len(); n != maxCachedSessions {
		t.Fatalf("cache holds %d, want %d", n, maxCachedSessions)
	}
	if _, ok := c.Get(sessionKey{"d", "a", ""}); ok {
		t.Error("the oldest entry was kept")
	}
}

// requestIDs lists the request IDs e's message shows.
func (c *core) requestIDs(e *pending.Entry) []string {
	c.t.Helper()
	var out []string
	for _, v := range c.message(e).Request.Members {
		out = append(out, v.RequestID)
	}
	return out
}

func TestDuplicatePermissionsShareMessage(t *testing.T) {
	c := newCore(t, Config{})
	p := c.askPerm(permEvent("per_1", "go test ./..."))
	s := c.askPerm(permEvent("per_2", "go test ./..."))
	other := c.askPerm(permEvent("per_3", "go vet ./..."))
	ev := permEvent("per_4", "go test ./...")
	ev.PermissionAsked.SessionID = "ses_other"
	elsewhere := c.askPerm(ev)

	if n := len(c.fe.Messages()); n != 3 {
		t.Fatalf("posted %d messages, want 3 (the duplicate shares one)", n)
	}
	if s.SharedWith != p.UID || msgID(s) != msgID(p) || other.SharedWith != "" || elsewhere.SharedWith != "" {
		t.Fatalf("shared = %q/%d, want %q/%d; others %q %q", s.SharedWith, msgID(s), p.UID, msgID(p), other.SharedWith, elsewhere.SharedWith)
	}
	if m := c.message(p); !m.Open || m.Request.Key != p.UID || !reflect.DeepEqual(c.requestIDs(p), []string{"per_1", "per_2"}) {
		t.Errorf("shared message shows %+v, want both under the first's key", m)
	}

	c.tap(ann, frontend.AllowAlways, p.UID, p, 0, 0)
	got := c.oc.PermReplies()
	if len(got) != 2 || got[0].RequestID != "per_1" || got[1].RequestID != "per_2" || got[0].Reply != "always" || got[1].Reply != "always" {
		t.Fatalf("replies = %+v, want both requests answered always", got)
	}
	c.gone(p.UID)
	c.gone(s.UID)
	c.entry(other.UID)
	c.wantIn(c.closedAs(p, frontend.Decided), "requests=per_1,per_2", "reply=always")
}

func TestDuplicateRejectWithReasonAnswersAll(t *testing.T) {
	c := newCore(t, Config{})
	p := c.askPerm(permEvent("per_1", "make"))
	c.askPerm(permEvent("per_2", "make"))
	c.tap(ann, frontend.RejectWithReason, p.UID, p, 0, 0)
	c.typeIn(c.prompt(), ann, "no")
	got := c.oc.PermReplies()
	if len(got) != 2 || got[0].Message != "no" || got[1].Message != "no" {
		t.Fatalf("replies = %+v", got)
	}
	if list, _ := c.store.List(); len(list) != 0 {
		t.Fatalf("entries left: %+v", list)
	}
}

func TestDuplicatePartialFailure(t *testing.T) {
	c := newCore(t, Config{})
	p := c.askPerm(permEvent("per_1", "make"))
	s := c.askPerm(permEvent("per_2", "make"))
	c.oc.permErrs = map[string][]error{"per_2": {opencode.ErrTransient}}
	c.tap(ann, frontend.AllowOnce, p.UID, p, 0, 0)
	c.gone(p.UID)
	c.entry(s.UID)
	if m := c.message(p); !m.Open || !reflect.DeepEqual(c.requestIDs(p), []string{"per_2"}) {
		t.Errorf("message after a partial failure = %+v, want it open for the one left", m)
	}
	if told := c.fe.Told(); len(told) != 1 || !strings.Contains(told[0], "1 of 2") || !strings.Contains(told[0], "Could not reach opencode") {
		t.Errorf("told %q, want 1 of 2 not reached", told)
	}
	// The same button answers the one left.
	c.tap(ann, frontend.AllowOnce, p.UID, p, 0, 0)
	c.gone(s.UID)
	if r := c.oc.PermReplies(); len(r) != 3 || r[2].RequestID != "per_2" {
		t.Fatalf("replies = %+v", r)
	}
}

func TestDuplicateFirstAnsweredElsewhere(t *testing.T) {
	c := newCore(t, Config{})
	p := c.askPerm(permEvent("per_1", "make"))
	s := c.askPerm(permEvent("per_2", "make"))
	c.b.HandleEvent(context.Background(), opencode.Event{Type: opencode.TypePermissionReplied,
		PermissionReplied: &opencode.PermissionReplied{SessionID: testSession, RequestID: "per_1", Reply: "once"}})
	c.gone(p.UID)
	c.entry(s.UID)
	if m := c.message(p); !m.Open || m.Request.Key != p.UID || !reflect.DeepEqual(c.requestIDs(p), []string{"per_2"}) {
		t.Fatalf("message after the first was answered elsewhere = %+v", m)
	}
	// Its buttons still carry the first UID, and answer the second.
	if ack := c.tap(ann, frontend.Reject, p.UID, p, 0, 0); ack != en(i18n.ToastSending) {
		t.Errorf("press told %q", ack)
	}
	if r := c.oc.PermReplies(); len(r) != 1 || r[0].RequestID != "per_2" || r[0].Reply != "reject" {
		t.Fatalf("replies = %+v", r)
	}
	c.gone(s.UID)
	c.wantIn(c.closedAs(p, frontend.Decided), "reply=reject")
}

func TestDuplicateLaterClosedByOthersKeepsMessageOpen(t *testing.T) {
	// What bot/sync.go does for a request gone from opencode: lock its
	// UID, delete it, close its message with its outcome.
	c := newCore(t, Config{})
	p := c.askPerm(permEvent("per_1", "make"))
	s := c.askPerm(permEvent("per_2", "make"))
	ctx := context.Background()
	unlock, err := c.b.locks.lock(ctx, s.UID)
	if err != nil {
		t.Fatal(err)
	}
	e := c.entry(s.UID)
	log := withEntry(c.b.log, e)
	c.b.deleteEntry(log, e, i18n.ToastGone)
	c.b.closeMessage(ctx, log, e, c.b.outcome(requestOf(e), frontend.Outcome{How: frontend.Gone}), nil)
	unlock()
	if m := c.message(p); !m.Open || !reflect.DeepEqual(c.requestIDs(p), []string{"per_1"}) {
		t.Fatalf("closing the second closed the shared message: %+v", m)
	}
	c.tap(ann, frontend.AllowOnce, p.UID, p, 0, 0)
	if r := c.oc.PermReplies(); len(r) != 1 || r[0].RequestID != "per_1" {
		t.Fatalf("replies = %+v", r)
	}
}

func TestDuplicateExpiresTogether(t *testing.T) {
	c := newCore(t, Config{TTL: time.Minute})
	p := c.askPerm(permEvent("per_1", "make"))
	c.now = c.now.Add(30 * time.Second)
	s := c.askPerm(permEvent("per_2", "make"))
	c.now = c.now.Add(30 * time.Second) // the first is due, the second not yet
	if err := c.b.ExpireDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := c.oc.PermReplies()
	if len(got) != 2 || got[0].Message != expiredReason || got[1].Message != expiredReason {
		t.Fatalf("replies = %+v", got)
	}
	c.gone(p.UID)
	c.gone(s.UID)
	c.wantIn(c.closedAs(p, frontend.Expired), "requests=per_1,per_2")
}

func TestDuplicateUnsentPostedOnce(t *testing.T) {
	c := newCore(t, Config{})
	c.fe.Fail("Post", context.DeadlineExceeded)
	p := c.askPerm(permEvent("per_1", "make"))
	s := c.askPerm(permEvent("per_2", "make"))
	if msgID(p) != 0 || msgID(s) != 0 || s.SharedWith != p.UID {
		t.Fatalf("entries = %+v %+v", p, s)
	}
	c.fe.Fail("Post", nil)
	for range 2 {
		if err := c.b.SendUnsent(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	msgs := c.fe.Messages()
	if len(msgs) != 1 || len(msgs[0].Request.Members) != 2 {
		t.Fatalf("messages %+v, want one showing both", msgs)
	}
	if a, b := msgID(c.entry(p.UID)), msgID(c.entry(s.UID)); a != msgs[0].ID || b != msgs[0].ID {
		t.Errorf("messages %d, %d, want %d", a, b, msgs[0].ID)
	}
}

func TestPermissionAndQuestionButtonsDoNotMix(t *testing.T) {
	c := newCore(t, Config{})
	q := c.asked("que_1", dbQuestion())
	p := c.askPerm(permEvent("per_1", "make"))
	if ack := c.tap(ann, frontend.AllowOnce, q.UID, q, 0, 0); ack != en(i18n.ToastUnknown) {
		t.Errorf("permission button on a question told %q", ack)
	}
	if ack := c.tap(ann, frontend.Pick, p.UID, p, 0, 0); ack != en(i18n.ToastUnknown) {
		t.Errorf("question button on a permission told %q", ack)
	}
	if ack := c.tap(ann, frontend.AllowOnce, "zzzzzzzz", p, 0, 0); ack != en(i18n.ToastGone) {
		t.Errorf("permission button of an unknown request told %q", ack)
	}
	if len(c.oc.PermReplies()) != 0 || len(c.oc.Replies()) != 0 {
		t.Fatal("mixed buttons reached opencode")
	}
	c.entry(q.UID)
	c.entry(p.UID)
}

// group, findTwin and waitingIn read one session's requests (or one
// message's): requests of other sessions asking the same thing in the
// same directory must not leak in.
func TestLookupsIgnoreOtherSessions(t *testing.T) {
	c := newCore(t, Config{})
	p1 := c.askPerm(permEvent("per_1", "make"))
	p2 := c.askPerm(permEvent("per_2", "make"))
	ev := permEvent("per_3", "make")
	ev.PermissionAsked.SessionID = "ses_other"
	o1 := c.askPerm(ev)
	q := askedEvent("que_1", dbQuestion())
	q.QuestionAsked.SessionID = "ses_other"
	c.b.HandleEvent(context.Background(), q)
	if p2.SharedWith != p1.UID || o1.SharedWith != "" {
		t.Fatalf("shared with %q and %q, want %q and none", p2.SharedWith, o1.SharedWith, p1.UID)
	}

	probe := func(session string) *pending.Entry {
		perm := *p1.Permission // the same request, asked in session
		return &pending.Entry{Kind: pending.KindPermission, Directory: p1.Directory, SessionID: session, Permission: &perm}
	}
	for _, tc := range []struct {
		session, key string
		ok           bool
	}{{testSession, p1.UID, true}, {"ses_other", o1.UID, true}, {"ses_third", "", false}} {
		if key, ok := c.b.findTwin(probe(tc.session)); key != tc.key || ok != tc.ok {
			t.Errorf("findTwin in %s = %q, %v; want %q, %v", tc.session, key, ok, tc.key, tc.ok)
		}
	}

	wantGroup := func(step, key string, want ...string) {
		t.Helper()
		members, err := c.b.group(key)
		if err != nil {
			t.Fatalf("%s: group(%s): %v", step, key, err)
		}
		var got []string
		for _, m := range members {
			got = append(got, m.UID)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: group(%s) = %v, want %v", step, key, got, want)
		}
	}
	wantGroup("open", p1.UID, p1.UID, p2.UID)
	wantGroup("open", o1.UID, o1.UID)
	if err := c.store.Delete(p1.UID); err != nil {
		t.Fatal(err)
	}
	wantGroup("first closed", p1.UID, p2.UID)

	for session, want := range map[string]bool{testSession: true, "ses_other": true, "ses_third": false} {
		if got, err := c.b.waitingIn(session); err != nil || got != want {
			t.Errorf("waitingIn(%s) = %v, %v; want %v", session, got, err, want)
		}
	}
	if err := c.store.Delete(p2.UID); err != nil {
		t.Fatal(err)
	}
	if got, err := c.b.waitingIn(testSession); err != nil || got {
		t.Errorf("waitingIn(%s) with only other sessions' requests = %v, %v; want false", testSession, got, err)
	}
}

// TestSamePatternsDifferentWorkNotShared asks twice with the same kind and
// patterns but different work: a command whose cd opencode's patterns
// leave out, and two writes of one file with different contents. Each gets
// its own message, and one tap answers only the request its message showed.
func TestSamePatternsDifferentWorkNotShared(t *testing.T) {
	c := newCore(t, Config{})
	a := permEvent("per_1", "cd a && rm notes.txt")
	a.PermissionAsked.Patterns = []string{"rm notes.txt"}
	b := permEvent("per_2", "cd b && rm notes.txt")
	b.PermissionAsked.Patterns = []string{"rm notes.txt"}
	edit := func(id, diff string) opencode.Event {
		ev := permEvent(id, "x")
		meta, _ := json.Marshal(map[string]string{"filepath": "/home/user/projects/demo/main.go", "diff": diff})
		ev.PermissionAsked.Permission, ev.PermissionAsked.Patterns, ev.PermissionAsked.Always = "edit", []string{"main.go"}, []string{"*"}
		ev.PermissionAsked.Metadata = meta
		return ev
	}
	ea, eb := c.askPerm(a), c.askPerm(b)
	ec, ed := c.askPerm(edit("per_3", "+// harmless\n")), c.askPerm(edit("per_4", "+os.RemoveAll(home)\n"))
	if n := len(c.fe.Messages()); n != 4 {
		t.Fatalf("posted %d messages, want 4 (nothing shared)", n)
	}
	for _, e := range []*pending.Entry{ea, eb, ec, ed} {
		if e.SharedWith != "" {
			t.Fatalf("%s shares %s's message", e.RequestID, e.SharedWith)
		}
		if got := c.requestIDs(e); !reflect.DeepEqual(got, []string{e.RequestID}) {
			t.Errorf("message of %s shows %q, want it alone", e.RequestID, got)
		}
	}
	c.tap(ann, frontend.AllowOnce, ec.UID, ec, 0, 0)
	if got := c.oc.PermReplies(); len(got) != 1 || got[0].RequestID != "per_3" {
		t.Fatalf("replies = %+v, want per_3 alone", got)
	}
	c.entry(ed.UID)
	c.entry(ea.UID)
	c.entry(eb.UID)
}
