package matrix

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/internal/testlog"
	"github.com/hermes-bot/hermes-bot/bot/matrix/matrixtest"
	"github.com/hermes-bot/hermes-bot/pending"
)

// testDeadline bounds a test's waits on a loaded machine; a pass never
// depends on it.
const testDeadline = 2 * time.Minute

// rig is a real Dendrite with the bot's account, alice (allowed) and
// mallory (a stranger in the room), and a room alice made, inviting both.
type rig struct {
	hs       *matrixtest.Homeserver
	alice    *matrixtest.User
	mallory  *matrixtest.User
	room     string
	store    *pending.Store
	state    *pending.State
	settings Settings
	log      *testlog.Buffer
}

// suite is the Dendrite the tests share; n numbers their accounts.
type suite struct {
	hs *matrixtest.Homeserver
	n  atomic.Int64
}

func (s *suite) newRig(t *testing.T) (*rig, context.Context) {
	t.Helper()
	hs := s.hs
	ctx, cancel := context.WithTimeout(t.Context(), testDeadline)
	t.Cleanup(cancel)
	r := &rig{hs: hs, log: &testlog.Buffer{}}
	n := strconv.FormatInt(s.n.Add(1), 10)
	var err error
	if _, err = hs.Register(ctx, "hermes"+n, "bot-password-1"); err != nil {
		t.Fatal(err)
	}
	if r.alice, err = hs.Register(ctx, "alice"+n, ""); err != nil {
		t.Fatal(err)
	}
	if r.mallory, err = hs.Register(ctx, "mallory"+n, ""); err != nil {
		t.Fatal(err)
	}
	bot := hs.UserID("hermes" + n)
	if r.room, err = r.alice.CreateRoom(ctx, bot, r.mallory.ID); err != nil {
		t.Fatal(err)
	}
	if err := r.mallory.Join(ctx, r.room); err != nil {
		t.Fatal(err)
	}
	r.store, err = pending.Open(filepath.Join(t.TempDir(), "hermes.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.store.Close() })
	r.state = r.store.FrontendState("matrix")
	r.settings = Settings{HomeserverURL: hs.URL, UserID: bot, Password: "bot-password-1",
		RoomID: r.room, AllowedUserIDs: []string{r.alice.ID}, TimelineLimit: 5}
	return r, ctx
}

func (r *rig) client(t *testing.T, ctx context.Context) *Client {
	t.Helper()
	c, err := New(ctx, r.settings, r.state, zerolog.New(r.log))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// runner is a Run in the background, its events on a channel.
type runner struct {
	events chan Event
	cancel context.CancelFunc
	done   chan error
}

func run(ctx context.Context, c *Client) *runner { return runFailing(ctx, c, nil) }

// runFailing hands each event to the channel, then fails it if fail
// returns an error.
func runFailing(ctx context.Context, c *Client, fail func(Event) error) *runner {
	ctx, cancel := context.WithCancel(ctx)
	rn := &runner{events: make(chan Event, 256), cancel: cancel, done: make(chan error, 1)}
	go func() {
		rn.done <- c.Run(ctx, func(_ context.Context, ev Event) error {
			rn.events <- ev
			if fail != nil {
				return fail(ev)
			}
			return nil
		})
	}()
	return rn
}

// stop ends the Run and checks it ended for that reason.
func (rn *runner) stop(t *testing.T) {
	t.Helper()
	rn.cancel()
	if err := <-rn.done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run returned %v, want context.Canceled", err)
	}
}

func (rn *runner) next(t *testing.T, ctx context.Context) Event {
	t.Helper()
	select {
	case ev := <-rn.events:
		return ev
	case err := <-rn.done:
		t.Fatalf("Run ended: %v", err)
	case <-ctx.Done():
		t.Fatalf("no event: %v", ctx.Err())
	}
	return Event{}
}

// until returns the events handed over up to and including the first for
// which last is true.
func (rn *runner) until(t *testing.T, ctx context.Context, last func(Event) bool) []Event {
	t.Helper()
	var got []Event
	for {
		ev := rn.next(t, ctx)
		got = append(got, ev)
		if last(ev) {
			return got
		}
	}
}

// joined waits until u sees the bot join the room.
func (r *rig) joined(t *testing.T, ctx context.Context, u *matrixtest.User) {
	t.Helper()
	_, err := u.WaitFor(ctx, func(ev matrixtest.Event) bool {
		var m struct {
			Membership string `json:"membership"`
		}
		_ = json.Unmarshal(ev.Content, &m)
		return ev.Room == r.room && ev.Type == "m.room.member" && ev.Sender == r.settings.UserID && m.Membership == "join"
	})
	if err != nil {
		t.Fatal(err)
	}
}

// started is a Client running in the room it joined; alice's messages
// from now on reach it.
func (r *rig) started(t *testing.T, ctx context.Context) (*Client, *runner) {
	t.Helper()
	return r.startedFailing(t, ctx, nil)
}

func (r *rig) startedFailing(t *testing.T, ctx context.Context, fail func(Event) error) (*Client, *runner) {
	t.Helper()
	c := r.client(t, ctx)
	rn := runFailing(ctx, c, fail)
	t.Cleanup(rn.cancel)
	r.joined(t, ctx, r.alice)
	return c, rn
}

func texts(evs []Event) []string {
	var s []string
	for _, ev := range evs {
		s = append(s, ev.Text)
	}
	return s
}
