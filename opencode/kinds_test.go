package opencode

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

// Every entry of the event table is complete, and SessionID reads the
// session of each type from the decoded properties.
func TestEventKinds(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range eventKinds {
		if seen[k.name] {
			t.Errorf("%s listed twice", k.name)
		}
		seen[k.name] = true
		if (k.props == nil) != (k.session == nil) {
			t.Errorf("%s: properties without a session, or the reverse", k.name)
		}
		if k.props == nil {
			continue
		}
		ev := Event{Type: k.name}
		if got := ev.SessionID(); got != "" {
			t.Errorf("%s without properties: SessionID %q", k.name, got)
		}
		props := `{"id":"x","requestID":"x","sessionID":"ses_9","questions":[{"question":"q","options":[]}]}`
		if p, ok := liveProps[k.name]; ok {
			props = p
		} else if k.live {
			props = `{"sessionID":"ses_9","callID":"c"}` // OpenCode 2's tool and step events
		}
		raw := fmt.Sprintf(`{"payload":{"type":%q,"properties":%s}}`, k.name, props)
		read := NewEventReader
		if k.only2 {
			// OpenCode 2's own types come only in its envelope.
			if k.name == TypeFormCreated {
				props = `{"form":` + props + `}`
			}
			raw = fmt.Sprintf(`{"type":%q,"data":%s}`, k.name, props)
			read = NewEventReader2
		}
		er := read(strings.NewReader("data: "+raw+"\n\n"), 0, zerolog.Nop())
		er.SetLiveStatus(k.live)
		got, err := er.Next()
		if err != nil {
			t.Fatalf("%s: %v", k.name, err)
		}
		if got.SessionID() != "ses_9" {
			t.Errorf("%s: SessionID %q, want ses_9", k.name, got.SessionID())
		}
	}
	for _, typ := range []string{TypeQuestionAsked, TypeQuestionReplied, TypeQuestionRejected, TypePermissionAsked,
		TypePermissionReplied, TypeSessionIdle, TypeSessionError, TypeServerConnected, TypeServerHeartbeat,
		TypeQuestionV2Asked, TypeQuestionV2Replied, TypeQuestionV2Rejected, TypePermissionV2Asked, TypePermissionV2Replied,
		TypeFormCreated, TypeFormReplied, TypeFormCancelled, TypeMessagePartUpdated, TypeSessionStatus,
		TypeToolInputStarted, TypeToolCalled, TypeToolSucceeded, TypeToolFailed, TypeStepEnded} {
		if !seen[typ] {
			t.Errorf("%s is not in the table", typ)
		}
	}
}

// liveProps are properties of the 1.x types of a turn's progress that
// carry what they are kept for.
var liveProps = map[string]string{
	TypeMessagePartUpdated: `{"part":{"type":"tool","sessionID":"ses_9","callID":"c"}}`,
	TypeSessionStatus:      `{"sessionID":"ses_9","status":{"type":"busy"}}`,
}
