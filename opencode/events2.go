package opencode

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/rs/zerolog"
)

// NewEventReader2 is NewEventReader for OpenCode 2's GET /api/event, whose
// records are envelopes {id, created, type, data, location?: {directory}}.
// It returns the same Events as NewEventReader's for the /api surface:
// Directory is location.directory, ID the envelope's id, Project empty,
// Generation 2. It also reads OpenCode 2's forms (form.created, …).
func NewEventReader2(r io.Reader, maxRecord int, log zerolog.Logger) *EventReader {
	er := NewEventReader(r, maxRecord, log)
	er.envelope = true
	return er
}

// envelopeTypes maps the types of OpenCode 2's stream hermes-bot acts on
// to the type of the Event each becomes; every other type is skipped
// after reading only its type.
var envelopeTypes = []struct{ wire, as string }{
	{TypeQuestionV2Asked, TypeQuestionV2Asked},
	{TypeQuestionV2Replied, TypeQuestionV2Replied},
	{TypeQuestionV2Rejected, TypeQuestionV2Rejected},
	{TypePermissionV2Asked, TypePermissionV2Asked},
	// The 1.x spelling, kept by OpenCode 2 during its migration, carries
	// the v2 data (packages/schema/src/event-manifest.ts@3ece701).
	{TypePermissionAsked, TypePermissionV2Asked},
	{TypePermissionV2Replied, TypePermissionV2Replied},
	{TypeFormCreated, TypeFormCreated},
	{TypeFormReplied, TypeFormReplied},
	{TypeFormCancelled, TypeFormCancelled},
	// A turn's end: {sessionID} and {sessionID, error}, the properties of
	// session.idle and session.error. session.status idle follows either,
	// so only these two are kept, as 1.x's pair would be.
	{"session.execution.succeeded", TypeSessionIdle},
	{"session.execution.failed", TypeSessionError},
	{TypeServerConnected, TypeServerConnected},
	// A turn's progress, kept with live status on (SetLiveStatus).
	{TypeSessionStatus, TypeSessionStatus},
	{TypeToolInputStarted, TypeToolInputStarted},
	{TypeToolCalled, TypeToolCalled},
	{TypeToolSucceeded, TypeToolSucceeded},
	{TypeToolFailed, TypeToolFailed},
	{TypeStepEnded, TypeStepEnded},
}

// envelopeType maps a raw type of OpenCode 2 to an Event type, without
// allocating; a type of a turn's progress only when er.live.
func (er *EventReader) envelopeType(b []byte) (string, bool) {
	for _, t := range envelopeTypes {
		if t.wire == string(b) {
			if k := kindOf(t.as); !er.live && k != nil && k.live {
				return "", false
			}
			return t.as, true
		}
	}
	return "", false
}

// wireEnvelope is one record of OpenCode 2's GET /api/event; Data holds a
// pointer to the typed properties before decoding, as in wireRecord.
type wireEnvelope struct {
	ID       string `json:"id"`
	Data     any    `json:"data"`
	Location *struct {
		Directory string `json:"directory"`
	} `json:"location"`
}

// decodeEnvelope is decode for OpenCode 2's envelope.
func (er *EventReader) decodeEnvelope(data []byte) (Event, bool) {
	raw, err := stringValue(data, 0, "type", errNoType)
	if err != nil {
		er.log.Warn().Err(err).Int("bytes", len(data)).Msg("malformed opencode event record; skipped")
		return Event{}, false
	}
	typ, relevant := er.envelopeType(raw)
	if !relevant {
		return Event{}, false
	}
	ev := &Event{Type: typ, Generation: 2}
	var rec wireEnvelope
	rec.Data = ev.newProperties()
	if err := json.Unmarshal(data, &rec); err != nil {
		er.log.Warn().Err(err).Str("type", typ).Int("bytes", len(data)).Msg("malformed opencode event record; skipped")
		return Event{}, false
	}
	ev.ID = rec.ID
	if rec.Location != nil {
		ev.Directory = rec.Location.Directory
	}
	return er.complete(ev)
}

// Change is one record of OpenCode 2's GET /api/event/changes: either the
// marker that hints were lost (Sweep), or a hint that an aggregate (a
// session) changed, with its sequence number.
type Change struct {
	Sweep       bool
	AggregateID string
	Seq         int64
}

// ChangeReader reads the records of GET /api/event/changes. Unknown types
// are skipped; malformed records are skipped with a warning, as
// EventReader does. It is not safe for concurrent use.
type ChangeReader struct {
	er *EventReader
}

// NewChangeReader reads records from r, with EventReader's framing and
// record limit.
func NewChangeReader(r io.Reader, maxRecord int, log zerolog.Logger) *ChangeReader {
	return &ChangeReader{er: NewEventReader(r, maxRecord, log)}
}

// Next blocks until the next change and returns it; io.EOF at the end of
// r, a read failure wrapped.
func (cr *ChangeReader) Next() (Change, error) {
	for {
		data, err := cr.er.record()
		if err != nil {
			return Change{}, err
		}
		c, ok := cr.decode(data)
		cr.er.reset()
		if ok {
			return c, nil
		}
	}
}

func (cr *ChangeReader) decode(data []byte) (Change, bool) {
	log := cr.er.log
	raw, err := stringValue(data, 0, "type", errNoType)
	if err != nil {
		log.Warn().Err(err).Int("bytes", len(data)).Msg("malformed opencode change record; skipped")
		return Change{}, false
	}
	switch string(raw) {
	case "log.sweep_required":
		return Change{Sweep: true}, true
	case "log.hint":
	default:
		return Change{}, false
	}
	var rec struct {
		AggregateID string `json:"aggregateID"`
		Seq         int64  `json:"seq"`
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		log.Warn().Err(fmt.Errorf("decode log.hint: %w", err)).Int("bytes", len(data)).
			Msg("malformed opencode change record; skipped")
		return Change{}, false
	}
	if rec.AggregateID == "" {
		log.Warn().Str("missing", "aggregateID").Msg("opencode change record lacks a required field; skipped")
		return Change{}, false
	}
	return Change{AggregateID: rec.AggregateID, Seq: rec.Seq}, true
}
