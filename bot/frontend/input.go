package frontend

import (
	"strconv"
	"time"

	"github.com/hermes-bot/hermes-bot/pending"
)

// Action is what a request's button asks for.
type Action int

const (
	// Pick answers a question with one option.
	Pick Action = iota + 1
	// Toggle selects or unselects an option of a multiple-choice question.
	Toggle
	// Submit answers a multiple-choice question with the options selected.
	Submit
	// Type asks for a typed answer to a question.
	Type
	// AllowOnce, AllowAlways and Reject decide a permission request.
	AllowOnce
	AllowAlways
	Reject
	// RejectWithReason asks for the reason of a reject.
	RejectWithReason
	// Skip leaves an optional field of a form unanswered.
	Skip
	// Cancel cancels a form that is a link to open; Submit on it says
	// it is done.
	Cancel
	// Quick answers a question that takes a typed answer with a stock
	// reply, Press.Text, as if it were typed.
	Quick
)

var actionNames = [...]string{Pick: "pick", Toggle: "toggle", Submit: "submit", Type: "type",
	AllowOnce: "allow once", AllowAlways: "allow always", Reject: "reject", RejectWithReason: "reject with reason",
	Skip: "skip", Cancel: "cancel", Quick: "quick reply"}

func (a Action) String() string {
	if a > 0 && int(a) < len(actionNames) {
		return actionNames[a]
	}
	return "action " + strconv.Itoa(int(a))
}

// IsPermission reports whether a decides a permission request.
func (a Action) IsPermission() bool { return a >= AllowOnce && a <= RejectWithReason }

// Press is a person pressing a request's button, as the front-end read it
// and checked it: from its chat, by someone allowed to answer.
type Press struct {
	// Key is the request the button is for: a question's UID or a
	// permission group's key.
	Key    string
	Action Action
	// Question and Option are the indices the button names, for a
	// question's buttons.
	Question, Option int
	User             User
	// Frontend names the front-end pressed in; From is the message
	// pressed, "" when the chat did not say (a message too old).
	Frontend string
	From     pending.Place
	// FromCarries says the message pressed has buttons of Key, so it is a
	// message of that request (perhaps a copy the store never knew).
	FromCarries bool
	// Text is the stock reply of a Quick press, which the front-end
	// looked up: the button carries an index, not the text.
	Text string
	// Data is the button's raw data, for logs.
	Data string
	// At is when the press reached hermes-bot, for the answer latency.
	At time.Time
	// Ack answers the press with a short text ("" shows nothing). It is
	// called exactly once.
	Ack func(text string)
}

// Input is text a person typed for a request, as the front-end collected
// it (Frontend.Collect) and checked it: by someone allowed to answer.
type Input struct {
	// Key is the request: a question's UID, or a permission's.
	Key string
	// Field is the question the text answers; Reason says it is the
	// reason of a reject instead.
	Field  int
	Reason bool
	Text   string
	User   User
	// Frontend names the front-end it was typed in.
	Frontend string
	// Received is when it reached hermes-bot, for the answer latency.
	Received time.Time
	// Done, when set, is called once HandleInput is through: accepted is
	// true when the text was kept (the form moved on) or opencode took
	// the answer; otherwise the person was told why, or the request no
	// longer waited for it.
	Done func(accepted bool)
}
