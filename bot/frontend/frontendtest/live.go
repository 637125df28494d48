package frontendtest

import (
	"context"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
)

var _ frontend.LiveShower = (*Frontend)(nil)

// LiveStatus records s.
func (f *Frontend) LiveStatus(_ context.Context, s frontend.LiveStatus) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.live = append(f.live, s)
}

// Live returns the live statuses handed over, in order.
func (f *Frontend) Live() []frontend.LiveStatus {
	return locked(f, &f.live)
}
