package opencode_test

import (
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/opencode"
)

// turnMessages is a turn as opencode 1.18.33 lists it (oldest first, one
// assistant message per step): an older turn, the prompt, a step that
// ran bash, and the step that asked (call_q) with text before and after.
const turnMessages = `[
 {"info":{"id":"msg_0","role":"assistant","time":{"created":50}},"parts":[{"type":"text","text":"Old turn's words"}]},
 {"info":{"id":"msg_1","role":"user","time":{"created":100}},"parts":[
   {"type":"text","text":"Fix the bug"},
   {"type":"file","mime":"image/png","filename":"pic.png","url":"data:image/png;base64,iVBORw0KGgo="},
   {"type":"text","text":"Called the Read tool","synthetic":true}]},
 {"info":{"id":"msg_2","role":"assistant","time":{"created":200}},"parts":[
   {"type":"step-start"},
   {"type":"reasoning","text":"hmm"},
   {"type":"text","text":"Let me run the tests.\n\n"},
   {"type":"tool","tool":"bash","callID":"call_b","state":{"status":"completed","input":{"command":"go test ./...\necho done","description":"Run tests"},"output":"FAIL"}},
   {"type":"tool","tool":"write","callID":"call_w","state":{"status":"completed","input":{"filePath":"/home/me/project/internal/very/long/path/to/some/deeply/nested/package/file_name_here.go","content":"package x"}}},
   {"type":"tool","tool":"todowrite","callID":"call_t","state":{"status":"completed","input":{"todos":[]}}},
   {"type":"step-finish","tokens":{"input":1}}]},
 {"info":{"id":"msg_3","role":"assistant","time":{"created":300}},"parts":[
   {"type":"text","text":"Two tests fail.\nWhich fix do you want?"},
   {"type":"text","text":"ignored","ignored":true},
   {"type":"tool","tool":"question","callID":"call_q","state":{"status":"running","input":{"questions":[]}}},
   {"type":"text","text":"after the question"}]},
 {"info":{"id":"msg_4","role":"assistant","time":{"created":400}},"parts":[{"type":"text","text":"a later step"}]}
]`

func TestRecentContext(t *testing.T) {
	ms, c := newMessagesServer(t, http.StatusOK, turnMessages)
	const dir = "/home/me/project"
	got, err := c.RecentContext(testContext(t), dir, "ses_1", opencode.ContextOptions{MessageID: "msg_3", CallID: "call_q", Lines: 10})
	if err != nil {
		t.Fatal(err)
	}
	want := []opencode.ContextLine{
		{Text: "Let me run the tests."},
		{Tool: "bash", Text: "go test ./... …"},
		{Tool: "write", Text: "…project/internal/very/long/path/to/some/deeply/nested/package/file_name_here.go"},
		{Tool: "todowrite"},
		{Text: "Two tests fail."},
		{Text: "Which fix do you want?"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RecentContext =\n%q\nwant\n%q", got, want)
	}
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if ms.rawPath != "/session/ses_1/message" || ms.dir != dir || ms.limit != "8" {
		t.Errorf("request: path %q, directory %q, limit %q", ms.rawPath, ms.dir, ms.limit)
	}
}

// The write tool's path, cut at its start, is 80 characters long.
func TestRecentContextPathLength(t *testing.T) {
	_, c := newMessagesServer(t, http.StatusOK, turnMessages)
	got, err := c.RecentContext(testContext(t), "", "ses_1", opencode.ContextOptions{MessageID: "msg_3", CallID: "call_q", Lines: 10})
	if err != nil || len(got) < 3 {
		t.Fatalf("RecentContext = %q, %v", got, err)
	}
	if n := len([]rune(got[2].Text)); n != 80 || !strings.HasSuffix(got[2].Text, "file_name_here.go") {
		t.Errorf("path %q: %d characters", got[2].Text, n)
	}
}

func TestRecentContextClipped(t *testing.T) {
	_, c := newMessagesServer(t, http.StatusOK, turnMessages)
	ctx := testContext(t)
	// Without a request: the latest lines, the later step's included.
	got, err := c.RecentContext(ctx, "", "ses_1", opencode.ContextOptions{Lines: 2})
	if want := []opencode.ContextLine{{Text: "after the question"}, {Text: "a later step"}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("latest 2 = %q, %v; want %q", got, err, want)
	}
	// 30 characters: "Which fix do you want?" (22+1) fits, the line before is cut to 7 ("…" and 5).
	got, err = c.RecentContext(ctx, "", "ses_1", opencode.ContextOptions{MessageID: "msg_3", CallID: "call_q", Lines: 5, MaxChars: 30})
	if want := []opencode.ContextLine{{Text: "…fail."}, {Text: "Which fix do you want?"}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("30 characters = %q, %v; want %q", got, err, want)
	}
	// A tool line is never cut: it goes whole or not at all.
	got, err = c.RecentContext(ctx, "", "ses_1", opencode.ContextOptions{MessageID: "msg_2", Lines: 5, MaxChars: 12})
	if want := []opencode.ContextLine{{Tool: "todowrite"}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("tool lines = %q, %v; want %q", got, err, want)
	}
	// A request's message not listed: what came before it by ID.
	got, err = c.RecentContext(ctx, "", "ses_1", opencode.ContextOptions{MessageID: "msg_35", Lines: 1})
	if want := []opencode.ContextLine{{Text: "after the question"}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("before msg_35 = %q, %v; want %q", got, err, want)
	}
	got, err = c.RecentContext(ctx, "", "ses_1", opencode.ContextOptions{})
	if err != nil || got != nil {
		t.Errorf("no lines asked = %q, %v", got, err)
	}
}

func TestRecentContextNone(t *testing.T) {
	for name, body := range map[string]string{
		"empty":       `[]`,
		"prompt last": `[{"info":{"id":"msg_0","role":"assistant"},"parts":[{"type":"text","text":"old"}]},{"info":{"id":"msg_1","role":"user"},"parts":[{"type":"text","text":"hi"}]}]`,
		"asked first": `[{"info":{"id":"msg_1","role":"assistant"},"parts":[{"type":"tool","tool":"question","callID":"call_1","state":{"input":"{\"quest"}}]}]`,
	} {
		_, c := newMessagesServer(t, http.StatusOK, body)
		got, err := c.RecentContext(testContext(t), "", "ses_1", opencode.ContextOptions{MessageID: "msg_1", CallID: "call_1", Lines: 5})
		if err != nil || len(got) != 0 {
			t.Errorf("%s: RecentContext = %q, %v; want none", name, got, err)
		}
	}
}

func TestRecentContextErrors(t *testing.T) {
	_, c := newMessagesServer(t, http.StatusNotFound, `{"name":"NotFoundError","data":{"message":"Session not found"}}`)
	_, err := c.RecentContext(testContext(t), "", "ses_gone", opencode.ContextOptions{Lines: 3})
	if !errors.Is(err, opencode.ErrNotFound) {
		t.Errorf("unknown session: err = %v, want ErrNotFound", err)
	}
	noSecret(t, err)
	if _, err := c.RecentContext(testContext(t), "", "", opencode.ContextOptions{Lines: 3}); !errors.Is(err, opencode.ErrNotAccepted) {
		t.Errorf("empty session ID: err = %v, want ErrNotAccepted", err)
	}
	// A tool input of an unexpected type costs its argument only.
	_, c = newMessagesServer(t, http.StatusOK, `[{"info":{"id":"m","role":"assistant"},"parts":[{"type":"tool","tool":"bash","state":{"input":{"command":42}}},{"type":"text","text":"ok"}]}]`)
	got, err := c.RecentContext(testContext(t), "", "ses_1", opencode.ContextOptions{Lines: 3})
	if want := []opencode.ContextLine{{Tool: "bash"}, {Text: "ok"}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("odd input = %q, %v; want %q", got, err, want)
	}
}

// More than 8 MiB of messages is one clear error, not a cut list.
func TestRecentContextTooLarge(t *testing.T) {
	big := `[{"info":{"id":"m","role":"assistant"},"parts":[{"type":"text","text":"` + strings.Repeat("x", 9<<20) + `"}]}]`
	_, c := newMessagesServer(t, http.StatusOK, big)
	_, err := c.RecentContext(testContext(t), "", "ses_1", opencode.ContextOptions{Lines: 3})
	if !errors.Is(err, opencode.ErrNotAccepted) || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("err = %v, want ErrNotAccepted saying larger than", err)
	}
}

// OpenCode 2 lists newest first (order=desc) in its own message shape.
func TestRecentContext2(t *testing.T) {
	s := newScripted2(t, map[string]func() (int, string){
		"GET /api/session/ses_1/message": answer(200, `{"data":[
		  {"id":"msg_4","type":"assistant","content":[{"type":"text","text":"later"}]},
		  {"id":"msg_3","type":"assistant","content":[
		    {"type":"reasoning","text":"hmm"},
		    {"type":"text","text":"Which one?"},
		    {"type":"tool","id":"call_q","name":"question","state":{"status":"running","input":{}}}]},
		  {"id":"msg_2","type":"assistant","content":[
		    {"type":"text","text":"Reading."},
		    {"type":"tool","id":"call_r","name":"read","state":{"status":"completed","input":{"filePath":"/p/a.go"},"content":[{"type":"text","text":"x"}]}},
		    {"type":"tool","id":"call_s","name":"bash","state":{"status":"streaming","input":"{\"comm"}}]},
		  {"id":"msg_1","type":"user","text":"Go","files":[]},
		  {"id":"msg_0","type":"assistant","content":[{"type":"text","text":"old"}]}],"cursor":{}}`),
	})
	c := client2(t, s.URL, "pw", 2)
	got, err := c.RecentContext(ctx2(t), "/p", "ses_1", opencode.ContextOptions{MessageID: "msg_3", CallID: "call_q", Lines: 5})
	want := []opencode.ContextLine{{Text: "Reading."}, {Tool: "read", Text: "/p/a.go"}, {Tool: "bash"}, {Text: "Which one?"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("RecentContext = %q, %v; want %q", got, err, want)
	}
	reqs := s.requests()
	if len(reqs) != 1 || reqs[0].Query != "limit=8&order=desc" {
		t.Errorf("requests %+v", reqs)
	}
}
