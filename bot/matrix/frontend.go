package matrix

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// Name is the Matrix front-end's name, under which the store keeps its
// places, owed edits and State.
const Name = "matrix"

// OpencodeStatus tells /status how an opencode server's event stream is
// doing; *opencode.Client is one.
type OpencodeStatus interface {
	State() opencode.WatchState
}

// ServerStatus is an opencode server as /status reports it ("" for the
// only one).
type ServerStatus struct {
	Name   string
	Status OpencodeStatus
}

// FrontendConfig is what the front-end says of the deployment.
type FrontendConfig struct {
	// Version is hermes-bot's, for /status; StartedAt its start.
	Version   string
	StartedAt time.Time
	Servers   []ServerStatus
	// Lang is the language of what the front-end writes and of the life
	// cycle's answers to presses (HERMES_LANG).
	Lang string
	// QuickReplies are stock replies added to the poll of a single-choice
	// question that takes a typed answer (HERMES_QUICK_REPLIES).
	QuickReplies []string
}

// Frontend shows requests in the Client's room (frontend.Frontend) and
// hands what allowed people do there to a frontend.Core (Serve). What it
// posted is kept in the State, so votes, reactions and replies are
// understood after a restart.
type Frontend struct {
	c     *Client
	st    State
	cfg   FrontendConfig
	log   zerolog.Logger
	tx    *i18n.Text
	check Reactions // Serve's only: a ✅ acts once

	// quiet holds the keys of the requests whose typed text is in hand:
	// Collect, called for it, has nothing to ask for.
	quiet sync.Map
}

var _ frontend.Frontend = (*Frontend)(nil)

// NewFrontend returns the front-end of c's room, keeping its records in st
// (the same State as c's: their keys do not meet).
func NewFrontend(c *Client, st State, cfg FrontendConfig, log zerolog.Logger) *Frontend {
	if cfg.StartedAt.IsZero() {
		cfg.StartedAt = time.Now()
	}
	return &Frontend{c: c, st: st, cfg: cfg, log: log, tx: i18n.For(cfg.Lang)}
}

// place is where a message is: the room and its event. Its JSON is the
// front-end's pending.Place.
type place struct {
	Room  string `json:"room"`
	Event string `json:"event"`
}

func (p place) encode() pending.Place {
	raw, _ := json.Marshal(p) // two strings always encode
	return pending.Place(raw)
}

func placeAt(at pending.Place) place {
	var p place
	_ = json.Unmarshal([]byte(at), &p) // not ours: the zero place
	return p
}

// Records kept in the State, by key prefix: the request a message shows
// (keyRequest + its event), each event posted about a request (keyEvent),
// an allowed person's latest vote on a multiple-choice poll (keyVote).
const (
	keyRequest = "req/"
	keyEvent   = "ev/"
	keyVote    = "vote/"
)

// requestRecord is what the front-end keeps of a request's message.
type requestRecord struct {
	Key    string    `json:"key"`
	Step   int       `json:"step"`
	Typed  bool      `json:"typed,omitempty"`
	Reason bool      `json:"reason,omitempty"`
	Multi  bool      `json:"multi,omitempty"`
	Polls  []pollRef `json:"polls,omitempty"`
	Closed bool      `json:"closed,omitempty"`
	// At is when it was posted (Unix ms), for forgetting it (prune).
	At int64 `json:"at,omitempty"`
	// Shown is the digest of what the message shows while open; Edits
	// counts its edits so far.
	Shown string `json:"shown,omitempty"`
	Edits int    `json:"edits,omitempty"`
}

type pollRef struct {
	ID    string `json:"id"`
	Step  int    `json:"step"`
	Ended bool   `json:"ended,omitempty"`
}

// eventRecord is what the front-end keeps of an event it posted about a
// request: the request's message, and for a poll its step and choices.
type eventRecord struct {
	Msg     string   `json:"msg"`
	Poll    bool     `json:"poll,omitempty"`
	Step    int      `json:"step,omitempty"`
	Multi   bool     `json:"multi,omitempty"`
	Choices []choice `json:"choices,omitempty"`
	// Ended is when the poll was ended (Unix ms); votes sent later do not
	// count.
	Ended int64 `json:"ended,omitempty"`
}

type ballotRecord struct {
	At      int64    `json:"at"`
	Answers []string `json:"answers"`
}

// get reads record key into v and reports whether there is one; it fails
// only when the State cannot be read.
func (f *Frontend) get(key string, v any) (bool, error) {
	raw, ok, err := f.st.Get(key)
	if err != nil || !ok {
		return false, err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		// Reading it again would not mend it: as if it were not there.
		f.log.Warn().Err(err).Str("key", key).Msg("matrix: a record of the front-end is unreadable, ignored")
		return false, nil
	}
	return true, nil
}

func (f *Frontend) put(key string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("matrix record %s: %w", key, err)
	}
	return f.st.Put(key, raw)
}

// Name is Name.
func (f *Frontend) Name() string { return Name }

// Post sends r's message and, when its step has choices, its poll. Both
// carry transaction IDs derived from r's key, so a Post retried after a
// crash makes the same events.
func (f *Frontend) Post(ctx context.Context, r frontend.Request) (pending.Place, error) {
	if len(r.Members) == 0 {
		return "", errors.New("matrix post: no request")
	}
	h := renderOpen(f.tx, r)
	msg, err := f.c.Send(ctx, TxnID(r.Key, Name, "message"), Message{Text: plain(h), HTML: h})
	if err != nil {
		return "", fmt.Errorf("post %s: %w", r.Key, err)
	}
	rec := requestRecord{Key: r.Key}
	if _, err := f.get(keyRequest+msg, &rec); err != nil {
		return "", fmt.Errorf("post %s: %w", r.Key, err)
	}
	rec.Key, rec.Closed, rec.Shown = r.Key, false, digest(h)
	if rec.At == 0 {
		rec.At = time.Now().UnixMilli()
	}
	if err := f.put(keyEvent+msg, eventRecord{Msg: msg}); err != nil {
		return "", fmt.Errorf("post %s: %w", r.Key, err)
	}
	if err := f.showStep(ctx, r, msg, &rec); err != nil {
		return "", fmt.Errorf("post %s: %w", r.Key, err)
	}
	return place{Room: f.c.RoomID(), Event: msg}.encode(), nil
}

// showStep posts the poll of r's current step, unless it has one, ending
// the polls of earlier steps, and records it in rec.
func (f *Frontend) showStep(ctx context.Context, r frontend.Request, msg string, rec *requestRecord) error {
	s := withQuickReplies(stepOf(f.tx, r), r, f.cfg.QuickReplies)
	rec.Step, rec.Typed, rec.Reason, rec.Multi = s.field, s.typed, s.reason, s.multi
	if n := len(rec.Polls); n > 0 && rec.Polls[n-1].Step == s.field && !rec.Polls[n-1].Ended {
		return f.put(keyRequest+msg, rec) // shown already
	}
	if err := f.endPolls(ctx, msg, rec, f.tx.Matrix.NextQuestion); err != nil {
		return err
	}
	if len(s.choices) > 0 {
		answers := make([]PollAnswer, len(s.choices))
		for i, c := range s.choices {
			answers[i] = PollAnswer{ID: c.ID, Text: c.Text}
		}
		maxSel := 1
		if s.multi {
			maxSel = len(answers)
		}
		// The count of polls posted so far tells a poll of a step asked
		// again (a form refused) from the first.
		txn := TxnID(r.Key, Name, "poll", strconv.Itoa(len(rec.Polls)))
		poll, err := f.c.StartPoll(ctx, txn, Poll{Question: s.question, Answers: answers, MaxSelections: maxSel, ReplyTo: msg})
		if err != nil {
			return err
		}
		if err := f.put(keyEvent+poll, eventRecord{Msg: msg, Poll: true, Step: s.field, Multi: s.multi, Choices: s.choices}); err != nil {
			return err
		}
		rec.Polls = append(rec.Polls, pollRef{ID: poll, Step: s.field})
	}
	return f.put(keyRequest+msg, rec)
}

// endPolls ends rec's open polls, text saying why to clients without polls.
func (f *Frontend) endPolls(ctx context.Context, msg string, rec *requestRecord, text string) error {
	for i := range rec.Polls {
		p := &rec.Polls[i]
		if p.Ended {
			continue
		}
		if _, err := f.c.EndPoll(ctx, TxnID(msg, Name, "end", p.ID), p.ID, text); err != nil {
			return err
		}
		var ev eventRecord
		if _, err := f.get(keyEvent+p.ID, &ev); err != nil {
			return err
		}
		ev.Ended = time.Now().UnixMilli()
		if err := f.put(keyEvent+p.ID, ev); err != nil {
			return err
		}
		p.Ended = true
		if err := f.put(keyRequest+msg, rec); err != nil {
			return err
		}
	}
	return nil
}

// Refresh shows r's current step: the message edited and a new poll when
// r moved on to another question; the message edited alone when only it
// changed (a permission joined its group); nothing else (a poll shows its
// votes itself).
func (f *Frontend) Refresh(ctx context.Context, at pending.Place, r frontend.Request) error {
	msg := placeAt(at).Event
	if msg == "" || len(r.Members) == 0 {
		return fmt.Errorf("refresh %s: %w: not a matrix place", r.Key, frontend.ErrRefused)
	}
	var rec requestRecord
	if _, err := f.get(keyRequest+msg, &rec); err != nil {
		return fmt.Errorf("refresh %s: %w", r.Key, err)
	}
	if rec.Closed {
		return nil // a refresh handed over before the close, landing after it
	}
	s := stepOf(f.tx, r)
	h := renderOpen(f.tx, r)
	n := len(rec.Polls)
	sameStep := rec.Key != "" && rec.Step == s.field && (len(s.choices) == 0 || (n > 0 && !rec.Polls[n-1].Ended))
	if sameStep && rec.Shown == digest(h) {
		return nil
	}
	rec.Key = r.Key
	// Numbered, so a retry after a crash is the same edit, and showing
	// again what an earlier edit showed is a new one.
	txn := TxnID(r.Key, Name, "refresh", strconv.Itoa(rec.Edits))
	if _, err := f.c.Edit(ctx, txn, msg, Message{Text: plain(h), HTML: h}); err != nil {
		return fmt.Errorf("refresh %s: %w", r.Key, err)
	}
	rec.Edits++
	rec.Shown = digest(h)
	if sameStep {
		// The message changed (another request joined its group), not
		// the step: its poll stays.
		if err := f.put(keyRequest+msg, rec); err != nil {
			return fmt.Errorf("refresh %s: %w", r.Key, err)
		}
		return nil
	}
	if err := f.showStep(ctx, r, msg, &rec); err != nil {
		return fmt.Errorf("refresh %s: %w", r.Key, err)
	}
	return nil
}

// digest is a short digest of what a message shows.
func digest(h string) string { return TxnID(h) }

// RefreshLater is Refresh on a goroutine: a toggle changes nothing a
// poll does not show already, so it is quick.
func (f *Frontend) RefreshLater(at pending.Place, r frontend.Request, done func(error)) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), handlerTimeout)
		defer cancel()
		err := f.Refresh(ctx, at, r)
		if done != nil {
			done(err)
		}
	}()
}

// Close ends the request's polls, their end saying the outcome, and
// edits its message to show how it closed. The edit's transaction ID
// derives from what it shows, so an owed close sent again is one edit.
func (f *Frontend) Close(ctx context.Context, at pending.Place, c frontend.Closing) error {
	msg := placeAt(at).Event
	if msg == "" || (len(c.Request.Members) == 0 && c.Shown == "") {
		return fmt.Errorf("close %s: %w: not a matrix place, or nothing to show", at, frontend.ErrRefused)
	}
	h, end := c.Shown, plain(c.Shown)
	if h == "" {
		ft := footer(f.tx, c.Request.Members[0], c.Outcome)
		h, end = renderClosed(f.tx, c.Request, ft), plain(ft)
	}
	var rec requestRecord
	if _, err := f.get(keyRequest+msg, &rec); err != nil {
		return fmt.Errorf("close %s: %w", msg, err)
	}
	rec.Closed = true
	if err := f.endPolls(ctx, msg, &rec, end); err != nil {
		return fmt.Errorf("close %s: %w", msg, err)
	}
	if err := f.put(keyRequest+msg, rec); err != nil {
		return fmt.Errorf("close %s: %w", msg, err)
	}
	if _, err := f.c.Edit(ctx, TxnID(msg, Name, "close", h), msg, Message{Text: plain(h), HTML: h}); err != nil {
		return fmt.Errorf("close %s: %w", msg, err)
	}
	return nil
}

// Moved makes a stale copy point to the current message.
func (f *Frontend) Moved(ctx context.Context, stalePlace, currentPlace pending.Place, isClosed bool) error {
	stale, current := placeAt(stalePlace), placeAt(currentPlace)
	if stale.Event == "" {
		return fmt.Errorf("moved: %w: not a matrix place", frontend.ErrRefused)
	}
	var rec requestRecord
	if _, err := f.get(keyRequest+stale.Event, &rec); err != nil {
		return fmt.Errorf("moved %s: %w", stale.Event, err)
	}
	rec.Closed = true
	if err := f.endPolls(ctx, stale.Event, &rec, f.tx.Matrix.MovedNewer); err != nil {
		return fmt.Errorf("moved %s: %w", stale.Event, err)
	}
	h := f.tx.Matrix.MovedTo(esc(link(current)))
	if isClosed {
		h = f.tx.Matrix.ClosedSee(esc(link(current)))
	}
	if _, err := f.c.Edit(ctx, TxnID(stale.Event, Name, "moved", current.Event), stale.Event, Message{Text: plain(h), HTML: h}); err != nil {
		return fmt.Errorf("moved %s: %w", stale.Event, err)
	}
	return nil
}

// link is a matrix.to link to the event at p.
func link(p place) string { return "https://matrix.to/#/" + p.Room + "/" + p.Event }

// Collect asks user to reply to the request's message with the text r
// waits for, unless that reply is in hand already.
func (f *Frontend) Collect(ctx context.Context, at pending.Place, r frontend.Request, field int, reason bool, user frontend.User) error {
	if _, q := f.quiet.Load(r.Key); q {
		return nil
	}
	p := placeAt(at)
	h := f.tx.Matrix.CollectAnswer(esc(user.DisplayName()))
	if reason {
		h = f.tx.Matrix.CollectReason(esc(user.DisplayName()))
	}
	ev, err := f.c.Send(ctx, randomTxn(), Message{Text: plain(h), HTML: h, Notice: true, ReplyTo: p.Event})
	if err != nil {
		return fmt.Errorf("collect %s: %w", r.Key, err)
	}
	// A reply to this note is a reply to the request's message.
	if err := f.put(keyEvent+ev, eventRecord{Msg: p.Event}); err != nil {
		return fmt.Errorf("collect %s: %w", r.Key, err)
	}
	return nil
}

// Tell answers user with note (HTML) by the request's message.
func (f *Frontend) Tell(ctx context.Context, at pending.Place, key string, user frontend.User, note string) error {
	h := esc(user.DisplayName()) + ": " + note
	if _, err := f.c.Send(ctx, randomTxn(), Message{Text: plain(h), HTML: h, Notice: true, ReplyTo: placeAt(at).Event}); err != nil {
		return fmt.Errorf("tell about %s: %w", key, err)
	}
	return nil
}

// Notify posts notice n; a reply to it continues n's session.
func (f *Frontend) Notify(ctx context.Context, n frontend.Notice) (pending.Place, error) {
	h := renderNotice(f.tx, n, len(f.c.allow) > 0)
	// A notice is not owed across a crash: a random transaction ID.
	ev, err := f.c.Send(ctx, randomTxn(), Message{Text: plain(h), HTML: h})
	if err != nil {
		return "", fmt.Errorf("notice of session %s: %w", n.SessionID, err)
	}
	return place{Room: f.c.RoomID(), Event: ev}.encode(), nil
}

// AutoApproved posts that e was allowed once without asking.
func (f *Frontend) AutoApproved(ctx context.Context, e *frontend.View) error {
	h := f.tx.AutoApproved + ": <code>" + esc(permissionWhat(f.tx, e)) + "</code> · " + esc(projectName(f.tx, e.Directory))
	if _, err := f.c.Send(ctx, TxnID(e.UID, Name, "auto-approved"), Message{Text: plain(h), HTML: h, Notice: true}); err != nil {
		return fmt.Errorf("auto-approval notice of %s: %w", e.UID, err)
	}
	return nil
}

// AutoApprovalPaused posts that an always answer paused auto-approval.
func (f *Frontend) AutoApprovalPaused(ctx context.Context, a pending.Always) error {
	// Not Pause.Notice: Element keeps "/autoapprove" to itself.
	h := f.tx.Matrix.Paused(esc(projectName(f.tx, a.Directory)), esc(a.Kind))
	txn := TxnID(Name, "paused", a.Server, a.Directory, strconv.FormatInt(a.At.UnixNano(), 10))
	if _, err := f.c.Send(ctx, txn, Message{Text: plain(h), HTML: h, Notice: true}); err != nil {
		return fmt.Errorf("auto-approval pause notice of %s: %w", a.Directory, err)
	}
	return nil
}

// randomTxn is the transaction ID of a post that is not retried after a
// crash (a note, a notice): nothing owes it, so a repeat would be new.
func randomTxn() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b) // never fails: crypto/rand panics instead
	return "hr" + hex.EncodeToString(b)
}

// userOf is the person behind a Matrix user ID.
func userOf(sender string) frontend.User { return frontend.User{ID: sender, Name: sender} }

// choiceOf is the choice of ev's answer id.
func choiceOf(ev eventRecord, id string) (choice, bool) {
	i := slices.IndexFunc(ev.Choices, func(c choice) bool { return c.ID == id })
	if i < 0 {
		return choice{}, false
	}
	return ev.Choices[i], true
}
