package opencodetest_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// TestMain fails the package's tests if any goroutine outlives them: every
// server, stream and watcher a test starts must be stopped by its cleanup.
// It then says, in a line go test shows without -v, when the tests that
// need a real opencode were skipped.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		opencodetest.AnnounceUnavailable("opencode/opencodetest")
		os.Exit(code)
	}))
}
