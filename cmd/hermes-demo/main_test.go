package main

import (
	"bytes"
	"context"
	"github.com/hermes-bot/hermes-bot/cmd/internal/logsink"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// TestMain fails the package's tests if a goroutine outlives them: the
// demo runs the bridge in-process, and its end must stop all of it.
func TestMain(m *testing.M) {
	// Then, in a line go test shows without -v, whether the end-to-end
	// test was skipped for want of opencode, or the browser test for want
	// of a Chromium.
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		opencodetest.AnnounceUnavailable("cmd/hermes-demo")
		announceNoBrowser()
		os.Exit(code)
	}))
}

// runCmd runs hermes-demo with args and env as main would, and returns
// its output and exit status.
func runCmd(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, func(k string) string { return env[k] }, nil, &out, &errb)
	code = exitCode(err, &errb)
	return out.String(), errb.String(), code
}

// logSink is what a test reads the log of the process it runs in.
type logSink = logsink.Sink

// testQuestion is a question with two options, alpha and beta, as an
// opencode server asks it.
func testQuestion(id, session, text string) opencode.QuestionRequest {
	return opencode.QuestionRequest{
		ID: id, SessionID: session,
		Questions: []opencode.Question{{Question: text, Header: "Pick",
			Options: []opencode.Option{{Label: "alpha"}, {Label: "beta"}}}},
		Tool: &opencode.ToolRef{MessageID: "msg_" + id, CallID: "call_" + id},
	}
}
