package telegram

import (
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
)

// Steering data round-trips, stays within Telegram's 64 bytes for the
// longest argument, and anything else is refused.
func TestSteerDataCodec(t *testing.T) {
	long := "ses_" + strings.Repeat("x", maxSteerArg-4)
	for _, a := range []action{actNew, actContinue, actStop, actStopYes, actStopNo} {
		s, err := steerData{Action: a, Arg: long}.encode()
		if err != nil {
			t.Fatal(err)
		}
		if len(s) > maxCallbackData {
			t.Errorf("%s: %d bytes", a, len(s))
		}
		if d, ok := decodeSteer(s); !ok || d.Action != a || d.Arg != long {
			t.Errorf("decodeSteer(%q) = %+v, %v", s, d, ok)
		}
		if _, err := decodeCallback(s); err == nil {
			t.Errorf("%q also reads as a request's button", s)
		}
	}
	for _, bad := range []string{"", "sstop", "sstop:", "sstop:a:b", "sstop:a b", "qopt:abc:0:0", "snew:" + long + "x", "sstopz:ses_1"} {
		if d, ok := decodeSteer(bad); ok {
			t.Errorf("decodeSteer(%q) accepted: %+v", bad, d)
		}
	}
	if _, err := (steerData{Action: actStop, Arg: "a/b"}).encode(); err == nil {
		t.Error("an argument with a slash was encoded")
	}
	p := frontend.Project{Server: "laptop", Directory: "/home/me/a-very-long-project-folder-name/that/goes/on"}
	if k := projectKey(p); !validSteerArg(k) || len(k) != 12 {
		t.Errorf("projectKey = %q", k)
	}
	if projectKey(p) == projectKey(frontend.Project{Directory: p.Directory}) {
		t.Error("one folder on two servers has one key")
	}
}
