package opencode_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/opencode"
)

// With live status on, the recorded stream yields its tool steps, step
// ends and session statuses (not their sync mirrors), typed; the text
// and step-start parts are skipped without a warning.
func TestEventReaderLiveSample(t *testing.T) {
	logs := newLogBuffer()
	er := opencode.NewEventReader(bytes.NewReader(readSample(t)), 0, logs.logger())
	er.SetLiveStatus(true)
	var steps []opencode.ToolStep
	var ends []opencode.StepFinished
	statuses := map[string]int{}
	requests := 0
	for _, ev := range readAll(t, er) {
		switch {
		case ev.ToolStep != nil:
			steps = append(steps, *ev.ToolStep)
		case ev.StepFinished != nil:
			ends = append(ends, *ev.StepFinished)
		case ev.Status != nil:
			statuses[ev.Status.Type]++
		case ev.QuestionAsked != nil || ev.PermissionAsked != nil:
			requests++
		}
		if (ev.ToolStep != nil || ev.StepFinished != nil || ev.Status != nil) && ev.SessionID() != "ses_dd4235358ffeK4sOj0rQeppn49" {
			t.Errorf("%s: SessionID %q", ev.Type, ev.SessionID())
		}
	}
	if len(steps) != 16 || len(ends) != 7 || statuses["busy"] != 19 || statuses["idle"] != 6 || requests != 5 {
		t.Errorf("%d tool steps, %d step ends, statuses %v, %d requests; want 16, 7, 19 busy and 6 idle, 5",
			len(steps), len(ends), statuses, requests)
	}
	if s := logs.String(); s != "" {
		t.Errorf("warnings:\n%s", s)
	}

	// The bash call of the recording, from pending to running.
	var bash []opencode.ToolStep
	for _, s := range steps {
		if s.Tool == "bash" {
			bash = append(bash, s)
		}
	}
	if len(bash) < 2 {
		t.Fatalf("bash steps: %+v", bash)
	}
	pending := opencode.ToolStep{SessionID: "ses_dd4235358ffeK4sOj0rQeppn49", MessageID: "msg_22bdd065a001n1bIg65ebh01k4",
		CallID: "call_1796032235419", Tool: "bash", Status: "pending"}
	if bash[0] != pending {
		t.Errorf("first bash step = %+v, want %+v", bash[0], pending)
	}
	running := pending
	running.Status, running.Argument, running.Started = "running", "echo hello-from-bash > out.txt", 1796032235464
	if bash[1] != running {
		t.Errorf("second bash step = %+v, want %+v", bash[1], running)
	}

	// The question's call, answered: its title and times.
	var done *opencode.ToolStep
	for i, s := range steps {
		if s.Tool == "question" && s.Status == "completed" {
			done = &steps[i]
			break
		}
	}
	if done == nil || done.Title != "Asked 1 question" || done.Started != 1796032220763 || done.Ended != 1796032229520 {
		t.Errorf("answered question step = %+v", done)
	}

	want := opencode.StepFinished{SessionID: "ses_dd4235358ffeK4sOj0rQeppn49", MessageID: "msg_22bdcb76d001zw1SiWuCTjmSd2",
		Reason: "tool-calls", Tokens: opencode.Tokens{Input: 10, Output: 5}}
	if ends[0] != want || ends[0].Tokens.Total() != 15 {
		t.Errorf("first step end = %+v, want %+v", ends[0], want)
	}
}

// Off, which is the default, none of it is returned.
func TestEventReaderLiveOff(t *testing.T) {
	er := opencode.NewEventReader(bytes.NewReader(readSample(t)), 0, newLogBuffer().logger())
	for _, ev := range readAll(t, er) {
		if ev.ToolStep != nil || ev.StepFinished != nil || ev.Status != nil || ev.Type == opencode.TypeMessagePartUpdated {
			t.Errorf("live status off: %s returned", ev.Type)
		}
	}
	er2 := opencode.NewEventReader2(strings.NewReader(envelope(opencode.TypeToolCalled, `{"sessionID":"ses_1","callID":"c"}`)+
		envelope(opencode.TypeSessionStatus, `{"sessionID":"ses_1","status":{"type":"busy"}}`)), 0, newLogBuffer().logger())
	if evs := readAll(t, er2); len(evs) != 0 {
		t.Errorf("OpenCode 2, live status off: %+v", evs)
	}
}

// A retry status says which attempt, why and when; a tool part with no
// call ID is skipped with a warning.
func TestEventReaderLiveRetry(t *testing.T) {
	logs := newLogBuffer()
	in := record(`{"directory":"/d","payload":{"type":"session.status","properties":{"sessionID":"ses_1","status":{"type":"retry","attempt":2,"message":"rate limited","next":1796032229806}}}}`) +
		record(`{"directory":"/d","payload":{"type":"message.part.updated","properties":{"part":{"type":"tool","sessionID":"ses_1","tool":"bash"}}}}`) +
		record(`{"directory":"/d","payload":{"type":"message.part.updated","properties":{"part":{"type":"text","sessionID":"ses_1","text":"hi"}}}}`)
	er := opencode.NewEventReader(strings.NewReader(in), 0, logs.logger())
	er.SetLiveStatus(true)
	evs := readAll(t, er)
	want := opencode.SessionStatus{SessionID: "ses_1", Type: "retry", Attempt: 2, Message: "rate limited", Next: 1796032229806}
	if len(evs) != 1 || evs[0].Status == nil || *evs[0].Status != want || evs[0].Directory != "/d" {
		t.Fatalf("events %+v, want one retry status", evs)
	}
	if l := logs.lines("lacks a required field"); len(l) != 1 || !strings.Contains(l[0], "callID") {
		t.Errorf("warnings: %q", logs.String())
	}
}

// OpenCode 2's tool and step events, shaped as
// packages/schema/src/session-event.ts defines them.
func TestEventReader2Live(t *testing.T) {
	in := envelope(opencode.TypeToolInputStarted, `{"sessionID":"ses_1","assistantMessageID":"msg_1","callID":"call_1","name":"bash"}`) +
		envelope("session.tool.input.delta", `{"sessionID":"ses_1","assistantMessageID":"msg_1","callID":"call_1","delta":"{\"co"}`) +
		envelope(opencode.TypeToolCalled, `{"sessionID":"ses_1","assistantMessageID":"msg_1","callID":"call_1","input":{"command":"go test ./...","description":"Run"},"executed":true}`) +
		envelope(opencode.TypeToolSucceeded, `{"sessionID":"ses_1","assistantMessageID":"msg_1","callID":"call_1","content":[{"type":"text","text":"ok"}],"executed":true}`) +
		envelope(opencode.TypeToolFailed, `{"sessionID":"ses_1","assistantMessageID":"msg_1","callID":"call_2","error":{"type":"tool","message":"no"},"executed":true}`) +
		envelope(opencode.TypeStepEnded, `{"sessionID":"ses_1","assistantMessageID":"msg_1","finish":"tool-calls","cost":0.0123,"tokens":{"input":1200,"output":80,"reasoning":10,"cache":{"read":500,"write":0}}}`) +
		envelope(opencode.TypeSessionStatus, `{"sessionID":"ses_1","status":{"type":"idle"}}`)
	er := opencode.NewEventReader2(strings.NewReader(in), 0, newLogBuffer().logger())
	er.SetLiveStatus(true)
	evs := readAll(t, er)
	step := func(call, tool, status, arg string) *opencode.ToolStep {
		return &opencode.ToolStep{SessionID: "ses_1", MessageID: "msg_1", CallID: call, Tool: tool, Status: status, Argument: arg}
	}
	want := []opencode.Event{
		{Type: opencode.TypeToolInputStarted, ToolStep: step("call_1", "bash", "pending", "")},
		{Type: opencode.TypeToolCalled, ToolStep: step("call_1", "", "running", "go test ./...")},
		{Type: opencode.TypeToolSucceeded, ToolStep: step("call_1", "", "completed", "")},
		{Type: opencode.TypeToolFailed, ToolStep: step("call_2", "", "error", "")},
		{Type: opencode.TypeStepEnded, StepFinished: &opencode.StepFinished{SessionID: "ses_1", MessageID: "msg_1", Reason: "tool-calls", Cost: 0.0123,
			Tokens: opencode.Tokens{Input: 1200, Output: 80, Reasoning: 10, CacheRead: 500}}},
		{Type: opencode.TypeSessionStatus, Status: &opencode.SessionStatus{SessionID: "ses_1", Type: "idle"}},
	}
	if len(evs) != len(want) {
		t.Fatalf("%d events, want %d: %+v", len(evs), len(want), evs)
	}
	for i := range want {
		want[i].ID, want[i].Directory, want[i].Generation, want[i].Surface = "evt_1", "/d", 2, evs[i].Surface
		if !reflect.DeepEqual(evs[i], want[i]) {
			t.Errorf("event %d = %+v, want %+v", i, evs[i], want[i])
		}
	}
}

// Every event of Contract2Phone is decoded with live status on, and
// skipped with it off.
func TestEventReader2LiveContract(t *testing.T) {
	for _, e := range opencode.Contract2Phone() {
		if e.Kind != opencode.ContractEvent {
			continue
		}
		for _, on := range []bool{true, false} {
			logs := newLogBuffer()
			er := opencode.NewEventReader2(strings.NewReader(envelope(e.Name, e.Example)), 0, logs.logger())
			er.SetLiveStatus(on)
			evs := readAll(t, er)
			switch {
			case !on && len(evs) != 0:
				t.Errorf("%s, live off: %+v", e.Name, evs)
			case on && (len(evs) != 1 || evs[0].ToolStep == nil && evs[0].StepFinished == nil || evs[0].SessionID() != "ses_1"):
				t.Errorf("%s, live on: %+v", e.Name, evs)
			}
			if s := logs.String(); s != "" {
				t.Errorf("%s: warnings %s", e.Name, s)
			}
		}
	}
}
