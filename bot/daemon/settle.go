package daemon

import (
	"context"
	"runtime/debug"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot"
	"github.com/hermes-bot/hermes-bot/opencode"
)

// settleAfterListing is the handler the event stream is watched with: the
// lanes, which also hand back, once each connect's listing is done, the
// memory that listing borrowed. Comparing every held request with what
// opencode lists faults the store file's pages in (nearly all of it, with
// the kernel's fault-around), and decoding the lists grows the heap; an
// idle daemon would keep both resident until memory runs short. opencode
// sends server.connected right after the listing, before any other event
// of the connection.
//
// It also stamps what it hands on with the name of the server watched
// ("" for the single unnamed one), which the bridge answers through.
type settleAfterListing struct {
	lanes   *bot.Lanes
	release func()
	server  string
}

var _ opencode.Handler = settleAfterListing{}

func (s settleAfterListing) HandleSnapshot(ctx context.Context, snap opencode.Snapshot) {
	snap.Server = s.server
	s.lanes.HandleSnapshot(ctx, snap)
}

func (s settleAfterListing) HandleEvent(ctx context.Context, ev opencode.Event) {
	ev.Server = s.server
	s.lanes.HandleEvent(ctx, ev)
	if ev.Type != opencode.TypeServerConnected {
		return
	}
	s.release()
	debug.FreeOSMemory()
}

// mappedReleaser is the part of the store releaseMapped needs.
type mappedReleaser interface{ ReleaseMapped() error }

// releaseMapped returns a func that hands the store file's mapped pages
// back to the kernel (pending.Store.ReleaseMapped). Besides after each
// listing, the expiry loop calls it after every sweep: each write faults
// in the pages around those it reads, and over months of requests the
// whole file would be resident again.
func releaseMapped(store mappedReleaser, log zerolog.Logger) func() {
	return func() {
		if err := store.ReleaseMapped(); err != nil {
			log.Warn().Err(err).Msg("could not hand the store's mapped pages back to the kernel; they stay resident")
		}
	}
}
