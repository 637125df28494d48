package opencode_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/hermes-bot/hermes-bot/opencode"
)

// messagesServer answers GET /session/{id}/message with body, recording
// the request's path and query.
type messagesServer struct {
	mu         sync.Mutex
	rawPath    string
	dir, limit string
	user, pass string
}

func newMessagesServer(t *testing.T, status int, body string) (*messagesServer, *opencode.Client) {
	t.Helper()
	ms := &messagesServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ms.mu.Lock()
		ms.rawPath = r.URL.EscapedPath()
		ms.dir, ms.limit = r.URL.Query().Get("directory"), r.URL.Query().Get("limit")
		ms.user, ms.pass, _ = r.BasicAuth()
		ms.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	c, err := opencode.NewClient(srv.URL, opencode.WithBasicAuth("", password))
	if err != nil {
		t.Fatal(err)
	}
	return ms, c
}

// sessionMessages is shaped as opencode 1.18.33 answers: oldest first,
// info and parts, with tool and step parts between the text.
const sessionMessages = `[
 {"info":{"id":"msg_1","role":"user","sessionID":"ses_1","time":{"created":100}},
  "parts":[{"id":"prt_1","type":"text","text":"Fix the bug","messageID":"msg_1","sessionID":"ses_1"}]},
 {"info":{"id":"msg_2","role":"assistant","sessionID":"ses_1","time":{"created":200,"completed":210},"modelID":"m","providerID":"p"},
  "parts":[{"id":"prt_2","type":"text","text":"Earlier answer","messageID":"msg_2","sessionID":"ses_1"}]},
 {"info":{"id":"msg_3","role":"assistant","sessionID":"ses_1","time":{"created":300,"completed":390}},
  "parts":[{"id":"prt_3","type":"step-start"},
           {"id":"prt_4","type":"reasoning","text":"thinking hard"},
           {"id":"prt_5","type":"text","text":"  Fixed it.  "},
           {"id":"prt_6","type":"tool","tool":"bash","state":{"status":"completed"}},
           {"id":"prt_7","type":"text","text":"note to self","synthetic":true},
           {"id":"prt_8","type":"text","text":"All tests pass ✅"},
           {"id":"prt_9","type":"step-finish"}]},
 {"info":{"id":"msg_4","role":"assistant","sessionID":"ses_1","time":{"created":400}},
  "parts":[{"id":"prt_10","type":"tool","tool":"read"}]}
]`

func TestLastAssistantText(t *testing.T) {
	ms, c := newMessagesServer(t, http.StatusOK, sessionMessages)
	const dir = "/home/user/my project & more"
	got, err := c.LastAssistantText(testContext(t), dir, "ses_1/x")
	if err != nil {
		t.Fatalf("LastAssistantText: %v", err)
	}
	if want := "Fixed it.\n\nAll tests pass ✅"; got != want {
		t.Errorf("LastAssistantText = %q, want %q", got, want)
	}
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if ms.rawPath != "/session/ses_1%2Fx/message" || ms.dir != dir || ms.limit != "10" {
		t.Errorf("request: path %q, directory %q, limit %q", ms.rawPath, ms.dir, ms.limit)
	}
	if ms.user != "opencode" || ms.pass != password {
		t.Errorf("basic auth not sent: user %q", ms.user)
	}
}

func TestLastAssistantTextNewestByTime(t *testing.T) {
	// Listed newest first: the creation time still picks msg_b.
	_, c := newMessagesServer(t, http.StatusOK, `[
	 {"info":{"id":"msg_b","role":"assistant","time":{"created":500}},"parts":[{"type":"text","text":"newest"}]},
	 {"info":{"id":"msg_a","role":"assistant","time":{"created":100}},"parts":[{"type":"text","text":"oldest"}]}]`)
	got, err := c.LastAssistantText(testContext(t), "", "ses_1")
	if err != nil || got != "newest" {
		t.Errorf("LastAssistantText = %q, %v; want newest", got, err)
	}
}

func TestLastAssistantTextNone(t *testing.T) {
	for name, body := range map[string]string{
		"empty":     `[]`,
		"user only": `[{"info":{"id":"msg_1","role":"user","time":{"created":1}},"parts":[{"type":"text","text":"hi"}]}]`,
		"no text":   `[{"info":{"id":"msg_1","role":"assistant","time":{"created":1}},"parts":[{"type":"tool"},{"type":"text","text":"  "}]}]`,
	} {
		_, c := newMessagesServer(t, http.StatusOK, body)
		got, err := c.LastAssistantText(testContext(t), "", "ses_1")
		if err != nil || got != "" {
			t.Errorf("%s: LastAssistantText = %q, %v; want empty, nil", name, got, err)
		}
	}
}

func TestLastAssistantTextErrors(t *testing.T) {
	_, c := newMessagesServer(t, http.StatusNotFound, `{"name":"NotFoundError","data":{"message":"Session not found"}}`)
	_, err := c.LastAssistantText(testContext(t), "", "ses_gone")
	if !errors.Is(err, opencode.ErrNotFound) {
		t.Errorf("unknown session: err = %v, want ErrNotFound", err)
	}
	noSecret(t, err)

	_, c = newMessagesServer(t, http.StatusOK, `{"not":"a list"}`)
	if _, err := c.LastAssistantText(testContext(t), "", "ses_1"); !errors.Is(err, opencode.ErrTransient) {
		t.Errorf("malformed answer: err = %v, want ErrTransient", err)
	}

	if _, err := c.LastAssistantText(testContext(t), "", ""); !errors.Is(err, opencode.ErrNotAccepted) {
		t.Errorf("empty session ID: err = %v, want ErrNotAccepted", err)
	}
}
