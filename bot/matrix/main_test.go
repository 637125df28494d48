package matrix

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: every
// Run and connection a test starts must be stopped by its cleanup.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
