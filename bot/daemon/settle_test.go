package daemon

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot"
	"github.com/hermes-bot/hermes-bot/opencode"
)

type recordingHandler struct {
	mu    sync.Mutex
	types []string
}

func (h *recordingHandler) HandleEvent(_ context.Context, ev opencode.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.types = append(h.types, ev.Type)
}

func (h *recordingHandler) HandleSnapshot(context.Context, opencode.Snapshot) {}

func TestSettleAfterListingReleasesOnConnect(t *testing.T) {
	h := &recordingHandler{}
	lanes := bot.NewLanes(h, 0)
	releases := 0
	s := settleAfterListing{Lanes: lanes, release: func() { releases++ }}
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

type failingReleaser struct{}

func (failingReleaser) ReleaseMapped() error { return errors.New("madvise: invalid argument") }

func TestReleaseMappedLogsFailure(t *testing.T) {
	var buf strings.Builder
	releaseMapped(failingReleaser{}, zerolog.New(&buf))()
	if !strings.Contains(buf.String(), "madvise: invalid argument") || !strings.Contains(buf.String(), `"level":"warn"`) {
		t.Errorf("log %q: want one warning with the error", buf.String())
	}
}
