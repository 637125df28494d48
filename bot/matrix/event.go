package matrix

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Kind says what an incoming Event is.
type Kind int

const (
	// KindText is a message: a typed answer when it is a reply (ReplyTo),
	// an edit when Replaces is set.
	KindText Kind = iota + 1
	// KindCommand is a message whose text starts with / or ! and a word.
	KindCommand
	// KindVote is a poll response, unstable or stable.
	KindVote
	// KindReaction is an m.annotation on Target with Key.
	KindReaction
)

var kindNames = [...]string{KindText: "text", KindCommand: "command", KindVote: "vote", KindReaction: "reaction"}

func (k Kind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Event is one room event the front-end may act on, decoded from the
// homeserver's JSON.
type Event struct {
	Kind   Kind
	ID     string // $event ID
	Room   string
	Sender string
	Time   time.Time // origin_server_ts

	// Text and HTML are a message's body and formatted body, with a
	// reply's quoted fallback taken out; for an edit, the new content.
	Text string
	HTML string
	// ReplyTo is the event a message replies to (m.in_reply_to); Thread
	// the root of the thread it was posted in (rel_type m.thread).
	ReplyTo string
	Thread  string
	// Replaces is the event an edit (rel_type m.replace) changes.
	Replaces string

	// Command is a command's name, lower case and without its / or !;
	// Args the rest of the line, trimmed.
	Command string
	Args    string

	// Poll is the poll start a vote answers; Answers the answer IDs chosen
	// (empty: the vote was withdrawn).
	Poll    string
	Answers []string

	// Target is the event a reaction annotates; Key its key as sent.
	Target string
	Key    string
}

// Event types read and sent.
const (
	typeMessage          = "m.room.message"
	typeReaction         = "m.reaction"
	typePollStart        = "org.matrix.msc3381.poll.start"
	typePollResponse     = "org.matrix.msc3381.poll.response"
	typePollEnd          = "org.matrix.msc3381.poll.end"
	typeStablePollResp   = "m.poll.response"
	relReplace           = "m.replace"
	relAnnotation        = "m.annotation"
	relReference         = "m.reference"
	relThread            = "m.thread"
	keyUnstableText      = "org.matrix.msc1767.text"
	formatHTML           = "org.matrix.custom.html"
	keyUnstablePollStart = typePollStart
	keyUnstablePollEnd   = typePollEnd
)

// ErrMalformed marks an event of a kind hermes-bot reads whose content
// does not have the shape the spec gives it.
var ErrMalformed = errors.New("malformed event")

type rawEvent struct {
	Type     string          `json:"type"`
	ID       string          `json:"event_id"`
	Sender   string          `json:"sender"`
	RoomID   string          `json:"room_id"`
	TS       int64           `json:"origin_server_ts"`
	StateKey *string         `json:"state_key"`
	Content  json.RawMessage `json:"content"`
}

type relatesTo struct {
	RelType   string `json:"rel_type"`
	EventID   string `json:"event_id"`
	Key       string `json:"key"`
	InReplyTo *struct {
		EventID string `json:"event_id"`
	} `json:"m.in_reply_to"`
	IsFallingBack bool `json:"is_falling_back"`
}

type messageContent struct {
	MsgType       string          `json:"msgtype"`
	Body          string          `json:"body"`
	Format        string          `json:"format"`
	FormattedBody string          `json:"formatted_body"`
	RelatesTo     *relatesTo      `json:"m.relates_to"`
	NewContent    *messageContent `json:"m.new_content"`
}

type responseContent struct {
	RelatesTo *relatesTo `json:"m.relates_to"`
	Unstable  *struct {
		Answers []string `json:"answers"`
	} `json:"org.matrix.msc3381.poll.response"`
	// Stable forms: MSC3381's m.selections, matrix-js-sdk's m.poll.response.
	Stable *struct {
		Answers []string `json:"answers"`
	} `json:"m.poll.response"`
	Selections []string `json:"m.selections"`
}

// Decode reads one event of room from its JSON, as a sync or /messages
// returns it. ok is false for an event hermes-bot does not read (state,
// redactions, notices, other types); err wraps ErrMalformed when an event
// of a kind it reads cannot be understood.
func Decode(room string, raw []byte) (ev Event, ok bool, err error) {
	var re rawEvent
	if err := json.Unmarshal(raw, &re); err != nil {
		return Event{}, false, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if re.StateKey != nil {
		return Event{}, false, nil
	}
	if re.RoomID != "" {
		room = re.RoomID
	}
	ev = Event{ID: re.ID, Room: room, Sender: re.Sender, Time: time.UnixMilli(re.TS)}
	bad := func(why string, a ...any) (Event, bool, error) {
		return Event{}, false, fmt.Errorf("%w: %s %s from %s: %s", ErrMalformed, re.Type, re.ID, re.Sender, fmt.Sprintf(why, a...))
	}
	if ev.ID == "" || ev.Sender == "" {
		return bad("no event_id or sender")
	}
	switch re.Type {
	case typeMessage:
		var c messageContent
		if err := json.Unmarshal(re.Content, &c); err != nil {
			return bad("%v", err)
		}
		if c.MsgType != "m.text" && c.MsgType != "m.emote" {
			return Event{}, false, nil // notices (other bots), media, or redacted (empty content)
		}
		decodeMessage(&ev, c)
		return ev, true, nil
	case typePollResponse, typeStablePollResp:
		var c responseContent
		if err := json.Unmarshal(re.Content, &c); err != nil {
			return bad("%v", err)
		}
		if c.RelatesTo == nil || c.RelatesTo.RelType != relReference || c.RelatesTo.EventID == "" {
			return bad("no m.reference to a poll")
		}
		ev.Kind, ev.Poll = KindVote, c.RelatesTo.EventID
		switch {
		case c.Unstable != nil:
			ev.Answers = c.Unstable.Answers
		case c.Stable != nil:
			ev.Answers = c.Stable.Answers
		case c.Selections != nil:
			ev.Answers = c.Selections
		default:
			return bad("no answers")
		}
		return ev, true, nil
	case typeReaction:
		var c struct {
			RelatesTo *relatesTo `json:"m.relates_to"`
		}
		if err := json.Unmarshal(re.Content, &c); err != nil {
			return bad("%v", err)
		}
		if c.RelatesTo == nil || c.RelatesTo.RelType != relAnnotation || c.RelatesTo.EventID == "" || c.RelatesTo.Key == "" {
			return bad("no m.annotation with a key")
		}
		ev.Kind, ev.Target, ev.Key = KindReaction, c.RelatesTo.EventID, c.RelatesTo.Key
		return ev, true, nil
	}
	return Event{}, false, nil
}

func decodeMessage(ev *Event, c messageContent) {
	ev.Kind = KindText
	if r := c.RelatesTo; r != nil {
		if r.RelType == relReplace && r.EventID != "" && c.NewContent != nil {
			ev.Replaces = r.EventID
			c = *c.NewContent
		}
		if r.RelType == relThread {
			ev.Thread = r.EventID
		}
		// In a thread, m.in_reply_to with is_falling_back is only for
		// clients without threads, not a reply the person chose.
		if r.InReplyTo != nil && !(r.RelType == relThread && r.IsFallingBack) {
			ev.ReplyTo = r.InReplyTo.EventID
		}
	}
	ev.Text = c.Body
	if c.Format == formatHTML {
		ev.HTML = c.FormattedBody
	}
	if ev.ReplyTo != "" {
		ev.Text = StripReplyFallback(ev.Text)
		ev.HTML = StripHTMLReplyFallback(ev.HTML)
	}
	if name, args, ok := ParseCommand(ev.Text); ok && ev.Replaces == "" {
		ev.Kind, ev.Command, ev.Args = KindCommand, name, args
	}
}

// StripReplyFallback takes out the quote that older clients put at the
// head of a reply's body: the leading lines starting with ">" and the
// blank line after them.
func StripReplyFallback(body string) string {
	if !strings.HasPrefix(body, ">") {
		return body
	}
	lines := strings.Split(body, "\n")
	i := 0
	for i < len(lines) && strings.HasPrefix(lines[i], ">") {
		i++
	}
	if i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	return strings.Join(lines[i:], "\n")
}

var mxReply = regexp.MustCompile(`(?is)^\s*<mx-reply>.*?</mx-reply>`)

// StripHTMLReplyFallback takes out the <mx-reply> block at the head of a
// reply's formatted body.
func StripHTMLReplyFallback(html string) string {
	return mxReply.ReplaceAllString(html, "")
}

var commandRE = regexp.MustCompile(`^[/!]([A-Za-z][A-Za-z0-9_]*)(?:\s+([\s\S]*))?$`)

// ParseCommand reads "/name args" or "!name args"; Element keeps unknown
// slash commands to itself unless typed "//name", so those and ! work too.
func ParseCommand(text string) (name, args string, ok bool) {
	text = strings.TrimSpace(text)
	if strings.HasPrefix(text, "//") {
		text = text[1:]
	}
	m := commandRE.FindStringSubmatch(text)
	if m == nil {
		return "", "", false
	}
	return strings.ToLower(m[1]), strings.TrimSpace(m[2]), true
}
