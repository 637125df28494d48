package pending_test

import (
	"testing"

	"github.com/hermes-bot/hermes-bot/pending"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: every
// server, stream and watcher a test starts must be stopped by its cleanup.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// shown is where a test's request is shown: at p in the front-end "t"
// ("": owed its message there).
func shown(p string) map[string]pending.Place { return map[string]pending.Place{"t": pending.Place(p)} }
