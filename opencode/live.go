package opencode

import "encoding/json"

// The event types of a turn's progress, read only by a reader with live
// status on (WithLiveStatus, EventReader.LiveStatus): they are most of a
// busy stream, which a bridge of requests alone has no use for.
const (
	// TypeMessagePartUpdated is 1.x's part of a message: a tool part
	// sets Event.ToolStep, a step-finish part Event.StepFinished; every
	// other part (text, reasoning, …) is skipped.
	TypeMessagePartUpdated = "message.part.updated"
	// TypeSessionStatus is a session going busy, idle or retrying:
	// Event.Status. 1.x and OpenCode 2 name and shape it alike.
	TypeSessionStatus = "session.status"

	// OpenCode 2's tool and step events, which set Event.ToolStep and
	// Event.StepFinished (packages/schema/src/session-event.ts@0313097).
	TypeToolInputStarted = "session.tool.input.started"
	TypeToolCalled       = "session.tool.called"
	TypeToolSucceeded    = "session.tool.success"
	TypeToolFailed       = "session.tool.failed"
	TypeStepEnded        = "session.step.ended"
)

// ToolStep is one tool call's state as the agent runs it: the current
// step of a turn.
type ToolStep struct {
	SessionID string
	MessageID string
	CallID    string
	// Tool is the tool's name ("bash", "read", …). OpenCode 2 names it
	// only in session.tool.input.started: later events of the call leave
	// it empty, and a caller matches them by CallID.
	Tool string
	// Status is pending, running, completed or error. OpenCode 2's
	// events map to these: input started is pending, called running,
	// success completed, failed error.
	Status string
	// Argument is the call's short argument on one line: a command's
	// start, a path's end, a pattern; "" before the input is known.
	Argument string
	// Title is opencode 1.x's summary of a running or finished call
	// ("Asked 1 question"), when it gives one.
	Title string
	// Started and Ended are Unix milliseconds, 0 when not told.
	Started, Ended int64
}

// Tokens are the tokens a step used.
type Tokens struct {
	Input, Output, Reasoning, CacheRead, CacheWrite int64
}

// Total is the sum of all the tokens.
func (t Tokens) Total() int64 {
	return t.Input + t.Output + t.Reasoning + t.CacheRead + t.CacheWrite
}

// StepFinished is the end of one step of a turn (one model request and
// its tool calls), with what it cost; a turn's total is the sum of its
// steps.
type StepFinished struct {
	SessionID string
	MessageID string
	// Reason is why the model stopped: "tool-calls", "stop", …
	Reason string
	Tokens Tokens
	// Cost is in US dollars; 0 when the provider has no prices.
	Cost float64
}

// SessionStatus is session.status: Type is idle, busy or retry; a retry
// says which Attempt, why (Message) and when the next is due (Next, Unix
// milliseconds).
type SessionStatus struct {
	SessionID string
	Type      string
	Attempt   int
	Message   string
	Next      int64
}

// wireTokens is a step's tokens as both generations send them.
type wireTokens struct {
	Input     float64 `json:"input"`
	Output    float64 `json:"output"`
	Reasoning float64 `json:"reasoning"`
	Cache     struct {
		Read  float64 `json:"read"`
		Write float64 `json:"write"`
	} `json:"cache"`
}

func (w wireTokens) tokens() Tokens {
	return Tokens{Input: int64(w.Input), Output: int64(w.Output), Reasoning: int64(w.Reasoning),
		CacheRead: int64(w.Cache.Read), CacheWrite: int64(w.Cache.Write)}
}

// partDecoder decodes the properties of 1.x's message.part.updated into
// ev's ToolStep or StepFinished, and leaves both nil for any other part.
// Only the keys below are read: a part's text and a tool's output, the
// bulk of the record, are skipped.
type partDecoder struct{ ev *Event }

func (d *partDecoder) UnmarshalJSON(b []byte) error {
	var w struct {
		Part struct {
			Type      string `json:"type"`
			SessionID string `json:"sessionID"`
			MessageID string `json:"messageID"`
			CallID    string `json:"callID"`
			Tool      string `json:"tool"`
			State     struct {
				Status string    `json:"status"`
				Title  string    `json:"title"`
				Input  toolInput `json:"input"`
				Time   struct {
					Start float64 `json:"start"`
					End   float64 `json:"end"`
				} `json:"time"`
			} `json:"state"`
			Reason string     `json:"reason"`
			Tokens wireTokens `json:"tokens"`
			Cost   float64    `json:"cost"`
		} `json:"part"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	p := w.Part
	switch p.Type {
	case "tool":
		d.ev.ToolStep = &ToolStep{
			SessionID: p.SessionID, MessageID: p.MessageID, CallID: p.CallID, Tool: p.Tool,
			Status: p.State.Status, Argument: p.State.Input.argument(), Title: p.State.Title,
			Started: int64(p.State.Time.Start), Ended: int64(p.State.Time.End),
		}
	case "step-finish":
		d.ev.StepFinished = &StepFinished{
			SessionID: p.SessionID, MessageID: p.MessageID, Reason: p.Reason,
			Tokens: p.Tokens.tokens(), Cost: p.Cost,
		}
	}
	return nil
}

// toolDecoder2 decodes one of OpenCode 2's session.tool.* events into
// ev.ToolStep with status.
type toolDecoder2 struct {
	ev     *Event
	status string
}

func (d *toolDecoder2) UnmarshalJSON(b []byte) error {
	var w struct {
		SessionID          string    `json:"sessionID"`
		AssistantMessageID string    `json:"assistantMessageID"`
		CallID             string    `json:"callID"`
		Name               string    `json:"name"`
		Input              toolInput `json:"input"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	d.ev.ToolStep = &ToolStep{
		SessionID: w.SessionID, MessageID: w.AssistantMessageID, CallID: w.CallID, Tool: w.Name,
		Status: d.status, Argument: w.Input.argument(),
	}
	return nil
}

// stepDecoder2 decodes OpenCode 2's session.step.ended into
// ev.StepFinished.
type stepDecoder2 struct{ ev *Event }

func (d *stepDecoder2) UnmarshalJSON(b []byte) error {
	var w struct {
		SessionID          string     `json:"sessionID"`
		AssistantMessageID string     `json:"assistantMessageID"`
		Finish             string     `json:"finish"`
		Cost               float64    `json:"cost"`
		Tokens             wireTokens `json:"tokens"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	d.ev.StepFinished = &StepFinished{
		SessionID: w.SessionID, MessageID: w.AssistantMessageID, Reason: w.Finish,
		Tokens: w.Tokens.tokens(), Cost: w.Cost,
	}
	return nil
}

// statusDecoder decodes session.status, {sessionID, status: {type, …}},
// into ev.Status.
type statusDecoder struct{ ev *Event }

func (d *statusDecoder) UnmarshalJSON(b []byte) error {
	var w struct {
		SessionID string `json:"sessionID"`
		Status    struct {
			Type    string  `json:"type"`
			Attempt int     `json:"attempt"`
			Message string  `json:"message"`
			Next    float64 `json:"next"`
		} `json:"status"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	d.ev.Status = &SessionStatus{SessionID: w.SessionID, Type: w.Status.Type, Attempt: w.Status.Attempt,
		Message: w.Status.Message, Next: int64(w.Status.Next)}
	return nil
}

// liveSession is the session of an event of liveKinds.
func liveSession(ev *Event) string {
	switch {
	case ev.ToolStep != nil:
		return ev.ToolStep.SessionID
	case ev.StepFinished != nil:
		return ev.StepFinished.SessionID
	case ev.Status != nil:
		return ev.Status.SessionID
	}
	return ""
}

// liveMissing names what an event of liveKinds lacks; a part that is
// neither a tool nor a step's end has nothing, and is skipped quietly by
// liveEmpty before this is asked.
func liveMissing(ev *Event) string {
	m := required("sessionID", liveSession(ev))
	if m == "" && ev.ToolStep != nil {
		m = required("callID", ev.ToolStep.CallID)
	}
	if m == "" && ev.Status != nil {
		m = required("status.type", ev.Status.Type)
	}
	return m
}

// liveEmpty reports an event of liveKinds that carries none of its
// fields: a message part of another kind.
func liveEmpty(ev *Event) bool {
	return ev.ToolStep == nil && ev.StepFinished == nil && ev.Status == nil
}

// liveKind is an entry of eventKinds for a type of a turn's progress.
func liveKind(name string, only2 bool, props func(ev *Event) any) eventKind {
	return eventKind{name: name, only2: only2, live: true, props: props,
		session: liveSession, missing: liveMissing, empty: liveEmpty}
}

// liveKinds are the event types of a turn's progress.
var liveKinds = []eventKind{
	liveKind(TypeMessagePartUpdated, false, func(ev *Event) any { return &partDecoder{ev} }),
	liveKind(TypeSessionStatus, false, func(ev *Event) any { return &statusDecoder{ev} }),
	liveKind(TypeToolInputStarted, true, func(ev *Event) any { return &toolDecoder2{ev, "pending"} }),
	liveKind(TypeToolCalled, true, func(ev *Event) any { return &toolDecoder2{ev, "running"} }),
	liveKind(TypeToolSucceeded, true, func(ev *Event) any { return &toolDecoder2{ev, "completed"} }),
	liveKind(TypeToolFailed, true, func(ev *Event) any { return &toolDecoder2{ev, "error"} }),
	liveKind(TypeStepEnded, true, func(ev *Event) any { return &stepDecoder2{ev} }),
}
