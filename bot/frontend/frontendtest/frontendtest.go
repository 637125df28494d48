// Package frontendtest is an in-memory front-end for testing the request
// life cycle without a chat, as net/http/httptest is a server without a
// network: it records what the life cycle shows, in a form a test can
// read, and lets a test press buttons and type text as a person would.
//
// Several can run at once, each with its own name (New); the zero value
// is named "test". Messages are numbered from 1 in each, and a message's
// place is its number; a message can be deleted (Delete) to see the life
// cycle post it again, and any method can be made to fail (Fail).
// Refreshes handed over with RefreshLater show at once unless held
// (HoldLater), as a chat's pacing would hold them. OnPost lets a test
// press a message's buttons the moment it is posted.
package frontendtest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/pending"
)

// Message is a message as the front-end shows it.
type Message struct {
	ID    int
	Place pending.Place
	// Request is what the message shows while open; its entries are the
	// life cycle's, as they were when last shown.
	Request frontend.Request
	// Open says the message shows buttons; once closed, Outcome is what
	// it ends showing (Frontend.Outcome's text).
	Open    bool
	Outcome string
	// Closed is the request as it closed, as the front-end was handed it
	// to render the outcome; empty while open.
	Closed frontend.Request
	// MovedTo is, for a stale copy, the message it now points at.
	MovedTo int
	// Notice is, for a session notice, what it says.
	Notice *frontend.Notice
}

// Prompt is text the life cycle asked a person for (Collect).
type Prompt struct {
	// At is the request's message the prompt is by.
	At     int
	Key    string
	Entry  *frontend.View
	Qi     int
	Reason bool
	User   frontend.User
}

// Frontend is an in-memory frontend.Frontend. The zero value is ready to
// use; it is safe for concurrent use.
type Frontend struct {
	name     string
	mu       sync.Mutex
	next     int
	messages map[int]*Message
	deleted  map[int]bool
	prompts  []Prompt
	told     []string
	notices  []frontend.Notice
	approved []*frontend.View
	paused   []pending.Always
	live     []frontend.LiveStatus
	fail     map[string]error
	// onPost sees each request's message once posted (OnPost).
	onPost func(Message)
	// holding keeps RefreshLater's refreshes in held until ReleaseLater.
	holding bool
	held    []later
}

// later is a refresh handed over with RefreshLater and held.
type later struct {
	at   pending.Place
	r    frontend.Request
	done func(error)
}

var _ frontend.Frontend = (*Frontend)(nil)

// New returns a front-end named name.
func New(name string) *Frontend { return &Frontend{name: name} }

// Name is the name New was given; "test" for the zero value.
func (f *Frontend) Name() string {
	if f.name == "" {
		return "test"
	}
	return f.name
}

// Place is where message id is, as the life cycle keeps it.
func Place(id int) pending.Place { return pending.Place(strconv.Itoa(id)) }

// ID is the message at at; 0 when at is none of this front-end's.
func ID(at pending.Place) int {
	n, err := strconv.Atoi(string(at))
	if err != nil {
		return 0
	}
	return n
}

// Fail makes every later call of method (e.g. "Post") fail with err; a
// nil err stops that.
func (f *Frontend) Fail(method string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail == nil {
		f.fail = make(map[string]error)
	}
	f.fail[method] = err
}

// Delete deletes message id, as a person in the chat can.
func (f *Frontend) Delete(id int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.deleted == nil {
		f.deleted = make(map[int]bool)
	}
	f.deleted[id] = true
}

// Message returns message id as it shows now.
func (f *Frontend) Message(id int) (Message, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, ok := f.messages[id]
	if !ok {
		return Message{}, false
	}
	return *m, true
}

// Messages returns every message posted, in order.
func (f *Frontend) Messages() []Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Message
	for id := 1; id <= f.next; id++ {
		if m, ok := f.messages[id]; ok {
			out = append(out, *m)
		}
	}
	return out
}

// Prompts returns the prompts asked, in order.
func (f *Frontend) Prompts() []Prompt {
	return locked(f, &f.prompts)
}

// Told returns the notes told to people, in order.
func (f *Frontend) Told() []string {
	return locked(f, &f.told)
}

// Notices returns the session notices posted, in order.
func (f *Frontend) Notices() []frontend.Notice {
	return locked(f, &f.notices)
}

// AutoApprovedRequests returns the requests the notice of an approval
// without a person was posted for.
func (f *Frontend) AutoApprovedRequests() []*frontend.View {
	return locked(f, &f.approved)
}

// record appends v to *list, unless method is made to fail (Fail).
func record[T any](f *Frontend, method string, list *[]T, v T) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing(method); err != nil {
		return err
	}
	*list = append(*list, v)
	return nil
}

// locked returns a copy of *list, read under f's lock.
func locked[T any](f *Frontend, list *[]T) []T {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(*list)
}

func (f *Frontend) failing(method string) error {
	if err := f.fail[method]; err != nil {
		return fmt.Errorf("frontendtest %s: %w", method, err)
	}
	return nil
}

func (f *Frontend) post() *Message {
	if f.messages == nil {
		f.messages = make(map[int]*Message)
	}
	f.next++
	m := &Message{ID: f.next, Place: Place(f.next)}
	f.messages[f.next] = m
	return m
}

// Post shows r as a new open message.
func (f *Frontend) Post(_ context.Context, r frontend.Request) (pending.Place, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("Post"); err != nil {
		return "", err
	}
	if len(r.Members) == 0 {
		return "", errors.New("frontendtest Post: no request")
	}
	m := f.post()
	m.Request, m.Open = snapshot(r), true
	if f.onPost != nil {
		go f.onPost(*m)
	}
	return m.Place, nil
}

// OnPost has fn called, on a goroutine of its own, with each request's
// message as it is posted, as someone may press its buttons at once.
func (f *Frontend) OnPost(fn func(Message)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.onPost = fn
}

// edit finds the message at at, or says it is gone.
func (f *Frontend) edit(method string, at pending.Place) (*Message, error) {
	if err := f.failing(method); err != nil {
		return nil, err
	}
	m, ok := f.messages[ID(at)]
	if !ok || f.deleted[ID(at)] {
		return nil, fmt.Errorf("frontendtest %s of message %s: %w", method, at, frontend.ErrGone)
	}
	return m, nil
}

// Refresh shows r, open, in the message at at.
func (f *Frontend) Refresh(_ context.Context, at pending.Place, r frontend.Request) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.supersede(at, f.refresh("Refresh", at, snapshot(r)))
}

func (f *Frontend) refresh(method string, at pending.Place, r frontend.Request) error {
	m, err := f.edit(method, at)
	if err != nil {
		return err
	}
	m.Request, m.Open, m.Outcome, m.Closed = r, true, "", frontend.Request{}
	return nil
}

// RefreshLater shows r, open, in the message at at, at once, or once
// ReleaseLater is called while held; done gets the result on a goroutine
// of its own. A later Refresh, Close or Moved of the message drops a
// held refresh, whose done then gets that call's result, as a chat's
// queue lets the newest edit of a message take the place of one waiting.
func (f *Frontend) RefreshLater(at pending.Place, r frontend.Request, done func(error)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	l := later{at: at, r: snapshot(r), done: done}
	if f.holding {
		f.held = append(f.held, l)
		return
	}
	l.finish(f.refresh("RefreshLater", at, l.r))
}

func (l later) finish(err error) {
	if l.done != nil {
		go l.done(err)
	}
}

// supersede drops the held refreshes of the message at at, which an edit
// with result err has replaced, and returns err.
func (f *Frontend) supersede(at pending.Place, err error) error {
	f.held = slices.DeleteFunc(f.held, func(l later) bool {
		if l.at != at {
			return false
		}
		l.finish(err)
		return true
	})
	return err
}

// HoldLater keeps the refreshes RefreshLater hands over from showing
// until ReleaseLater, as a chat's pacing holds edits.
func (f *Frontend) HoldLater() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.holding = true
}

// ReleaseLater shows the refreshes held, in the order they were handed
// over, and stops holding.
func (f *Frontend) ReleaseLater() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.holding = false
	for _, l := range f.held {
		l.finish(f.refresh("RefreshLater", l.at, l.r))
	}
	f.held = nil
}

// HeldLater returns how many refreshes are held.
func (f *Frontend) HeldLater() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.held)
}

// Outcome describes o for r in a few words a test can match: how it
// closed, the answers, who, the reply and reason, the request IDs and
// the server's generation;
// Close shows it.
func Outcome(r frontend.Request, o frontend.Outcome) string {
	var ids []string
	for _, e := range r.Members {
		ids = append(ids, e.RequestID)
	}
	s := fmt.Sprintf("how=%d requests=%s", o.How, strings.Join(ids, ","))
	if o.Answers != nil {
		s += fmt.Sprintf(" answers=%q", o.Answers)
	}
	if o.By != (frontend.User{}) {
		s += " by=" + o.By.DisplayName()
	}
	if o.Reply != "" {
		s += " reply=" + o.Reply
	}
	if o.Reason != "" {
		s += " reason=" + o.Reason
	}
	if o.How == frontend.Expired {
		s += fmt.Sprintf(" told=%d", o.Told)
	}
	if r.Generation != 0 {
		s += fmt.Sprintf(" gen=%d", r.Generation)
	}
	return s
}

// Close makes the message at at show c (Outcome's words, or what c
// shows already), without buttons.
func (f *Frontend) Close(_ context.Context, at pending.Place, c frontend.Closing) error {
	content := c.Shown
	if content == "" {
		content = Outcome(c.Request, c.Outcome)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.edit("Close", at)
	if err == nil {
		m.Open, m.Outcome, m.Closed = false, content, snapshot(c.Request)
	}
	return f.supersede(at, err)
}

// Moved makes the stale copy at stale point at current.
func (f *Frontend) Moved(_ context.Context, stale, current pending.Place, closed bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.edit("Moved", stale)
	if err == nil {
		m.Open, m.MovedTo = false, ID(current)
	}
	return f.supersede(stale, err)
}

// Collect records a prompt by the message at at; a test answers it with
// the life cycle's HandleInput (see Input).
func (f *Frontend) Collect(_ context.Context, at pending.Place, r frontend.Request, field int, reason bool, user frontend.User) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("Collect"); err != nil {
		return err
	}
	if len(r.Members) == 0 {
		return errors.New("frontendtest Collect: no request")
	}
	cp := *r.Members[0]
	f.prompts = append(f.prompts, Prompt{At: ID(at), Key: r.Key, Entry: &cp, Qi: field, Reason: reason, User: user})
	return nil
}

// Input is what user typing text for prompt p hands the life cycle.
func (f *Frontend) Input(p Prompt, text string) frontend.Input {
	return frontend.Input{Key: p.Key, Field: p.Qi, Reason: p.Reason, Text: text, User: p.User, Frontend: f.Name()}
}

// Tell records a note.
func (f *Frontend) Tell(_ context.Context, _ pending.Place, _ string, user frontend.User, note string) error {
	return record(f, "Tell", &f.told, user.DisplayName()+": "+note)
}

// Notify records a notice and shows it as a message without buttons.
func (f *Frontend) Notify(_ context.Context, n frontend.Notice) (pending.Place, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("Notify"); err != nil {
		return "", err
	}
	f.notices = append(f.notices, n)
	m := f.post()
	m.Notice = &n
	return m.Place, nil
}

// AutoApproved records the notice of an approval without a person.
func (f *Frontend) AutoApproved(_ context.Context, e *frontend.View) error {
	cp := *e
	return record(f, "AutoApproved", &f.approved, &cp)
}

// AutoApprovalPaused records the notice that auto-approval is paused.
func (f *Frontend) AutoApprovalPaused(_ context.Context, a pending.Always) error {
	return record(f, "AutoApprovalPaused", &f.paused, a)
}

// Paused returns the always answers a pause notice was posted for.
func (f *Frontend) Paused() []pending.Always {
	return locked(f, &f.paused)
}

// snapshot copies r's entries, so later changes to them do not show.
func snapshot(r frontend.Request) frontend.Request {
	out := frontend.Request{Key: r.Key, Generation: r.Generation}
	for _, e := range r.Members {
		cp := *e
		cp.Selected = slices.Clone(e.Selected)
		out.Members = append(out.Members, &cp)
	}
	return out
}

// Press is a press of a's button of request key by user, on the
// message from of f (whose buttons are key's; 0: not said), for
// HandlePress. Its Ack records the text in acks, if not nil.
func (f *Frontend) Press(key string, a frontend.Action, question, option int, user frontend.User, from int, acks *[]string) frontend.Press {
	var mu sync.Mutex
	var at pending.Place
	if from != 0 {
		at = Place(from)
	}
	return frontend.Press{
		Key: key, Action: a, Question: question, Option: option, User: user,
		Frontend: f.Name(), From: at, FromCarries: from != 0,
		Ack: func(text string) {
			mu.Lock()
			defer mu.Unlock()
			if acks != nil {
				*acks = append(*acks, text)
			}
		},
	}
}
