package bot_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind: the
// bridge, the outbox and the handlers must all stop when told to.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
