package telegram

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
)

// action is the first field of callback data: what a button does.
type action string

// The actions a question button can carry.
const (
	// actOption answers question qi with option oi.
	actOption action = "qopt"
	// actCustom asks for a typed answer to question qi.
	actCustom action = "qcustom"
	// actToggle selects or unselects option oi of multi-select question qi.
	actToggle action = "qtog"
	// actSubmit answers multi-select question qi with the selected options;
	// on a form that is a link to open, it says it is done.
	actSubmit action = "qsub"
	// actSkip leaves optional field qi of a form unanswered.
	actSkip action = "qskip"
	// actCancel cancels a form that is a link to open (qi 0).
	actCancel action = "qcancel"
	// actQuick answers question qi with stock reply oi (Config.QuickReplies).
	actQuick action = "qrep"
)

// The actions a permission button can carry. Their data is just
// "<action>:<uid>", the uid being that of the request whose message it is
// (for requests sharing a message, the first one's).
const (
	// actAllowOnce replies "once".
	actAllowOnce action = "ponce"
	// actAllowAlways replies "always".
	actAllowAlways action = "palways"
	// actReject replies "reject".
	actReject action = "preject"
	// actRejectReason asks for a reason, then replies "reject" with it.
	actRejectReason action = "preason"
)

// actResume, on a button of /autoapprove's reply, resumes auto-approval
// where it is paused. Its data is "<action>:<key>", the key being the
// pause's (pauseKey): a directory does not fit 64 bytes.
const actResume action = "aresume"

// pauseKeyLen is the length of a pause's key, in lower-case hex digits.
const pauseKeyLen = 12

const (
	// maxCallbackData is Telegram's limit, in bytes.
	maxCallbackData = 64
	// maxUIDLen keeps the longest callback data ("qcustom:" or "qopt:" with
	// two three-digit indexes) well under 64 bytes; pending makes UIDs of 8.
	maxUIDLen = 32
	// maxIndex bounds question and option indexes to three digits.
	maxIndex = 999
)

// errBadCallback is wrapped by every decode failure.
var errBadCallback = errors.New("bad callback data")

// callbackData is the decoded form of a button's callback data.
type callbackData struct {
	Action action
	// UID is the request's; for actResume, the pause's key.
	UID string
	// Question is meaningful for question actions only.
	Question int
	// Option is meaningful for actOption and actToggle only.
	Option int
}

// hasOption reports whether the action carries an option index.
func (a action) hasOption() bool { return a == actOption || a == actToggle || a == actQuick }

// isPermission reports whether the action answers a permission request;
// such data carries no indexes.
func (a action) isPermission() bool {
	switch a {
	case actAllowOnce, actAllowAlways, actReject, actRejectReason:
		return true
	}
	return false
}

// isResume reports whether a is a /autoapprove button's, which answers
// no request.
func (a action) isResume() bool { return a == actResume }

func (a action) valid() bool {
	switch a {
	case actOption, actCustom, actToggle, actSubmit, actSkip, actCancel, actResume, actQuick:
		return true
	}
	return a.isPermission()
}

// encode renders c as callback data. It fails rather than produce data
// that decode would refuse, so every button it makes can be pressed.
func (c callbackData) encode() (string, error) {
	if !c.Action.valid() {
		return "", fmt.Errorf("encode callback data: unknown action %q", c.Action)
	}
	if !validUID(c.UID) || (c.Action.isResume() && !validPauseKey(c.UID)) {
		return "", fmt.Errorf("encode callback data: invalid uid %q", c.UID)
	}
	if c.Action.isPermission() || c.Action.isResume() {
		return string(c.Action) + ":" + c.UID, nil // at most 8+32 bytes
	}
	if c.Question < 0 || c.Question > maxIndex {
		return "", fmt.Errorf("encode callback data: question index %d out of range", c.Question)
	}
	s := string(c.Action) + ":" + c.UID + ":" + strconv.Itoa(c.Question)
	if c.Action.hasOption() {
		if c.Option < 0 || c.Option > maxIndex {
			return "", fmt.Errorf("encode callback data: option index %d out of range", c.Option)
		}
		s += ":" + strconv.Itoa(c.Option)
	}
	if len(s) > maxCallbackData {
		return "", fmt.Errorf("encode callback data: %d bytes, over %d", len(s), maxCallbackData)
	}
	return s, nil
}

// decodeCallback parses callback data strictly: exactly the form encode
// makes, so encode(decode(s)) == s for every s it accepts. Anything else
// (old formats, tampering, other bots' data) is an error wrapping
// errBadCallback.
func decodeCallback(s string) (callbackData, error) {
	var c callbackData
	if s == "" || len(s) > maxCallbackData {
		return c, fmt.Errorf("%w: length %d", errBadCallback, len(s))
	}
	parts := strings.Split(s, ":")
	c.Action = action(parts[0])
	if !c.Action.valid() {
		return c, fmt.Errorf("%w: unknown action", errBadCallback)
	}
	want := 3
	switch {
	case c.Action.hasOption():
		want = 4
	case c.Action.isPermission(), c.Action.isResume():
		want = 2
	}
	if len(parts) != want {
		return c, fmt.Errorf("%w: %d fields for %s, want %d", errBadCallback, len(parts), c.Action, want)
	}
	c.UID = parts[1]
	if !validUID(c.UID) || (c.Action.isResume() && !validPauseKey(c.UID)) {
		return c, fmt.Errorf("%w: invalid uid", errBadCallback)
	}
	if c.Action.isPermission() || c.Action.isResume() {
		return c, nil
	}
	var err error
	if c.Question, err = parseIndex(parts[2]); err != nil {
		return c, fmt.Errorf("%w: question index: %v", errBadCallback, err)
	}
	if c.Action.hasOption() {
		if c.Option, err = parseIndex(parts[3]); err != nil {
			return c, fmt.Errorf("%w: option index: %v", errBadCallback, err)
		}
	}
	return c, nil
}

// parseIndex accepts 0–999 written without sign or leading zeros.
func parseIndex(s string) (int, error) {
	if s == "" || len(s) > 3 {
		return 0, fmt.Errorf("%q is not 1–3 digits", s)
	}
	if len(s) > 1 && s[0] == '0' {
		return 0, fmt.Errorf("%q has a leading zero", s)
	}
	n := 0
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("%q is not a number", s)
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, nil
}

// validUID mirrors pending's UID alphabet, with a tighter length limit so
// callback data stays short.
func validUID(uid string) bool {
	return uid != "" && len(uid) <= maxUIDLen && strings.Trim(uid, alnum) == ""
}

// alnum is the ASCII letters and digits.
const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// validPauseKey accepts what pauseKey makes: pauseKeyLen lower-case hex
// digits.
func validPauseKey(k string) bool {
	return len(k) == pauseKeyLen && strings.Trim(k, "0123456789abcdef") == ""
}

// ButtonData is the callback data of the button that asks for a on
// request key (a question's UID or a permission group's key), naming
// question and option where a asks for them: what the buttons this
// front-end renders carry, and what a press of one hands back.
func ButtonData(a frontend.Action, key string, question, option int) (string, error) {
	for act, fa := range actions {
		if fa == a {
			return callbackData{Action: act, UID: key, Question: question, Option: option}.encode()
		}
	}
	return "", fmt.Errorf("encode callback data: unknown action %d", a)
}
