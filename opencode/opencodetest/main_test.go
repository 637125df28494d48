package opencodetest_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: every
// server, stream and watcher a test starts must be stopped by its cleanup.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
