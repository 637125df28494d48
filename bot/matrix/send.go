package matrix

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"
)

// Every post names its transaction ID: the homeserver answers a repeat of
// one (same access token) with the event it made the first time, so a post
// retried after a crash is that event, not a second one. Homeservers keep
// transaction IDs for a while only (Dendrite 30 to 60 minutes, in memory),
// and per token: the kept session gives a restart the same one. Sends
// answered 429 or 5xx are retried here, with the same ID.

// TxnID derives a transaction ID from what a post is (say the request's
// key and "poll"): the same parts give the same ID.
func TxnID(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return "hb" + hex.EncodeToString(h[:16])
}

// Message is a text message.
type Message struct {
	// Text is the plain body; required.
	Text string
	// HTML is the formatted body (org.matrix.custom.html); optional.
	HTML string
	// Notice sends m.notice, which bots use for what needs no answer.
	Notice bool
	// ReplyTo makes it a reply to that event.
	ReplyTo string
}

// PollAnswer is one choice of a poll.
type PollAnswer struct {
	ID   string // what votes name; unique within the poll
	Text string
}

// Poll is a poll to start.
type Poll struct {
	Question string
	Answers  []PollAnswer
	// MaxSelections is how many answers one vote may choose; 0 means 1.
	MaxSelections int
	// Disclosed shows the results while the poll is open.
	Disclosed bool
	// ReplyTo makes it a reply to that event (Element shows the quote).
	ReplyTo string
}

// Poll kinds of MSC3381.
const (
	pollDisclosed   = "org.matrix.msc3381.poll.disclosed"
	pollUndisclosed = "org.matrix.msc3381.poll.undisclosed"
)

var errNoTxnID = errors.New("no transaction ID")

// sendRetries is how many times a send is tried again (after 1, 2, 4 s,
// or as a 429 says), before its caller hears of the failure.
const sendRetries = 3

// Send posts m in the room and returns its event ID.
func (c *Client) Send(ctx context.Context, txnID string, m Message) (string, error) {
	if m.Text == "" {
		return "", errors.New("matrix send: empty message")
	}
	content := messageJSON(m)
	if m.ReplyTo != "" {
		content["m.relates_to"] = map[string]any{"m.in_reply_to": map[string]string{"event_id": m.ReplyTo}}
	}
	return c.send(ctx, txnID, typeMessage, content)
}

// Edit replaces the text of the bot's message eventID with m (its ReplyTo
// is not used: an edit cannot change what a message replies to).
func (c *Client) Edit(ctx context.Context, txnID, eventID string, m Message) (string, error) {
	if m.Text == "" || eventID == "" {
		return "", errors.New("matrix edit: empty message or no event to edit")
	}
	content := messageJSON(m)
	content["body"] = "* " + m.Text
	if m.HTML != "" {
		content["formatted_body"] = "* " + m.HTML
	}
	content["m.new_content"] = messageJSON(m)
	content["m.relates_to"] = map[string]string{"rel_type": relReplace, "event_id": eventID}
	return c.send(ctx, txnID, typeMessage, content)
}

// React puts the reaction key on eventID.
func (c *Client) React(ctx context.Context, txnID, eventID, key string) (string, error) {
	if eventID == "" || key == "" {
		return "", errors.New("matrix react: no event or key")
	}
	return c.send(ctx, txnID, typeReaction, map[string]any{
		"m.relates_to": map[string]string{"rel_type": relAnnotation, "event_id": eventID, "key": key},
	})
}

// StartPoll posts p as an unstable MSC3381 poll (what Element reads),
// with a plain-text fallback for clients without polls.
func (c *Client) StartPoll(ctx context.Context, txnID string, p Poll) (string, error) {
	if p.Question == "" || len(p.Answers) == 0 {
		return "", errors.New("matrix poll: no question or no answers")
	}
	maxSel := max(p.MaxSelections, 1)
	kind := pollUndisclosed
	if p.Disclosed {
		kind = pollDisclosed
	}
	seen := make(map[string]bool, len(p.Answers))
	answers := make([]map[string]string, 0, len(p.Answers))
	var fallback strings.Builder
	fallback.WriteString(p.Question)
	for i, a := range p.Answers {
		if a.ID == "" || seen[a.ID] {
			return "", fmt.Errorf("matrix poll: answer %d has an empty or repeated ID %q", i+1, a.ID)
		}
		seen[a.ID] = true
		answers = append(answers, map[string]string{"id": a.ID, keyUnstableText: a.Text})
		fmt.Fprintf(&fallback, "\n%d. %s", i+1, a.Text)
	}
	content := map[string]any{
		keyUnstablePollStart: map[string]any{
			"kind":           kind,
			"max_selections": min(maxSel, len(p.Answers)),
			"question":       map[string]string{keyUnstableText: p.Question},
			"answers":        answers,
		},
		keyUnstableText: fallback.String(),
	}
	if p.ReplyTo != "" {
		content["m.relates_to"] = map[string]any{"m.in_reply_to": map[string]string{"event_id": p.ReplyTo}}
	}
	return c.send(ctx, txnID, typePollStart, content)
}

// EndPoll closes the poll pollID; text is the fallback that clients
// without polls show (say the outcome).
func (c *Client) EndPoll(ctx context.Context, txnID, pollID, text string) (string, error) {
	if pollID == "" {
		return "", errors.New("matrix poll end: no poll")
	}
	if text == "" {
		text = "The poll has ended."
	}
	return c.send(ctx, txnID, typePollEnd, map[string]any{
		"m.relates_to":     map[string]string{"rel_type": relReference, "event_id": pollID},
		keyUnstablePollEnd: map[string]any{},
		keyUnstableText:    text,
	})
}

func messageJSON(m Message) map[string]any {
	msgtype := "m.text"
	if m.Notice {
		msgtype = "m.notice"
	}
	c := map[string]any{"msgtype": msgtype, "body": m.Text}
	if m.HTML != "" {
		c["format"] = formatHTML
		c["formatted_body"] = m.HTML
	}
	return c
}

func (c *Client) send(ctx context.Context, txnID, eventType string, content map[string]any) (string, error) {
	if txnID == "" {
		return "", fmt.Errorf("matrix send %s: %w", eventType, errNoTxnID)
	}
	typ := event.Type{Type: eventType, Class: event.MessageEventType}
	// A send answered 429 or 5xx, or not answered, is tried again with the
	// same transaction ID, so it stays one event.
	ctx = mautrix.WithMaxRetries(ctx, sendRetries)
	resp, err := c.cli.SendMessageEvent(ctx, id.RoomID(c.settings.RoomID), typ, content,
		mautrix.ReqSendEvent{TransactionID: txnID})
	if err != nil {
		return "", fmt.Errorf("matrix send %s (transaction %s) to %s: %w", eventType, txnID, c.settings.RoomID, err)
	}
	return string(resp.EventID), nil
}
