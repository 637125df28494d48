package daemon

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

type recordingHandler struct {
	mu    sync.Mutex
	types []string
	// snapshots are "server|directory" of each snapshot handed over.
	snapshots []string
}

func (h *recordingHandler) HandleEvent(_ context.Context, ev opencode.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.types = append(h.types, ev.Type)
}

func (h *recordingHandler) HandleSnapshot(_ context.Context, s opencode.Snapshot) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.snapshots = append(h.snapshots, s.Server+"|"+s.Directory)
}

func TestSettleAfterListingReleasesOnConnect(t *testing.T) {
	h := &recordingHandler{}
	lanes := bot.NewLanes(h, 0)
	releases := 0
	s := settleAfterListing{lanes: lanes, release: func() { releases++ }}
	ctx := context.Background()
	s.HandleEvent(ctx, opencode.Event{Type: opencode.TypeQuestionAsked, QuestionAsked: &opencode.QuestionRequest{ID: "que_1", SessionID: "ses_1"}})
	if releases != 0 {
		t.Errorf("released %d times after a question", releases)
	}
	s.HandleEvent(ctx, opencode.Event{Type: opencode.TypeServerConnected})
	if releases != 1 {
		t.Errorf("released %d times after server.connected, want 1", releases)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := lanes.Wait(wctx); err != nil {
		t.Fatal(err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.types) != 2 {
		t.Errorf("handler got %q, want both events", h.types)
	}
}

// Snapshots reach the lanes, and the handler behind them, stamped with
// the server watched, as events are.
func TestSettleAfterListingStampsSnapshots(t *testing.T) {
	h := &recordingHandler{}
	s := settleAfterListing{lanes: bot.NewLanes(h, 0), release: func() {}, server: "laptop"}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.HandleSnapshot(ctx, opencode.Snapshot{Directory: "/repo"})
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.snapshots) != 1 || h.snapshots[0] != "laptop|/repo" {
		t.Errorf("snapshots %q, want laptop's of /repo", h.snapshots)
	}
}

type failingReleaser struct{}

func (failingReleaser) ReleaseMapped() error { return errors.New("madvise: invalid argument") }

func TestReleaseMappedLogsFailure(t *testing.T) {
	var buf strings.Builder
	releaseMapped(failingReleaser{}, zerolog.New(&buf))()
	if !strings.Contains(buf.String(), "madvise: invalid argument") || !strings.Contains(buf.String(), `"level":"warn"`) {
		t.Errorf("log %q: want one warning with the error", buf.String())
	}
}

// A session with a live status is listed at every connect, though no
// held request names it: on OpenCode 2 that is what sees its missed idle.
func TestKnownListsLiveSessions(t *testing.T) {
	store, err := pending.Open(filepath.Join(t.TempDir(), "pending.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	d := &daemon{store: store, bridge: bot.NewBridge(bot.Config{}, store, nil, zerolog.Nop())}
	ctx := context.Background()
	d.bridge.HandleEvent(ctx, opencode.Event{Server: "laptop", Type: "live", Status: &opencode.SessionStatus{SessionID: "ses_live", Type: "busy"}})
	if got := d.known("laptop", zerolog.Nop())(ctx).Sessions; !slices.Equal(got, []string{"ses_live"}) {
		t.Errorf("laptop's known sessions: %q, want ses_live", got)
	}
	if got := d.known("ci", zerolog.Nop())(ctx).Sessions; len(got) != 0 {
		t.Errorf("ci's known sessions: %q, want none", got)
	}
	d.bridge.HandleEvent(ctx, opencode.Event{Server: "laptop", Type: "live", Status: &opencode.SessionStatus{SessionID: "ses_live", Type: "idle"}})
	if got := d.known("laptop", zerolog.Nop())(ctx).Sessions; len(got) != 0 {
		t.Errorf("known sessions once idle: %q, want none", got)
	}
}
