package opencodetest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"time"
)

// DefaultModelReply is the text the model answers with when no turn is
// queued.
const DefaultModelReply = "ok"

// TitleReply is the text every title-generation request is answered with.
const TitleReply = "Test session"

// QuestionArg is one question of the question tool's arguments, in the
// shape opencode's question tool accepts. The tool has no custom
// parameter: opencode 1.18.33 accepts a typed answer to every question.
type QuestionArg struct {
	Question string      `json:"question"`
	Header   string      `json:"header"`
	Options  []OptionArg `json:"options"`
	Multiple bool        `json:"multiple,omitempty"`
}

// OptionArg is one choice of a QuestionArg.
type OptionArg struct {
	Label       string `json:"label"`
	Description string `json:"description"`
}

// ChatRequest is one POST /v1/chat/completions the model received, as
// recorded by Model.
type ChatRequest struct {
	Model  string
	Stream bool
	// Messages is the conversation opencode sent, in order.
	Messages []ChatMessage
	// Tools holds the names of the tools offered; empty when none were.
	Tools []string
	// Title is true when the request was taken for title generation and
	// answered with TitleReply without consuming a turn.
	Title bool
}

// ChatMessage is one message of a ChatRequest.
type ChatMessage struct {
	Role string
	// Content is the text of the message: the string content, or the
	// text parts joined with newlines when content is an array of parts.
	Content string
	// RawContent is the content as received (a JSON string, array or null).
	RawContent json.RawMessage
	// Images holds the URLs of the content's image parts, in order: what
	// opencode handed the model as images (data: URLs for uploads).
	Images []string
	// ToolCallID is set on role "tool" messages: the call this result
	// answers.
	ToolCallID string
	// ToolCalls is set on assistant messages that called tools.
	ToolCalls []ChatToolCall
}

// ChatToolCall is one tool call of an assistant message.
type ChatToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// Model is a scripted OpenAI-compatible chat-completions server on a
// loopback port. A real opencode configured with URL as its provider's
// baseURL calls tools when the test says so: each AskQuestion, CallTool or
// Say queues one turn, and each chat request that is not a title request
// takes the next turn in order. With no turn queued the model says
// DefaultModelReply and stops.
//
// All methods are safe to call from several goroutines, also while
// opencode is talking to the model. Turns are consumed in the order the
// server receives requests, so a test that queues turns while a turn of
// opencode is in flight races with it: queue a turn before the prompt that
// should consume it.
type Model struct {
	// URL is the base URL of the OpenAI-compatible API, with the /v1 suffix
	// and no trailing slash, e.g. http://127.0.0.1:41234/v1.
	URL string

	srv *httptest.Server

	mu       sync.Mutex
	turns    []modelTurn
	nextCall int
	nextResp int
	requests []ChatRequest
	// changed is closed and replaced whenever a request is recorded, so
	// waiters can block without polling.
	changed chan struct{}
}

// modelTurn is one scripted answer: text, or the tool calls in calls.
type modelTurn struct {
	text  string
	calls []turnCall
}

// turnCall is one tool call of a turn.
type turnCall struct {
	tool, args, callID string
}

// NewModel starts a Model on 127.0.0.1. The caller should call Close when
// finished.
func NewModel() *Model {
	m := &Model{changed: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", m.handleChat)
	mux.HandleFunc("GET /v1/models", m.handleModels)
	m.srv = httptest.NewServer(mux)
	m.URL = m.srv.URL + "/v1"
	return m
}

// Close shuts the server down and blocks until all outstanding requests
// have completed. It may be called more than once.
func (m *Model) Close() { m.srv.Close() }

// AskQuestion queues a turn in which the model calls opencode's question
// tool with the given questions. It returns the tool call's ID.
func (m *Model) AskQuestion(questions ...QuestionArg) string {
	if questions == nil {
		questions = []QuestionArg{}
	}
	// Strings and bools always marshal: the error cannot happen.
	args, _ := json.Marshal(struct {
		Questions []QuestionArg `json:"questions"`
	}{questions})
	return m.queueTurn("", "question", string(args))[0]
}

// CallTool queues a turn in which the model calls the named tool once with
// args, marshalled as JSON (a json.RawMessage, []byte or string is sent as
// is). It returns the tool call's ID, or an error if args cannot be
// marshalled; nothing is queued then.
func (m *Model) CallTool(name string, args any) (string, error) {
	return m.SayAndCallTool("", name, args)
}

// toolArgs marshals a tool call's arguments as CallTool describes.
func toolArgs(name string, args any) (string, error) {
	var raw string
	switch a := args.(type) {
	case json.RawMessage:
		raw = string(a)
	case []byte:
		raw = string(a)
	case string:
		raw = a
	default:
		b, err := json.Marshal(args)
		if err != nil {
			return "", fmt.Errorf("call tool %s: marshal arguments: %w", name, err)
		}
		raw = string(b)
	}
	if !json.Valid([]byte(raw)) {
		return "", fmt.Errorf("call tool %s: arguments are not valid JSON", name)
	}
	return raw, nil
}

// CallTools queues one turn in which the model calls the named tool once
// for each of args, all in the same answer, so opencode runs them side by
// side. Each args is marshalled as CallTool does. It returns the calls'
// IDs, in order; nothing is queued on an error.
func (m *Model) CallTools(name string, args ...any) ([]string, error) {
	raws := make([]string, len(args))
	for i, a := range args {
		raw, err := toolArgs(name, a)
		if err != nil {
			return nil, err
		}
		raws[i] = raw
	}
	return m.queueTurn("", name, raws...), nil
}

// SayAndCallTool queues a turn in which the model writes text, then calls
// the named tool once with args (marshalled as CallTool does), in one
// answer. It returns the tool call's ID; nothing is queued on an error.
func (m *Model) SayAndCallTool(text, name string, args any) (string, error) {
	raw, err := toolArgs(name, args)
	if err != nil {
		return "", err
	}
	return m.queueTurn(text, name, raw)[0], nil
}

// Say queues a turn in which the model answers with text and stops.
func (m *Model) Say(text string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.turns = append(m.turns, modelTurn{text: text})
}

// Pending reports how many queued turns have not been consumed yet.
func (m *Model) Pending() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.turns)
}

// Requests returns a copy of every chat request received so far, in
// arrival order.
func (m *Model) Requests() []ChatRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]ChatRequest(nil), m.requests...)
}

// WaitToolResult blocks until a chat request carries the result of the
// tool call callID (a role "tool" message with that tool_call_id) and
// returns that message's content: what the model was told the tool
// returned. It returns ctx's error if ctx ends first.
func (m *Model) WaitToolResult(ctx context.Context, callID string) (string, error) {
	isResult := func(msg ChatMessage) bool { return msg.Role == "tool" && msg.ToolCallID == callID }
	req, err := m.waitRequest(ctx, "result of tool call "+callID, func(req ChatRequest) bool {
		return slices.ContainsFunc(req.Messages, isResult)
	})
	if err != nil {
		return "", err
	}
	return req.Messages[slices.IndexFunc(req.Messages, isResult)].Content, nil
}

// WaitRequest blocks until a chat request for which match is true has
// been received, and returns the first such. It returns ctx's error if
// ctx ends first.
func (m *Model) WaitRequest(ctx context.Context, match func(ChatRequest) bool) (ChatRequest, error) {
	return m.waitRequest(ctx, "a chat request", match)
}

func (m *Model) waitRequest(ctx context.Context, what string, match func(ChatRequest) bool) (ChatRequest, error) {
	for {
		m.mu.Lock()
		changed := m.changed
		for _, req := range m.requests {
			if match(req) {
				m.mu.Unlock()
				return req, nil
			}
		}
		m.mu.Unlock()
		select {
		case <-ctx.Done():
			return ChatRequest{}, fmt.Errorf("wait for %s: %w", what, ctx.Err())
		case <-changed:
		}
	}
}

// queueTurn queues one turn saying text, then calling the named tool once
// for each args.
func (m *Model) queueTurn(text, name string, args ...string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := modelTurn{text: text}
	ids := make([]string, len(args))
	for i, a := range args {
		m.nextCall++
		ids[i] = fmt.Sprintf("call_%d", m.nextCall)
		t.calls = append(t.calls, turnCall{tool: name, args: a, callID: ids[i]})
	}
	m.turns = append(m.turns, t)
	return ids
}

// wireChatRequest is the part of an OpenAI chat-completions request the
// model reads.
type wireChatRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func (m *Model) handleChat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	var wire wireChatRequest
	if err := json.Unmarshal(body, &wire); err != nil {
		http.Error(w, "decode chat request: "+err.Error(), http.StatusBadRequest)
		return
	}
	req := ChatRequest{Model: wire.Model, Stream: wire.Stream}
	for _, wm := range wire.Messages {
		msg := ChatMessage{Role: wm.Role, RawContent: wm.Content, ToolCallID: wm.ToolCallID}
		msg.Content, msg.Images = chatContent(wm.Content)
		for _, tc := range wm.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, ChatToolCall{
				ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments,
			})
		}
		req.Messages = append(req.Messages, msg)
	}
	for _, t := range wire.Tools {
		req.Tools = append(req.Tools, t.Function.Name)
	}
	req.Title = isTitleRequest(req)

	turn, respID := m.take(req)
	if wire.Stream {
		writeChatStream(w, respID, req.Model, turn)
		return
	}
	writeChatCompletion(w, respID, req.Model, turn)
}

// take records req and picks its answer: a title request never consumes a
// turn, so the scripted turns stay aligned with the agent's own requests.
func (m *Model) take(req ChatRequest) (modelTurn, string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests = append(m.requests, req)
	close(m.changed)
	m.changed = make(chan struct{})
	m.nextResp++
	respID := fmt.Sprintf("chatcmpl-%d", m.nextResp)
	switch {
	case req.Title:
		return modelTurn{text: TitleReply}, respID
	case len(m.turns) == 0:
		return modelTurn{text: DefaultModelReply}, respID
	}
	t := m.turns[0]
	m.turns = m.turns[1:]
	return t, respID
}

// isTitleRequest reports whether opencode asks for a session title.
// opencode 1.18.33 sends that request with no tools and a system prompt
// that starts "You are a title generator"; other tool-less requests
// (summaries, compaction) are rare in tests, and a scripted tool call
// could not be honoured without tools anyway.
func isTitleRequest(req ChatRequest) bool {
	if len(req.Tools) == 0 {
		return true
	}
	for _, msg := range req.Messages {
		if msg.Role == "system" && strings.Contains(strings.ToLower(msg.Content), "title generator") {
			return true
		}
	}
	return false
}

// chatContent flattens a message content, a string or an array of parts,
// into its text (the text parts joined with newlines) and the URLs of its
// image_url parts.
func chatContent(raw json.RawMessage) (text string, images []string) {
	if len(raw) == 0 || string(raw) == "null" || json.Unmarshal(raw, &text) == nil {
		return text, nil
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return string(raw), nil
	}
	var texts []string
	for _, p := range parts {
		switch p.Type {
		case "text":
			texts = append(texts, p.Text)
		case "image_url":
			images = append(images, p.ImageURL.URL)
		}
	}
	return strings.Join(texts, "\n"), images
}

type wireToolCall struct {
	Index    int    `json:"index"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

var fakeUsage = wireUsage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15}

func (t modelTurn) toolCalls() []wireToolCall {
	var out []wireToolCall
	for i, c := range t.calls {
		tc := wireToolCall{Index: i, ID: c.callID, Type: "function"}
		tc.Function.Name = c.tool
		tc.Function.Arguments = c.args
		out = append(out, tc)
	}
	return out
}

func (t modelTurn) finishReason() string {
	if len(t.calls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

// writeChatStream answers in the shape the AI SDK's openai-compatible provider
// reads: a role chunk, the content or tool call, a finish chunk with
// usage, then [DONE].
func writeChatStream(w http.ResponseWriter, id, model string, t modelTurn) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	created := time.Now().Unix()
	type delta struct {
		Role      string         `json:"role,omitempty"`
		Content   *string        `json:"content,omitempty"`
		ToolCalls []wireToolCall `json:"tool_calls,omitempty"`
	}
	type choice struct {
		Index        int     `json:"index"`
		Delta        delta   `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	}
	type chunk struct {
		ID      string     `json:"id"`
		Object  string     `json:"object"`
		Created int64      `json:"created"`
		Model   string     `json:"model"`
		Choices []choice   `json:"choices"`
		Usage   *wireUsage `json:"usage,omitempty"`
	}
	send := func(c chunk) {
		c.ID, c.Object, c.Created, c.Model = id, "chat.completion.chunk", created, model
		b, err := json.Marshal(c)
		if err != nil {
			return
		}
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	var first delta
	first.Role = "assistant"
	if len(t.calls) == 0 || t.text != "" {
		first.Content = &t.text
	}
	if len(t.calls) > 0 && t.text == "" {
		first.ToolCalls = t.toolCalls()
	}
	send(chunk{Choices: []choice{{Delta: first}}})
	if len(t.calls) > 0 && t.text != "" {
		// The text streams before the calls, as a model's would.
		send(chunk{Choices: []choice{{Delta: delta{ToolCalls: t.toolCalls()}}}})
	}
	finish := t.finishReason()
	send(chunk{
		Choices: []choice{{Delta: delta{}, FinishReason: &finish}},
		Usage:   &fakeUsage,
	})
	fmt.Fprint(w, "data: [DONE]\n\n")
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func writeChatCompletion(w http.ResponseWriter, id, model string, t modelTurn) {
	type message struct {
		Role      string         `json:"role"`
		Content   *string        `json:"content"`
		ToolCalls []wireToolCall `json:"tool_calls,omitempty"`
	}
	msg := message{Role: "assistant", ToolCalls: t.toolCalls()}
	if len(t.calls) == 0 || t.text != "" {
		msg.Content = &t.text
	}
	type choice struct {
		Index        int     `json:"index"`
		Message      message `json:"message"`
		FinishReason string  `json:"finish_reason"`
	}
	resp := struct {
		ID      string    `json:"id"`
		Object  string    `json:"object"`
		Created int64     `json:"created"`
		Model   string    `json:"model"`
		Choices []choice  `json:"choices"`
		Usage   wireUsage `json:"usage"`
	}{id, "chat.completion", time.Now().Unix(), model, []choice{{Message: msg, FinishReason: t.finishReason()}}, fakeUsage}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

func (m *Model) handleModels(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"mock-model","object":"model","created":0,"owned_by":"opencodetest"}]}`)
}
