package opencodetest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
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

// A client lists a session's forms, answers one, and the fake records it.
func ExampleWithOpencode2() {
	srv := opencodetest.NewServer(opencodetest.WithOpencode2())
	defer srv.Close()
	srv.AddForm("ses_1", opencodetest.Form{ID: "frm_1", Fields: []opencodetest.FormField{
		{Key: "target", Type: "string", Required: true, Options: []opencodetest.FormOption{{Value: "staging", Label: "Staging"}}},
	}})

	do := func(method, path, body string) string {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.SetBasicAuth("opencode", srv.Password)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return strings.TrimSpace(fmt.Sprint(resp.StatusCode, " ", string(b)))
	}
	fmt.Println(do("GET", "/api/session/ses_1/form", "")[:46])
	fmt.Println(do("POST", "/api/session/ses_1/form/frm_1/reply", `{"answer":{"target":"prod"}}`))
	fmt.Println(do("POST", "/api/session/ses_1/form/frm_1/reply", `{"answer":{"target":"staging"}}`))
	fmt.Println(do("GET", "/api/session/ses_1/form/frm_1/state", ""))
	r := srv.Replies()[0]
	fmt.Println(r.Kind, r.RequestID, r.Answer)
	// Output:
	// 200 {"data":[{"id":"frm_1","sessionID":"ses_1"
	// 400 {"_tag":"FormInvalidAnswerError","id":"frm_1","message":"field \"target\": \"prod\" is not an option"}
	// 204
	// 200 {"data":{"status":"answered","answer":{"target":"staging"}}}
	// form.reply frm_1 map[target:staging]
}

// do2 sends a request with the server's credentials and returns the
// status and body.
func do2(tb testing.TB, srv *opencodetest.Server, method, path, body string) (int, string) {
	tb.Helper()
	return fakeDo(tb, method, srv.URL+path, "opencode", srv.Password, body)
}

// sseStream reads the records of a stream of a Server2.
type sseStream struct{ r *bufio.Reader }

func openStream2(tb testing.TB, srv *opencodetest.Server, path string) *sseStream {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	req, err := http.NewRequestWithContext(ctx, "GET", srv.URL+path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.SetBasicAuth("opencode", srv.Password)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cancel(); resp.Body.Close() })
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		tb.Fatalf("GET %s: %d %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return &sseStream{bufio.NewReader(resp.Body)}
}

// next returns the next record, its lines joined by "\n".
func (s *sseStream) next(tb testing.TB) string {
	tb.Helper()
	var lines []string
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			tb.Fatalf("reading the stream after %q: %v", lines, err)
		}
		line = strings.TrimSuffix(line, "\n")
		if line == "" && len(lines) > 0 {
			return strings.Join(lines, "\n")
		}
		lines = append(lines, line)
	}
}

// nextData decodes the next record's data line.
func (s *sseStream) nextData(tb testing.TB) map[string]any {
	tb.Helper()
	rec := s.next(tb)
	js, ok := strings.CutPrefix(rec, "data: ")
	if !ok || strings.Contains(js, "\n") {
		tb.Fatalf("record %q: want one data line", rec)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		tb.Fatalf("record %q: %v", rec, err)
	}
	return m
}

// envelope checks an OpenCode 2 event envelope and returns its type and
// data.
func envelope(tb testing.TB, m map[string]any, since time.Time) (string, any) {
	tb.Helper()
	for k := range m {
		if !slices.Contains([]string{"id", "created", "type", "data", "location", "metadata", "durable"}, k) {
			tb.Errorf("envelope %v: key %q", m, k)
		}
	}
	id, _ := m["id"].(string)
	created, _ := m["created"].(float64)
	typ, _ := m["type"].(string)
	if !strings.HasPrefix(id, "evt_") || typ == "" || m["data"] == nil {
		tb.Errorf("envelope %v: want id evt_…, a type and data", m)
	}
	if ms := int64(created); ms < since.Add(-time.Second).UnixMilli() || ms > time.Now().Add(time.Second).UnixMilli() {
		tb.Errorf("envelope %v: created %d is not now in milliseconds", m, ms)
	}
	return typ, m["data"]
}

// conforms checks got against a contract example: no key the example
// lacks, the example's JSON types, its top keys all present, and a list
// not empty where the example's is not. The elements of an example's list
// are alternatives: a field has the keys of its own type.
func conforms(got, example any) error {
	if err := conformsAny(got, []any{example}); err != nil {
		return err
	}
	if ex, ok := example.(map[string]any); ok {
		g, _ := got.(map[string]any)
		for k := range ex {
			if _, ok := g[k]; !ok {
				return fmt.Errorf("key %q is missing", k)
			}
		}
	}
	return nil
}

func conformsAny(got any, alts []any) error {
	var errs []error
	objects := map[string][]any{}
	var elems []any
	for _, alt := range alts {
		switch ex := alt.(type) {
		case map[string]any:
			for k, v := range ex {
				objects[k] = append(objects[k], v)
			}
		case []any:
			elems = append(elems, ex...)
		}
	}
	switch g := got.(type) {
	case map[string]any:
		if len(objects) == 0 && !slices.ContainsFunc(alts, func(a any) bool { _, ok := a.(map[string]any); return ok }) {
			return fmt.Errorf("%v: an object where the contract has none", got)
		}
		for k, v := range g {
			exs, ok := objects[k]
			if !ok {
				return fmt.Errorf("key %q is not in the contract", k)
			}
			if err := conformsAny(v, exs); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
		}
		return nil
	case []any:
		if !slices.ContainsFunc(alts, func(a any) bool { _, ok := a.([]any); return ok }) {
			return fmt.Errorf("%v: a list where the contract has none", got)
		}
		if len(elems) > 0 && len(g) == 0 {
			return fmt.Errorf("an empty list where the contract has %v", elems)
		}
		for _, v := range g {
			if err := conformsAny(v, elems); err != nil {
				return err
			}
		}
		return nil
	}
	for _, alt := range alts {
		if reflect.TypeOf(got) == reflect.TypeOf(alt) {
			return nil
		}
		errs = append(errs, fmt.Errorf("%v: want a %T", got, alt))
	}
	return errors.Join(errs...)
}

func decodeJSON(tb testing.TB, s string) any {
	tb.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		tb.Fatalf("%s: %v", s, err)
	}
	return v
}

// contract2 returns Contract2 by name.
func contract2() map[string]opencode.ContractEntry {
	m := map[string]opencode.ContractEntry{}
	for _, e := range opencode.Contract2() {
		m[e.Name] = e
	}
	return m
}

// contractPermission is the permission of the contract's examples.
var contractPermission = opencode.PermissionRequest{
	ID: "per_1", SessionID: "ses_1", Permission: "bash", Patterns: []string{"git status"},
	Always: []string{"git status *"}, Metadata: json.RawMessage(`{}`),
	Tool: &opencode.ToolRef{MessageID: "msg_1", CallID: "call_1"},
}

// newContractServer2 starts a Server2 holding the contract's examples: a
// form, a question, a permission request and a saved approval of ses_1.
func newContractServer2(t *testing.T) *opencodetest.Server {
	t.Helper()
	c := contract2()
	srv := opencodetest.NewServer(opencodetest.WithOpencode2())
	t.Cleanup(srv.Close)
	var f opencodetest.Form
	var q opencode.QuestionRequest
	var a opencodetest.SavedApproval
	for _, x := range []struct {
		js  string
		dst any
	}{{c["form"].Example, &f}, {c["question.v2.asked"].Example, &q}, {c["GET /api/permission/saved"].Example, &struct{ Data []*opencodetest.SavedApproval }{[]*opencodetest.SavedApproval{&a}}}} {
		if err := json.Unmarshal([]byte(x.js), x.dst); err != nil {
			t.Fatal(err)
		}
	}
	srv.AddForm(f.SessionID, f)
	srv.AddQuestion("", q)
	srv.AddPermission("", contractPermission)
	srv.AddSaved(a)
	return srv
}

// The fake serves every route of opencode.Contract2 and nothing else:
// the example body gets the contract's status and an answer shaped like
// its example, and each documented failure its status and _tag.
func TestFake2Contract(t *testing.T) {
	c := contract2()
	served := opencodetest.Server2Routes()
	for _, p := range served {
		if e, ok := c[p]; !ok || e.Kind != opencode.ContractRoute {
			t.Errorf("the fake serves %s, which is not in the contract", p)
		}
	}
	prefixes := map[string]string{"form": "frm", "question": "que", "permission": "per", "saved": "psv"}
	for _, e := range opencode.Contract2() {
		if e.Kind != opencode.ContractRoute || e.Stream != "" {
			continue
		}
		if !slices.Contains(served, e.Name) {
			t.Errorf("the fake does not serve %s", e.Name)
			continue
		}
		if e.Name == "GET /api/event" || e.Name == "GET /api/event/changes" {
			continue // TestServer2Events
		}
		t.Run(e.Name, func(t *testing.T) {
			// id names the request, or the session of a route without one.
			path := func(id string) string {
				sid := "ses_1"
				if !strings.Contains(e.Path(), "{id}") {
					sid = "ses_" + id
				}
				p := strings.ReplaceAll(e.Path(), "{sid}", sid)
				for word, prefix := range prefixes {
					p = strings.ReplaceAll(p, word+"/{id}", word+"/"+prefix+"_"+id)
				}
				return p
			}
			srv := newContractServer2(t)
			if e.Name == "GET /api/session/{sid}/form/{id}/state" {
				// The example is of an answered form.
				if code, body := do2(t, srv, "POST", "/api/session/ses_1/form/frm_1/reply", c["POST /api/session/{sid}/form/{id}/reply"].Request); code != 204 {
					t.Fatalf("reply: %d %s", code, body)
				}
			}
			// A 409 needs the success first, which the others must not follow.
			for _, fail := range e.Errors {
				if fail.Status != 409 {
					checkFailure(t, srv, e, fail, path)
				}
			}
			code, body := do2(t, srv, e.Method(), path("1"), e.Request)
			if code != e.Status {
				t.Fatalf("%d %s, want %d", code, body, e.Status)
			}
			if e.Example == "" {
				if body != "" {
					t.Errorf("body %q, want none", body)
				}
			} else if err := conforms(decodeJSON(t, body), decodeJSON(t, e.Example)); err != nil {
				t.Errorf("answer %s: %v", body, err)
			}
			for _, fail := range e.Errors {
				if fail.Status == 409 {
					checkFailure(t, srv, e, fail, path)
				}
			}
		})
	}
}

// checkFailure makes route e fail as documented: 404 with an unknown
// ID, 400 with an empty body, 409 by asking again.
func checkFailure(t *testing.T, srv *opencodetest.Server, e opencode.ContractEntry, fail opencode.ContractError, path func(id string) string) {
	t.Helper()
	p, reqBody := path("1"), e.Request
	switch fail.Status {
	case 404:
		p = path("9")
	case 400:
		reqBody = "{}"
	}
	code, body := do2(t, srv, e.Method(), p, reqBody)
	var got struct {
		Tag string `json:"_tag"`
	}
	_ = json.Unmarshal([]byte(body), &got)
	if code != fail.Status || got.Tag != fail.Tag {
		t.Errorf("%s %s: %d %s, want %d %s", e.Method(), p, code, body, fail.Status, fail.Tag)
	}
}

// Every event of the contract can be made to happen, arrives in its
// stream's framing (the envelope on /api/event, bare on changes) and is
// shaped like its example.
func TestFake2Events(t *testing.T) {
	c := contract2()
	start := time.Now()
	srv := newContractServer2(t) // before the streams: its events are not seen
	legacy := opencodetest.NewServer(opencodetest.WithOpencode2())
	legacy.SetPermissionEvent(opencode.TypePermissionAsked)
	t.Cleanup(legacy.Close)

	events := openStream2(t, srv, "/api/event")
	changes := openStream2(t, srv, "/api/event/changes")
	legacyEvents := openStream2(t, legacy, "/api/event")
	seen := map[string]any{}
	read := func(s *sseStream, n int) {
		t.Helper()
		for range n {
			typ, data := envelope(t, s.nextData(t), start)
			if _, dup := seen[typ]; !dup {
				seen[typ] = data
			}
		}
	}
	read(events, 1)
	read(legacyEvents, 1)
	for _, m := range []map[string]any{changes.nextData(t)} {
		seen[m["type"].(string)] = m
	}

	var f opencodetest.Form
	if err := json.Unmarshal([]byte(c["form"].Example), &f); err != nil {
		t.Fatal(err)
	}
	f.ID = "frm_2"
	srv.AddForm("ses_1", f) // form.created
	read(events, 1)
	hint := changes.nextData(t)
	seen[hint["type"].(string)] = hint
	if code, body := do2(t, srv, "POST", "/api/session/ses_1/form/frm_2/reply", c["POST /api/session/{sid}/form/{id}/reply"].Request); code != 204 {
		t.Fatalf("reply: %d %s", code, body)
	}
	read(events, 1) // form.replied
	if code, body := do2(t, srv, "POST", "/api/session/ses_1/form/frm_1/cancel", ""); code != 204 {
		t.Fatalf("cancel: %d %s", code, body)
	}
	read(events, 1) // form.cancelled
	srv.AddQuestion("", opencode.QuestionRequest{ID: "que_2", SessionID: "ses_1", Questions: []opencode.Question{{Question: "?", Options: []opencode.Option{{Label: "a"}}}}, Tool: &opencode.ToolRef{MessageID: "m", CallID: "c"}})
	read(events, 1)
	srv.AddPermission("", contractPermission)
	read(events, 1)
	legacy.AddPermission("", contractPermission)
	read(legacyEvents, 1)

	prompt := c["POST /api/session/{sid}/prompt"].Request
	for _, end := range []func() bool{
		func() bool { return srv.FinishTurn("ses_1") },
		func() bool { return srv.FailTurn("ses_1", "provider", "rate limited") },
		func() bool {
			code, _ := do2(t, srv, "POST", "/api/session/ses_1/interrupt", "")
			return code == 204
		},
	} {
		if code, body := do2(t, srv, "POST", "/api/session/ses_1/prompt", prompt); code != 204 {
			t.Fatalf("prompt: %d %s", code, body)
		}
		read(events, 1) // session.status busy
		if !end() {
			t.Fatal("the turn did not end")
		}
		read(events, 2) // session.execution.…, session.status idle
	}

	for _, e := range c {
		if e.Kind != opencode.ContractEvent {
			continue
		}
		data, ok := seen[e.Name]
		if !ok {
			t.Errorf("%s was never sent", e.Name)
			continue
		}
		if err := conforms(data, decodeJSON(t, e.Example)); err != nil {
			t.Errorf("%s: data %v: %v", e.Name, data, err)
		}
	}
	for typ := range seen {
		if e, ok := c[typ]; !ok || e.Kind != opencode.ContractEvent {
			t.Errorf("the fake sent %s, which is not in the contract", typ)
		}
	}
}

// A form's answer is checked against its fields: types, options, ranges,
// lengths, pattern, format, items, required and conditions.
func TestFake2FormAnswers(t *testing.T) {
	c := contract2()
	var f opencodetest.Form
	if err := json.Unmarshal([]byte(c["form"].Example), &f); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		answer string
		want   int
	}{
		{`{"target":"staging"}`, 204}, // reason not asked, notify unanswered: channels not asked
		{`{"target":"prod","reason":"fix"}`, 204},
		{`{"target":"staging","notify":true,"channels":["email","chat"]}`, 204},
		{`{"target":"staging","notify":false}`, 204},
		{`{"target":"staging","replicas":10,"contact":"me@example.com"}`, 204},
		{`{}`, 400},                                  // target required
		{`{"target":"dev"}`, 400},                    // not an option
		{`{"target":"prod"}`, 400},                   // reason required when prod
		{`{"target":"staging","reason":"why"}`, 400}, // reason not asked
		{`{"target":"prod","reason":"no"}`, 400},     // minLength 3
		{`{"target":"prod","reason":"` + strings.Repeat("x", 201) + `"}`, 400},
		{`{"target":"staging","replicas":2.5}`, 400},
		{`{"target":"staging","replicas":11}`, 400},
		{`{"target":"staging","replicas":"3"}`, 400},
		{`{"target":"staging","notify":"yes"}`, 400},
		{`{"target":"staging","notify":false,"channels":["email"]}`, 400}, // channels not asked
		{`{"target":"staging","notify":true,"channels":[]}`, 400},         // minItems 1
		{`{"target":"staging","notify":true,"channels":["email","chat","email"]}`, 400},
		{`{"target":"staging","notify":true,"channels":["fax"]}`, 400},
		{`{"target":"staging","contact":"me@elsewhere.org"}`, 400}, // pattern
		{`{"target":"staging","contact":"example.com"}`, 400},      // format
		{`{"target":"staging","colour":"red"}`, 400},               // no such field
		{`{"target":null}`, 400},
	} {
		srv := opencodetest.NewServer(opencodetest.WithOpencode2())
		srv.AddForm("ses_1", f)
		code, body := do2(t, srv, "POST", "/api/session/ses_1/form/frm_1/reply", `{"answer":`+tt.answer+`}`)
		if code != tt.want {
			t.Errorf("answer %s: %d %s, want %d", tt.answer, code, body, tt.want)
		}
		if code == 400 && !strings.Contains(body, `"_tag":"FormInvalidAnswerError","id":"frm_1"`) {
			t.Errorf("answer %s: body %s", tt.answer, body)
		}
		if got := len(srv.Forms("ses_1")); got != map[bool]int{true: 0, false: 1}[code == 204] {
			t.Errorf("answer %s: %d forms pending after %d", tt.answer, got, code)
		}
		srv.Close()
	}
}

// Conditions are a list that must all hold; neq holds for an unanswered
// key; a url form takes an empty answer.
func TestFake2FormConditions(t *testing.T) {
	srv := opencodetest.NewServer(opencodetest.WithOpencode2())
	defer srv.Close()
	conditional := opencodetest.Form{Fields: []opencodetest.FormField{
		{Key: "a", Type: "boolean"},
		{Key: "b", Type: "integer"},
		{Key: "c", Type: "string", Required: true, When: []opencodetest.FormCondition{{Key: "a", Op: "eq", Value: true}, {Key: "b", Op: "neq", Value: 3}}},
	}}
	link := opencodetest.Form{Mode: "url", URL: "https://example.com/login"}
	for _, tt := range []struct {
		form   opencodetest.Form
		answer string
		want   int
	}{
		{conditional, `{"a":true,"b":3}`, 204}, // second condition fails: c not asked
		{conditional, `{"a":true}`, 400},       // both hold: c required
		{conditional, `{"a":false,"c":"x"}`, 400},
		{conditional, `{"a":true,"b":4,"c":"x"}`, 204},
		{link, `{"x":1}`, 400},
		{link, `{}`, 204},
	} {
		f := srv.AddForm("ses_1", tt.form)
		code, body := do2(t, srv, "POST", "/api/session/ses_1/form/"+f.ID+"/reply", `{"answer":`+tt.answer+`}`)
		if code != tt.want {
			t.Errorf("%s mode %s: %d %s, want %d", tt.answer, f.Mode, code, body, tt.want)
		}
	}
	srv.AddForm("ses_1", opencodetest.Form{ID: "frm_1", Mode: "url", URL: "https://example.com"})
	if code, body := do2(t, srv, "POST", "/api/session/ses_2/form/frm_1/cancel", ""); code != 404 {
		t.Errorf("another session's form: %d %s", code, body)
	}
}

// A form the schema refuses is a bug in the test: AddForm panics.
func TestFake2AddFormRefuses(t *testing.T) {
	srv := opencodetest.NewServer(opencodetest.WithOpencode2())
	defer srv.Close()
	for _, f := range []opencodetest.Form{
		{Mode: "dialog"},
		{Mode: "url"},
		{Fields: []opencodetest.FormField{{Key: "a", Type: "text"}}},
		{Fields: []opencodetest.FormField{{Key: "a", Type: "string"}, {Key: "a", Type: "string"}}},
		{Fields: []opencodetest.FormField{{Key: "a", Type: "string", When: []opencodetest.FormCondition{{Key: "b", Op: "eq", Value: "x"}}}, {Key: "b", Type: "string"}}},
		{Fields: []opencodetest.FormField{{Key: "a", Type: "multiselect"}}},
		{Fields: []opencodetest.FormField{{Key: "a", Type: "string", Pattern: "("}}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("AddForm(%+v) did not panic", f)
				}
			}()
			srv.AddForm("ses_1", f)
		}()
	}
	if len(srv.Forms("ses_1")) != 0 {
		t.Error("a refused form is pending")
	}
}

// Every route demands the password of the user "opencode"; a path
// outside the contract answers 404 with JSON; every request is recorded.
func TestFake2AuthAndUnknownRoutes(t *testing.T) {
	srv := opencodetest.NewServer(opencodetest.WithOpencode2())
	defer srv.Close()
	for _, tt := range []struct {
		user, password string
		want           int
	}{{"", "", 401}, {"opencode", "nope", 401}, {"other", srv.Password, 401}, {"opencode", srv.Password, 200}} {
		if code, _ := fakeDo(t, "GET", srv.URL+"/api/health", tt.user, tt.password, ""); code != tt.want {
			t.Errorf("user %q password %q: %d, want %d", tt.user, tt.password, code, tt.want)
		}
	}
	for _, p := range []string{"/api/nowhere", "/global/health", "/global/event", "/"} {
		code, body := do2(t, srv, "GET", p, "")
		if code != 404 || !json.Valid([]byte(body)) {
			t.Errorf("GET %s: %d %s, want 404 JSON", p, code, body)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 8 || reqs[0].Authorized || !reqs[3].Authorized || reqs[7].Path != "/" {
		t.Errorf("requests %+v", reqs)
	}
}

// Saved approvals: "always" saves the request's save list, the list
// narrows by project, delete removes one and an unknown one alike.
func TestFake2SavedApprovals(t *testing.T) {
	srv := opencodetest.NewServer(opencodetest.WithOpencode2())
	defer srv.Close()
	srv.AddSaved(opencodetest.SavedApproval{ID: "psv_other", ProjectID: "prj_other", Action: "edit", Resource: "*"})
	srv.AddPermission("", contractPermission)
	if code, body := do2(t, srv, "POST", "/api/session/ses_1/permission/per_1/reply", `{"reply":"always"}`); code != 204 {
		t.Fatalf("reply: %d %s", code, body)
	}
	if code, body := do2(t, srv, "POST", "/api/session/ses_1/permission/per_1/reply", `{"reply":"always"}`); code != 404 {
		t.Errorf("reply again: %d %s", code, body)
	}
	code, body := do2(t, srv, "GET", "/api/permission/saved?projectID="+opencodetest.Server2ProjectID, "")
	var list struct{ Data []opencodetest.SavedApproval }
	if err := json.Unmarshal([]byte(body), &list); code != 200 || err != nil || len(list.Data) != 1 ||
		list.Data[0].Action != "bash" || list.Data[0].Resource != "git status *" || !strings.HasPrefix(list.Data[0].ID, "psv_") {
		t.Fatalf("saved: %d %s", code, body)
	}
	for _, id := range []string{list.Data[0].ID, "psv_unknown"} {
		if code, body := do2(t, srv, "DELETE", "/api/permission/saved/"+id, ""); code != 204 {
			t.Errorf("delete %s: %d %s", id, code, body)
		}
	}
	if got := srv.Saved(); len(got) != 1 || got[0].ID != "psv_other" {
		t.Errorf("left %+v", got)
	}
	if r := srv.Replies(); len(r) != 1 || r[0].Kind != opencodetest.ReplyPermission || r[0].Reply != "always" {
		t.Errorf("replies %+v", r)
	}
}

// Prompts are recorded with their delivery, in either shape or both
// alike, unknown keys ignored; a bad delivery or differing texts are
// refused; an interrupt of an idle session is recorded and changes
// nothing.
func TestFake2PromptAndInterrupt(t *testing.T) {
	srv := opencodetest.NewServer(opencodetest.WithOpencode2())
	defer srv.Close()
	if code, _ := do2(t, srv, "POST", "/api/session/ses_1/interrupt", ""); code != 204 || srv.Busy("ses_1") {
		t.Fatalf("interrupt while idle: %d", code)
	}
	for _, body := range []string{
		`{"prompt":{"text":"go"},"delivery":"queue"}`,
		`{"id":"msg_9","prompt":{"text":"stop","files":[]},"delivery":"steer","resume":true}`,
		`{"prompt":{"text":"plain"}}`,
		`{"text":"top","files":[1],"metadata":{"k":"v"},"delivery":"queue"}`,
		`{"text":"both","prompt":{"text":"both","agents":[]},"delivery":"steer","later":1}`,
	} {
		if code, resp := do2(t, srv, "POST", "/api/session/ses_1/prompt", body); code != 204 {
			t.Fatalf("prompt %s: %d %s", body, code, resp)
		}
	}
	for _, body := range []string{
		`{"prompt":{"text":"x"},"delivery":"later"}`, `{"prompt":{}}`, `{}`, `{"text":"x","prompt":{"text":"y"}}`,
		`{"text":"x","prompt":{}}`, `{"text":5}`, `{"text":"x"} {}`,
	} {
		if code, resp := do2(t, srv, "POST", "/api/session/ses_1/prompt", body); code != 400 {
			t.Errorf("prompt %s: %d %s, want 400", body, code, resp)
		}
	}
	ps := srv.Prompts()
	if len(ps) != 5 || ps[0].Delivery != "queue" || ps[1].Delivery != "steer" || ps[1].ID != "msg_9" ||
		string(ps[1].Resume) != "true" || string(ps[1].Files) != "[]" || ps[2].Delivery != "" || ps[2].Text != "plain" ||
		ps[3].Text != "top" || string(ps[3].Files) != "[1]" || ps[4].Text != "both" || ps[4].Delivery != "steer" || string(ps[4].Agents) != "[]" {
		t.Errorf("prompts %+v", ps)
	}
	if !srv.Busy("ses_1") {
		t.Error("a prompted session is not busy")
	}
	if code, _ := do2(t, srv, "POST", "/api/session/ses_1/interrupt", ""); code != 204 || srv.Busy("ses_1") {
		t.Errorf("interrupt: %d, busy %v", code, srv.Busy("ses_1"))
	}
	if got := srv.Interrupts(); !slices.Equal(got, []string{"ses_1", "ses_1"}) {
		t.Errorf("interrupts %v", got)
	}
}

// The event stream sends heartbeat comments; a dropped stream ends and a
// new one starts with server.connected; the changes stream starts with
// log.sweep_required, and SweepRequired sends it again.
func TestFake2Streams(t *testing.T) {
	srv := opencodetest.NewServer(opencodetest.WithOpencode2(), opencodetest.WithHeartbeat(20*time.Millisecond))
	defer srv.Close()
	ev := openStream2(t, srv, "/api/event")
	if typ, _ := envelope(t, ev.nextData(t), time.Now()); typ != "server.connected" {
		t.Fatalf("first event %s", typ)
	}
	if rec := ev.next(t); rec != ": heartbeat" {
		t.Errorf("record %q, want a heartbeat", rec)
	}
	ch := openStream2(t, srv, "/api/event/changes")
	if m := ch.nextData(t); m["type"] != "log.sweep_required" || len(m) != 1 {
		t.Errorf("first change %v", m)
	}
	srv.SweepRequired()
	srv.Send(opencodetest.Event2{Type: "session.status", Data: map[string]any{"sessionID": "ses_1"}, Location: map[string]string{"directory": "/w"}})
	if m := ch.nextData(t); m["type"] != "log.sweep_required" {
		t.Errorf("after SweepRequired %v", m)
	}
	for {
		if rec := ev.next(t); rec != ": heartbeat" {
			if !strings.Contains(rec, `"location":{"directory":"/w"}`) {
				t.Errorf("record %q, want the event with its location", rec)
			}
			break
		}
	}

	srv.DropStreams()
	if _, err := ev.r.ReadString(0); err != io.EOF && !strings.Contains(fmt.Sprint(err), "closed") {
		t.Errorf("a dropped stream ended with %v", err)
	}
	if err := srv.WaitConnections(fakeTestContext(t), 1); err != nil {
		t.Fatal(err)
	}
	ev2 := openStream2(t, srv, "/api/event")
	if err := srv.WaitConnections(fakeTestContext(t), 2); err != nil {
		t.Fatal(err)
	}
	if typ, _ := envelope(t, ev2.nextData(t), time.Now().Add(-time.Second)); typ != "server.connected" {
		t.Errorf("after a drop: %s", typ)
	}
}

// WriteServiceFile writes service.json as OpenCode 2 does: the
// contract's keys, mode 0600, pointing at this server.
func TestFake2ServiceFile(t *testing.T) {
	srv := opencodetest.NewServer(opencodetest.WithOpencode2())
	defer srv.Close()
	dir := t.TempDir()
	path, err := srv.WriteServiceFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, "service.json") {
		t.Errorf("path %s", path)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("stat: %v %v", st, err)
	}
	b, _ := os.ReadFile(path)
	got := decodeJSON(t, string(b))
	if err := conforms(got, decodeJSON(t, contract2()["service.json"].Example)); err != nil {
		t.Errorf("service.json %s: %v", b, err)
	}
	m := got.(map[string]any)
	if m["url"] != srv.URL || m["password"] != srv.Password || int(m["pid"].(float64)) != os.Getpid() {
		t.Errorf("service.json %s", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
	if _, err := srv.WriteServiceFile(filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "service.json") {
		t.Errorf("into a missing folder: %v", err)
	}
}

// sessionsOf decodes a list of sessions into "id dir title" lines.
func sessionsOf(t *testing.T, code int, body string) []string {
	t.Helper()
	var page struct {
		Data []struct {
			ID, ParentID, Title string
			Location            struct{ Directory string }
		}
		Cursor map[string]any
	}
	if err := json.Unmarshal([]byte(body), &page); code != 200 || err != nil || page.Cursor == nil {
		t.Fatalf("list: %d %s", code, body)
	}
	var out []string
	for _, s := range page.Data {
		out = append(out, strings.Join(strings.Fields(s.ID+" "+s.Location.Directory+" "+s.Title+" "+s.ParentID), " "))
	}
	return out
}

// Sessions: AddSession, those a scripting method or a prompt names, and
// those POST /api/session creates are listed newest first, by directory;
// GET of an unknown one is 404.
func TestFake2Sessions(t *testing.T) {
	srv := opencodetest.NewServer(opencodetest.WithOpencode2())
	defer srv.Close()
	srv.AddSession(opencode.Session{ID: "ses_a", Directory: "/w", Title: "Alpha"})
	srv.AddForm("ses_f", opencodetest.Form{Mode: "url", URL: "https://example.com"})
	if code, body := do2(t, srv, "POST", "/api/session/ses_p/prompt", `{"text":"hi"}`); code != 204 {
		t.Fatalf("prompt: %d %s", code, body)
	}
	code, body := do2(t, srv, "POST", "/api/session", `{"title":"New","location":{"directory":"/w"}}`)
	var created struct{ Data struct{ ID string } }
	if err := json.Unmarshal([]byte(body), &created); code != 200 || err != nil || created.Data.ID != "ses_4" {
		t.Fatalf("create: %d %s", code, body)
	}
	if code, body := do2(t, srv, "POST", "/api/session", `{"parentID":"ses_4"}`); code != 200 || !strings.Contains(body, `"parentID":"ses_4"`) {
		t.Errorf("create a child: %d %s", code, body)
	}
	for _, tt := range []struct {
		query string
		want  []string
	}{
		{"", []string{"ses_5 /w ses_4", "ses_4 /w New", "ses_p /", "ses_f /", "ses_a /w Alpha"}},
		{"?directory=/w", []string{"ses_5 /w ses_4", "ses_4 /w New", "ses_a /w Alpha"}},
		{"?directory=/w&order=asc&limit=2", []string{"ses_a /w Alpha", "ses_4 /w New"}},
		{"?directory=/elsewhere", nil},
	} {
		code, body := do2(t, srv, "GET", "/api/session"+tt.query, "")
		if got := sessionsOf(t, code, body); !slices.Equal(got, tt.want) {
			t.Errorf("list%s: %q, want %q", tt.query, got, tt.want)
		}
	}
	for _, tt := range []struct{ method, path, body, tag string }{
		{"GET", "/api/session?directory=w", "", "InvalidRequestError"},
		{"GET", "/api/session?limit=0", "", "InvalidRequestError"},
		{"GET", "/api/session?order=up", "", "InvalidRequestError"},
		{"GET", "/api/session?cursor=abc", "", "InvalidCursorError"},
		{"POST", "/api/session", `{"directory":"/w"}`, "InvalidRequestError"},
		{"POST", "/api/session", `{"location":{"directory":"w"}}`, "InvalidRequestError"},
		{"POST", "/api/session", `{"parentID":"ses_none"}`, "SessionNotFoundError"},
		{"POST", "/api/session", `{"id":"ses_a"}`, "ConflictError"},
		{"GET", "/api/session/ses_none", "", "SessionNotFoundError"},
		{"GET", "/api/session/nope", "", "InvalidRequestError"},
	} {
		if code, body := do2(t, srv, tt.method, tt.path, tt.body); code < 400 || !strings.Contains(body, `"_tag":"`+tt.tag+`"`) {
			t.Errorf("%s %s %s: %d %s, want %s", tt.method, tt.path, tt.body, code, body, tt.tag)
		}
	}
	code, body = do2(t, srv, "GET", "/api/session/ses_a", "")
	var got struct {
		Data map[string]any
	}
	if err := json.Unmarshal([]byte(body), &got); code != 200 || err != nil || got.Data["title"] != "Alpha" {
		t.Errorf("get: %d %s", code, body)
	}
}

// DELETE …/form/{id} cancels as POST …/cancel does, recording ?message=.
func TestFake2FormDelete(t *testing.T) {
	srv := opencodetest.NewServer(opencodetest.WithOpencode2())
	defer srv.Close()
	f := srv.AddForm("ses_1", opencodetest.Form{Mode: "url", URL: "https://example.com"})
	if code, body := do2(t, srv, "DELETE", "/api/session/ses_1/form/"+f.ID+"?message=later", ""); code != 204 {
		t.Fatalf("delete: %d %s", code, body)
	}
	if code, body := do2(t, srv, "DELETE", "/api/session/ses_1/form/"+f.ID, ""); code != 409 {
		t.Errorf("delete again: %d %s", code, body)
	}
	if r := srv.Replies(); len(r) != 1 || r[0].Kind != opencodetest.CancelForm || r[0].RequestID != f.ID || r[0].Message != "later" {
		t.Errorf("replies %+v", r)
	}
}
