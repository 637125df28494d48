package opencodetest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// chunk is the part of a chat.completion.chunk the tests read.
type chunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Role      string  `json:"role"`
			Content   *string `json:"content"`
			ToolCalls []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		TotalTokens int `json:"total_tokens"`
	} `json:"usage"`
}

// streamed is a whole streamed answer, folded.
type streamed struct {
	chunks       []chunk
	text         string
	callID       string
	toolName     string
	arguments    string
	finishReason string
}

const (
	titleSystem = "You are a title generator. You output ONLY a thread title. Nothing else."
	agentSystem = "You are opencode, an interactive CLI tool."
)

var agentTools = []any{
	map[string]any{"type": "function", "function": map[string]any{"name": "question", "parameters": map[string]any{}}},
	map[string]any{"type": "function", "function": map[string]any{"name": "bash", "parameters": map[string]any{}}},
}

// chatBody builds a request body; tools nil means none offered.
func chatBody(stream bool, tools []any, messages ...map[string]any) map[string]any {
	body := map[string]any{"model": "mock-model", "stream": stream, "messages": messages}
	if tools != nil {
		body["tools"] = tools
	}
	return body
}

func msg(role, content string) map[string]any {
	return map[string]any{"role": role, "content": content}
}

func post(t *testing.T, m *opencodetest.Model, body any) *http.Response {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(m.URL+"/chat/completions", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// stream sends a streamed request and checks the SSE framing: every record
// is one data line and a blank line, each a chat.completion.chunk of one
// response, finish_reason exactly once and last, then [DONE].
func stream(t *testing.T, m *opencodetest.Model, body map[string]any) streamed {
	t.Helper()
	resp := post(t, m, body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %s", resp.Status)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("Content-Type = %q", ct)
	}
	var s streamed
	sc := bufio.NewScanner(resp.Body)
	done := false
	for sc.Scan() {
		line := sc.Text()
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("line %q is not a data line", line)
		}
		if !sc.Scan() || sc.Text() != "" {
			t.Fatalf("record %q not followed by a blank line", line)
		}
		if done {
			t.Fatalf("record %q after [DONE]", data)
		}
		if data == "[DONE]" {
			done = true
			continue
		}
		if s.finishReason != "" {
			t.Fatalf("chunk %s after the finish reason", data)
		}
		var c chunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("chunk %s: %v", data, err)
		}
		if c.Object != "chat.completion.chunk" || c.ID == "" || c.Model != "mock-model" {
			t.Fatalf("chunk header: %s", data)
		}
		if len(s.chunks) > 0 && c.ID != s.chunks[0].ID {
			t.Fatalf("chunk id %q, earlier %q", c.ID, s.chunks[0].ID)
		}
		if len(c.Choices) != 1 || c.Choices[0].Index != 0 {
			t.Fatalf("chunk choices: %s", data)
		}
		ch := c.Choices[0]
		if ch.Delta.Content != nil {
			s.text += *ch.Delta.Content
		}
		for _, tc := range ch.Delta.ToolCalls {
			if tc.Index != 0 {
				t.Fatalf("tool call index %d", tc.Index)
			}
			if tc.ID != "" {
				if tc.Type != "function" {
					t.Fatalf("tool call type %q", tc.Type)
				}
				s.callID, s.toolName = tc.ID, tc.Function.Name
			}
			s.arguments += tc.Function.Arguments
		}
		if ch.FinishReason != nil {
			s.finishReason = *ch.FinishReason
		}
		s.chunks = append(s.chunks, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if !done {
		t.Fatal("stream ended without [DONE]")
	}
	if s.finishReason == "" {
		t.Fatal("stream has no finish reason")
	}
	if len(s.chunks) == 0 || s.chunks[0].Choices[0].Delta.Role != "assistant" {
		t.Fatal("first chunk does not set role assistant")
	}
	return s
}

func TestModelStreamsToolCall(t *testing.T) {
	m := opencodetest.NewModel()
	defer m.Close()
	q := opencodetest.QuestionArg{
		Question: "Which database should I use?",
		Header:   "Database",
		Options: []opencodetest.OptionArg{
			{Label: "Postgres", Description: "relational"},
			{Label: "SQLite", Description: "embedded"},
		},
	}
	callID := m.AskQuestion(q)
	if !strings.HasPrefix(callID, "call_") {
		t.Fatalf("call ID %q", callID)
	}

	s := stream(t, m, chatBody(true, agentTools, msg("system", agentSystem), msg("user", "pick one")))
	if s.finishReason != "tool_calls" {
		t.Errorf("finish_reason = %q, want tool_calls", s.finishReason)
	}
	if s.callID != callID || s.toolName != "question" {
		t.Errorf("tool call = %s %s, want %s question", s.callID, s.toolName, callID)
	}
	var args struct {
		Questions []opencodetest.QuestionArg `json:"questions"`
	}
	if err := json.Unmarshal([]byte(s.arguments), &args); err != nil {
		t.Fatalf("arguments %q: %v", s.arguments, err)
	}
	if len(args.Questions) != 1 || args.Questions[0].Question != q.Question ||
		len(args.Questions[0].Options) != 2 || args.Questions[0].Options[1] != q.Options[1] {
		t.Errorf("arguments = %s", s.arguments)
	}
	if s.text != "" {
		t.Errorf("tool call turn also says %q", s.text)
	}
	if last := s.chunks[len(s.chunks)-1]; last.Usage == nil || last.Usage.TotalTokens == 0 {
		t.Error("finish chunk carries no usage")
	}
}

func TestModelCallToolIDsAreUnique(t *testing.T) {
	m := opencodetest.NewModel()
	defer m.Close()
	id1, err := m.CallTool("bash", map[string]string{"command": "echo hi > out.txt", "description": "write"})
	if err != nil {
		t.Fatal(err)
	}
	id2, err := m.CallTool("bash", json.RawMessage(`{"command":"ls","description":"list"}`))
	if err != nil {
		t.Fatal(err)
	}
	if id1 == id2 {
		t.Fatalf("two calls share ID %q", id1)
	}
	for _, want := range []struct{ id, args string }{
		{id1, `{"command":"echo hi \u003e out.txt","description":"write"}`},
		{id2, `{"command":"ls","description":"list"}`},
	} {
		s := stream(t, m, chatBody(true, agentTools, msg("user", "go")))
		if s.callID != want.id || s.toolName != "bash" || s.arguments != want.args {
			t.Errorf("got %s %s %s, want %s bash %s", s.callID, s.toolName, s.arguments, want.id, want.args)
		}
	}
}

func TestModelCallToolRejectsBadArguments(t *testing.T) {
	m := opencodetest.NewModel()
	defer m.Close()
	if _, err := m.CallTool("bash", make(chan int)); err == nil {
		t.Error("CallTool accepted arguments that cannot be marshalled")
	}
	if _, err := m.CallTool("bash", "not json"); err == nil {
		t.Error("CallTool accepted a string that is not JSON")
	}
	if n := m.Pending(); n != 0 {
		t.Errorf("Pending = %d after rejected calls, want 0", n)
	}
}

func TestModelTitleRequestsDoNotConsumeTurns(t *testing.T) {
	m := opencodetest.NewModel()
	defer m.Close()
	callID, err := m.CallTool("bash", map[string]string{"command": "ls", "description": "list"})
	if err != nil {
		t.Fatal(err)
	}
	m.Say("all done")

	// As opencode 1.18.33 sends it: no tools, a title-generator prompt.
	title := stream(t, m, chatBody(true, nil, msg("system", titleSystem), msg("user", "hi"), msg("user", "hi")))
	if title.text != opencodetest.TitleReply || title.finishReason != "stop" {
		t.Errorf("title answer = %q (%s), want %q (stop)", title.text, title.finishReason, opencodetest.TitleReply)
	}
	// A title prompt is recognised even if tools were offered.
	title = stream(t, m, chatBody(true, agentTools, msg("system", titleSystem), msg("user", "hi")))
	if title.text != opencodetest.TitleReply {
		t.Errorf("title answer with tools = %q", title.text)
	}
	if n := m.Pending(); n != 2 {
		t.Fatalf("Pending = %d after title requests, want 2", n)
	}

	s := stream(t, m, chatBody(true, agentTools, msg("system", agentSystem), msg("user", "hi")))
	if s.callID != callID {
		t.Errorf("first agent request got call %q, want %q", s.callID, callID)
	}
	s = stream(t, m, chatBody(true, agentTools, msg("system", agentSystem), msg("user", "hi")))
	if s.text != "all done" || s.finishReason != "stop" {
		t.Errorf("second agent request = %q (%s), want %q (stop)", s.text, s.finishReason, "all done")
	}
	s = stream(t, m, chatBody(true, agentTools, msg("system", agentSystem), msg("user", "hi")))
	if s.text != opencodetest.DefaultModelReply || s.finishReason != "stop" {
		t.Errorf("with no turn queued = %q (%s), want %q (stop)", s.text, s.finishReason, opencodetest.DefaultModelReply)
	}

	var titles int
	for _, r := range m.Requests() {
		if r.Title {
			titles++
		}
	}
	if titles != 2 {
		t.Errorf("%d requests recorded as title requests, want 2", titles)
	}
}

func TestModelRecordsRequests(t *testing.T) {
	m := opencodetest.NewModel()
	defer m.Close()
	callID := m.AskQuestion(opencodetest.QuestionArg{Question: "Q?", Options: []opencodetest.OptionArg{{Label: "A"}}})
	stream(t, m, chatBody(true, agentTools, msg("system", agentSystem), msg("user", "ask me")))

	type waited struct {
		content string
		err     error
	}
	got := make(chan waited, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		content, err := m.WaitToolResult(ctx, callID)
		got <- waited{content, err}
	}()

	answer := `User has answered your questions: "Q?"="A".`
	body := chatBody(true, agentTools,
		msg("system", agentSystem),
		map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": "ask"},
			map[string]any{"type": "text", "text": "me"},
		}},
		map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"id": callID, "type": "function",
			"function": map[string]any{"name": "question", "arguments": `{"questions":[]}`},
		}}},
		map[string]any{"role": "tool", "tool_call_id": callID, "content": answer},
	)
	stream(t, m, body)

	w := <-got
	if w.err != nil || w.content != answer {
		t.Fatalf("WaitToolResult = %q, %v; want %q", w.content, w.err, answer)
	}

	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests recorded, want 2", len(reqs))
	}
	r := reqs[1]
	if !r.Stream || r.Model != "mock-model" || r.Title || strings.Join(r.Tools, ",") != "question,bash" {
		t.Errorf("request = stream %v model %q title %v tools %v", r.Stream, r.Model, r.Title, r.Tools)
	}
	if len(r.Messages) != 4 {
		t.Fatalf("%d messages recorded, want 4", len(r.Messages))
	}
	if u := r.Messages[1]; u.Role != "user" || u.Content != "ask\nme" || !json.Valid(u.RawContent) {
		t.Errorf("user message = %+v", u)
	}
	if a := r.Messages[2]; a.Role != "assistant" || len(a.ToolCalls) != 1 ||
		a.ToolCalls[0].ID != callID || a.ToolCalls[0].Name != "question" {
		t.Errorf("assistant message = %+v", a)
	}
	if tm := r.Messages[3]; tm.Role != "tool" || tm.ToolCallID != callID || tm.Content != answer {
		t.Errorf("tool message = %+v", tm)
	}
}

func TestModelWaitToolResultHonoursContext(t *testing.T) {
	m := opencodetest.NewModel()
	defer m.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.WaitToolResult(ctx, "call_1"); err == nil {
		t.Fatal("WaitToolResult returned no error for a call never answered")
	}
}

func TestModelNonStreaming(t *testing.T) {
	m := opencodetest.NewModel()
	defer m.Close()
	callID, err := m.CallTool("bash", map[string]string{"command": "ls"})
	if err != nil {
		t.Fatal(err)
	}
	resp := post(t, m, chatBody(false, agentTools, msg("user", "hi")))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %s", resp.Status)
	}
	var got struct {
		Object  string `json:"object"`
		Choices []struct {
			Message struct {
				Role      string `json:"role"`
				ToolCalls []struct {
					ID       string `json:"id"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.Object != "chat.completion" || len(got.Choices) != 1 {
		t.Fatalf("answer = %+v", got)
	}
	c := got.Choices[0]
	if c.FinishReason != "tool_calls" || c.Message.Role != "assistant" || len(c.Message.ToolCalls) != 1 ||
		c.Message.ToolCalls[0].ID != callID || c.Message.ToolCalls[0].Function.Arguments != `{"command":"ls"}` {
		t.Errorf("choice = %+v", c)
	}
}

func TestModelRejectsBadRequests(t *testing.T) {
	m := opencodetest.NewModel()
	defer m.Close()
	resp, err := http.Post(m.URL+"/chat/completions", "application/json", strings.NewReader("{not json"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("malformed body: status %s, want 400", resp.Status)
	}
	if n := len(m.Requests()); n != 0 {
		t.Errorf("malformed request recorded: %d requests", n)
	}
}

func TestModelListsModels(t *testing.T) {
	m := opencodetest.NewModel()
	defer m.Close()
	resp, err := http.Get(m.URL + "/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	if len(list.Data) != 1 || list.Data[0].ID != "mock-model" {
		t.Errorf("models = %+v", list)
	}
}

func TestModelCloseTwice(t *testing.T) {
	m := opencodetest.NewModel()
	m.Close()
	m.Close()
	if _, err := http.Get(m.URL + "/models"); err == nil {
		t.Error("model still answers after Close")
	}
}

func ExampleModel() {
	m := opencodetest.NewModel()
	defer m.Close()
	m.Say("hello")

	body := `{"model":"mock-model","stream":false,"tools":[{"type":"function","function":{"name":"bash"}}],` +
		`"messages":[{"role":"user","content":"hi"}]}`
	resp, err := http.Post(m.URL+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var answer struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(b, &answer); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(answer.Choices[0].Message.Content)
	fmt.Println(m.Requests()[0].Messages[0].Content)
	// Output:
	// hello
	// hi
}

func TestModelSayAndCallTool(t *testing.T) {
	m := opencodetest.NewModel()
	defer m.Close()
	id, err := m.SayAndCallTool("Let me check.", "bash", map[string]string{"command": "ls"})
	if err != nil {
		t.Fatal(err)
	}
	s := stream(t, m, chatBody(true, agentTools, msg("system", agentSystem), msg("user", "go")))
	if s.text != "Let me check." || s.callID != id || s.toolName != "bash" || s.arguments != `{"command":"ls"}` || s.finishReason != "tool_calls" {
		t.Errorf("streamed %+v", s)
	}
	if _, err := m.SayAndCallTool("x", "bash", "{bad"); err == nil || m.Pending() != 0 {
		t.Errorf("bad arguments: err %v, %d turns queued", err, m.Pending())
	}
}

// An image part of a request is recorded by its URL.
func TestModelRecordsImages(t *testing.T) {
	m := opencodetest.NewModel()
	defer m.Close()
	const png = "data:image/png;base64,iVBORw0KGgo="
	user := map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "text", "text": "look"},
		map[string]any{"type": "image_url", "image_url": map[string]any{"url": png}},
	}}
	stream(t, m, chatBody(true, agentTools, msg("system", agentSystem), user))
	reqs := m.Requests()
	if len(reqs) != 1 || len(reqs[0].Messages) != 2 {
		t.Fatalf("requests %+v", reqs)
	}
	if got := reqs[0].Messages[1]; got.Content != "look" || len(got.Images) != 1 || got.Images[0] != png {
		t.Errorf("user message: content %q, images %q", got.Content, got.Images)
	}
	if got := reqs[0].Messages[0].Images; got != nil {
		t.Errorf("a string content has images %q", got)
	}
}

func TestModelWaitRequest(t *testing.T) {
	m := opencodetest.NewModel()
	defer m.Close()
	got := make(chan opencodetest.ChatRequest, 1)
	go func() {
		req, err := m.WaitRequest(context.Background(), func(r opencodetest.ChatRequest) bool {
			return len(r.Messages) > 1 && r.Messages[1].Content == "second"
		})
		if err != nil {
			t.Error(err)
		}
		got <- req
	}()
	stream(t, m, chatBody(true, agentTools, msg("system", agentSystem), msg("user", "first")))
	stream(t, m, chatBody(true, agentTools, msg("system", agentSystem), msg("user", "second")))
	if req := <-got; req.Messages[1].Content != "second" {
		t.Errorf("WaitRequest = %+v", req)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.WaitRequest(ctx, func(opencodetest.ChatRequest) bool { return false }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}
