package opencode

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/rs/zerolog"
)

const (
	// readBufferSize is the bufio buffer: most records fit in it whole.
	readBufferSize = 64 << 10
	// keepRecordBuffer is the largest record buffer kept between records;
	// a bigger one, grown for one huge record, is let go.
	keepRecordBuffer = 1 << 20
)

// EventReader reads the records of GET /global/event (or, made by
// NewEventReader2, of OpenCode 2's GET /api/event) and returns the
// relevant ones, decoded. Records of irrelevant types (sync, streaming
// noise, anything unknown) cost a look at their type and nothing else:
// no allocation, no decoding.
//
// Lines end with "\n" or "\r\n" (a lone "\r", which SSE also allows,
// is not used by opencode and not supported). Fields other than data, and
// comments, are ignored; several data lines of one record are joined with
// "\n".
//
// An EventReader is not safe for concurrent use.
type EventReader struct {
	br  *bufio.Reader
	max int
	log zerolog.Logger
	// envelope selects OpenCode 2's records (NewEventReader2).
	envelope bool
	// live keeps the events of a turn's progress (SetLiveStatus).
	live bool

	data    []byte // the current record's data field(s), reused
	hasData bool   // a data field was seen since the last dispatch
	tooLong bool   // the current record passed max and is being discarded
	dropped int64  // bytes of the current record discarded so far
}

// NewEventReader reads records from r. A record longer than maxRecord bytes
// (DefaultMaxRecord when maxRecord ≤ 0) is read through without being kept,
// skipped, and reported on log. Malformed records are skipped and reported
// too; neither ends the stream.
func NewEventReader(r io.Reader, maxRecord int, log zerolog.Logger) *EventReader {
	if maxRecord <= 0 {
		maxRecord = DefaultMaxRecord
	}
	return &EventReader{br: bufio.NewReaderSize(r, readBufferSize), max: maxRecord, log: log}
}

// SetLiveStatus makes the reader keep, or skip again, the events of a
// turn's progress (liveKinds: tool steps, step ends, session status),
// which it skips by default.
func (er *EventReader) SetLiveStatus(on bool) { er.live = on }

// Next blocks until the next relevant record and returns it, including
// server.connected and server.heartbeat, which carry no properties. At the
// end of r it returns io.EOF (an unfinished last record is dropped, as the
// SSE specification says); a read failure is returned wrapped.
func (er *EventReader) Next() (Event, error) {
	for {
		data, err := er.record()
		if err != nil {
			return Event{}, err
		}
		var ev Event
		var ok bool
		if er.envelope {
			ev, ok = er.decodeEnvelope(data)
		} else {
			ev, ok = er.decode(data)
		}
		er.reset()
		if ok {
			return ev, nil
		}
	}
}

// record returns the data of the next record that has any, valid until
// reset. Long records are skipped here, with their warning.
func (er *EventReader) record() ([]byte, error) {
	for {
		done, err := er.readLine()
		if err != nil {
			er.reset()
			if errors.Is(err, io.EOF) {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("read event stream: %w", err)
		}
		if !done {
			continue
		}
		if er.tooLong {
			er.log.Warn().Int64("bytes", er.dropped).Int("max_bytes", er.max).
				Msg("opencode event record too long; skipped")
			er.reset()
			continue
		}
		if !er.hasData {
			continue
		}
		return er.data, nil
	}
}

func (er *EventReader) reset() {
	if cap(er.data) > keepRecordBuffer {
		er.data = nil
	}
	er.data = er.data[:0]
	er.hasData, er.tooLong, er.dropped = false, false, 0
}

// readLine consumes one line. It reports done when that line was blank,
// which ends a record.
func (er *EventReader) readLine() (done bool, err error) {
	chunk, err := er.br.ReadSlice('\n')
	if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
		return false, err
	}
	full := err == nil // chunk holds the whole line
	switch {
	case full && (len(chunk) == 1 || len(chunk) == 2 && chunk[0] == '\r'):
		return true, nil
	case bytes.HasPrefix(chunk, []byte("data:")):
		return false, er.appendData(chunk[len("data:"):], full)
	case full && (string(chunk) == "data\n" || string(chunk) == "data\r\n"):
		// A field name alone is that field with an empty value.
		return false, er.appendData([]byte("\n"), true)
	default:
		// Comments (":…"), other fields and junk carry nothing for us.
		for !full {
			chunk, err = er.br.ReadSlice('\n')
			if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
				return false, err
			}
			full = err == nil
		}
		return false, nil
	}
}

// appendData adds the value of a data field to the record, joining fields
// with "\n", and reads the rest of the line when chunk is only its start.
func (er *EventReader) appendData(chunk []byte, full bool) error {
	if len(chunk) > 0 && chunk[0] == ' ' {
		chunk = chunk[1:]
	}
	if er.hasData {
		er.add([]byte{'\n'})
	}
	er.hasData = true
	start := len(er.data)
	for {
		if full {
			chunk = chunk[:len(chunk)-1] // the '\n'
		}
		er.add(chunk)
		if full {
			break
		}
		var err error
		chunk, err = er.br.ReadSlice('\n')
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
		full = err == nil
	}
	if n := len(er.data); !er.tooLong && n > start && er.data[n-1] == '\r' {
		er.data = er.data[:n-1]
	}
	return nil
}

func (er *EventReader) add(b []byte) {
	if er.tooLong {
		er.dropped += int64(len(b))
		return
	}
	if len(er.data)+len(b) > er.max {
		er.tooLong = true
		er.dropped = int64(len(er.data) + len(b))
		er.data = nil
		return
	}
	if need := len(er.data) + len(b); need > cap(er.data) {
		// Grow as append would, but never past max: a record near the
		// limit must not cost twice the limit.
		grown := make([]byte, len(er.data), min(max(2*cap(er.data), need, 512), er.max))
		copy(grown, er.data)
		er.data = grown
	}
	er.data = append(er.data, b...)
}

// wireRecord is one record of GET /global/event. Properties holds a
// pointer to the typed properties before decoding, so json fills them in
// one pass over the record.
type wireRecord struct {
	Directory string `json:"directory"`
	Project   string `json:"project"`
	Payload   struct {
		ID         string `json:"id"`
		Type       string `json:"type"`
		Properties any    `json:"properties"`
	} `json:"payload"`
}

// decode turns a relevant record into an Event; ok is false for anything to
// skip. Only relevant records are decoded in full.
func (er *EventReader) decode(data []byte) (Event, bool) {
	raw, err := payloadType(data)
	if err != nil {
		er.log.Warn().Err(err).Int("bytes", len(data)).Msg("malformed opencode event record; skipped")
		return Event{}, false
	}
	typ, relevant := er.relevantType(raw)
	if !relevant {
		return Event{}, false
	}
	// Declared only now: the table's functions make it escape, and an
	// irrelevant record must not pay for that.
	ev := &Event{Type: typ}
	var rec wireRecord
	rec.Payload.Properties = ev.newProperties()
	if err := json.Unmarshal(data, &rec); err != nil {
		er.log.Warn().Err(err).Str("type", typ).Int("bytes", len(data)).Msg("malformed opencode event record; skipped")
		return Event{}, false
	}
	ev.Directory, ev.Project, ev.ID = rec.Directory, rec.Project, rec.Payload.ID
	return er.complete(ev)
}

// complete marks ev's surface and returns it, or ok false, with a
// warning, when it lacks a field hermes-bot cannot do without.
func (er *EventReader) complete(ev *Event) (Event, bool) {
	if k := kindOf(ev.Type); k != nil && k.empty != nil && k.empty(ev) {
		return Event{}, false // a record of a type kept only in part
	}
	ev.setSurface()
	if missing := ev.missingField(); missing != "" {
		er.log.Warn().Str("type", ev.Type).Str("event_id", ev.ID).Str("directory", ev.Directory).
			Str("missing", missing).Msg("opencode event lacks a required field; skipped")
		return Event{}, false
	}
	return *ev, true
}

// eventKind is what the reader knows of one event type it keeps. Adding
// an event type is one entry of eventKinds (and its field of Event): the
// reader, its checks and Event.SessionID all read this table.
type eventKind struct {
	name string
	// legacy is, for a type of the /api surface, the legacy type it
	// stands for; "" for a legacy type.
	legacy string
	// props points ev's field for this type at a zero value and returns
	// it, for json to decode into; nil for a type without properties.
	props func(ev *Event) any
	// session returns the session the event belongs to: "" for none, or
	// when ev's field for the type is not set.
	session func(ev *Event) string
	// missing names a field hermes-bot cannot do without that ev lacks,
	// or returns "". It is called only on a decoded event.
	missing func(ev *Event) string
	// only2 marks a type of OpenCode 2 alone (forms): the 1.x reader
	// skips it, and its Surface is SurfaceAPI.
	only2 bool
	// live marks a type of a turn's progress, kept only by a reader with
	// live status on.
	live bool
	// empty reports a decoded record that carries nothing kept (a
	// message part that is no tool): skipped without a warning.
	empty func(ev *Event) bool
}

// eventKinds are the event types hermes-bot acts on. Every other type on
// the stream is skipped after reading only its type.
var eventKinds = slices.Concat(legacyKinds, []eventKind{
	// The /api surface's requests: the same properties, under their own
	// names. Only the permission request has a shape of its own.
	v2Kind(TypeQuestionV2Asked, TypeQuestionAsked, nil),
	v2Kind(TypeQuestionV2Replied, TypeQuestionReplied, nil),
	v2Kind(TypeQuestionV2Rejected, TypeQuestionRejected, nil),
	v2Kind(TypePermissionV2Asked, TypePermissionAsked, func(ev *Event) any {
		ev.PermissionAsked = new(PermissionRequest)
		return &permissionV2Decoder{ev.PermissionAsked}
	}),
	v2Kind(TypePermissionV2Replied, TypePermissionReplied, nil),
	// OpenCode 2's forms. A url form without its url, or a form without
	// fields, is still delivered: the bot decides what to do with it.
	formKind(kindFor(TypeFormCreated, func(ev *Event) **Form { return &ev.FormAsked },
		func(p *Form) string { return p.SessionID },
		func(p *Form) string { return required("form.id", p.ID, "form.sessionID", p.SessionID) }),
		func(ev *Event) any { ev.FormAsked = new(Form); return &formCreated{ev.FormAsked} }),
	formKind(kindFor(TypeFormReplied, func(ev *Event) **FormReplied { return &ev.FormReplied },
		func(p *FormReplied) string { return p.SessionID },
		func(p *FormReplied) string { return required("id", p.ID, "sessionID", p.SessionID) }), nil),
	formKind(kindFor(TypeFormCancelled, func(ev *Event) **FormCancelled { return &ev.FormCancelled },
		func(p *FormCancelled) string { return p.SessionID },
		func(p *FormCancelled) string { return required("id", p.ID, "sessionID", p.SessionID) }), nil),
	// server.connected and server.heartbeat carry nothing to keep.
	{name: TypeServerConnected},
	{name: TypeServerHeartbeat},
}, liveKinds)

// legacyKinds are the event types of the legacy surface that carry
// properties; the /api surface's kinds are built from them.
var legacyKinds = []eventKind{
	kindFor(TypeQuestionAsked, func(ev *Event) **QuestionRequest { return &ev.QuestionAsked },
		func(p *QuestionRequest) string { return p.SessionID },
		func(p *QuestionRequest) string {
			if m := required("id", p.ID, "sessionID", p.SessionID); m != "" || len(p.Questions) > 0 {
				return m
			}
			return "questions"
		}),
	kindFor(TypeQuestionReplied, func(ev *Event) **QuestionReplied { return &ev.QuestionReplied },
		func(p *QuestionReplied) string { return p.SessionID },
		func(p *QuestionReplied) string { return required("requestID", p.RequestID) }),
	kindFor(TypeQuestionRejected, func(ev *Event) **QuestionRejected { return &ev.QuestionRejected },
		func(p *QuestionRejected) string { return p.SessionID },
		func(p *QuestionRejected) string { return required("requestID", p.RequestID) }),
	kindFor(TypePermissionAsked, func(ev *Event) **PermissionRequest { return &ev.PermissionAsked },
		func(p *PermissionRequest) string { return p.SessionID },
		func(p *PermissionRequest) string { return required("id", p.ID, "sessionID", p.SessionID) }),
	kindFor(TypePermissionReplied, func(ev *Event) **PermissionReplied { return &ev.PermissionReplied },
		func(p *PermissionReplied) string { return p.SessionID },
		func(p *PermissionReplied) string { return required("requestID", p.RequestID) }),
	kindFor(TypeSessionIdle, func(ev *Event) **SessionIdle { return &ev.SessionIdle },
		func(p *SessionIdle) string { return p.SessionID },
		func(p *SessionIdle) string { return required("sessionID", p.SessionID) }),
	// session.error may belong to no session.
	kindFor(TypeSessionError, func(ev *Event) **SessionError { return &ev.SessionError },
		func(p *SessionError) string { return p.SessionID }, nil),
}

// kindFor is the entry of type name whose properties decode into the
// field of Event that field points at; session and missing (nil: none
// required) read them.
func kindFor[T any](name string, field func(*Event) **T, session, missing func(*T) string) eventKind {
	k := eventKind{
		name:  name,
		props: func(ev *Event) any { *field(ev) = new(T); return *field(ev) },
		session: func(ev *Event) string {
			if p := *field(ev); p != nil {
				return session(p)
			}
			return ""
		},
	}
	if missing != nil {
		k.missing = func(ev *Event) string { return missing(*field(ev)) }
	}
	return k
}

// formKind marks k a type of OpenCode 2 alone, decoded with props when
// not nil.
func formKind(k eventKind, props func(ev *Event) any) eventKind {
	k.only2 = true
	if props != nil {
		k.props = props
	}
	return k
}

// formCreated is the data of form.created: {form}.
type formCreated struct {
	Form *Form `json:"form"`
}

// v2Kind is the entry of a type of the /api surface that stands for
// legacy type legacy: legacy's entry of legacyKinds under another name,
// with props replaced when props is not nil.
func v2Kind(name, legacy string, props func(ev *Event) any) eventKind {
	var k eventKind
	for i := range legacyKinds {
		if legacyKinds[i].name == legacy {
			k = legacyKinds[i]
		}
	}
	if k.name == "" {
		panic("opencode: no event kind " + legacy)
	}
	k.name, k.legacy = name, legacy
	if props != nil {
		k.props = props
	}
	return k
}

// setSurface marks an event of the /api surface, and the request it
// carries, as such.
func (ev *Event) setSurface() {
	if k := kindOf(ev.Type); k == nil || k.legacy == "" && !k.only2 {
		return
	}
	ev.Surface = SurfaceAPI
	if ev.QuestionAsked != nil {
		ev.QuestionAsked.Surface = SurfaceAPI
	}
	if ev.PermissionAsked != nil {
		ev.PermissionAsked.Surface = SurfaceAPI
	}
}

// required returns the first name (of name, value pairs) whose value is
// empty, or "".
func required(pairs ...string) string {
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] == "" {
			return pairs[i]
		}
	}
	return ""
}

// kindOf returns the entry of eventKinds for type name, or nil.
func kindOf(name string) *eventKind {
	for i := range eventKinds {
		if eventKinds[i].name == name {
			return &eventKinds[i]
		}
	}
	return nil
}

// newProperties sets the pointer matching ev.Type to a zero value and
// returns it, for json to decode into.
func (ev *Event) newProperties() any {
	if k := kindOf(ev.Type); k != nil && k.props != nil {
		return k.props(ev)
	}
	return new(struct{})
}

// missingField names a field hermes-bot cannot do without that ev lacks,
// or returns "".
func (ev *Event) missingField() string {
	if k := kindOf(ev.Type); k != nil && k.missing != nil {
		return k.missing(ev)
	}
	return ""
}

// SessionID returns the session the event belongs to, or "" for an event
// of no session (server.*, a session.error without one). Events of one
// session must be handled in order; those of different sessions need not.
func (ev Event) SessionID() string {
	if k := kindOf(ev.Type); k != nil && k.session != nil {
		return k.session(&ev)
	}
	return ""
}

// relevantType maps a raw type of 1.x to its constant. Comparing
// string(b) does not allocate, so an irrelevant record costs nothing here.
func (er *EventReader) relevantType(b []byte) (string, bool) {
	for i := range eventKinds {
		k := &eventKinds[i]
		if k.name == string(b) && !k.only2 && (er.live || !k.live) {
			return k.name, true
		}
	}
	return "", false
}

// These errors describe a record payloadType cannot read.
var (
	errNotObject     = errors.New("record is not a JSON object")
	errTruncated     = errors.New("record ends inside a JSON value")
	errSyntax        = errors.New("JSON syntax error")
	errNoPayloadType = errors.New("record has no payload.type string")
	errNoType        = errors.New("record has no type string")
	errNoKey         = errors.New("object lacks the key")
)

// payloadType returns the raw bytes of the string payload.type in a record
// {"directory":…,"payload":{"type":…,…},…}. It walks keys and skips values
// without decoding or allocating, and stops as soon as it has the type:
// whatever follows is only checked by json.Unmarshal, for relevant records.
func payloadType(b []byte) ([]byte, error) {
	i, err := valueOf(b, 0, "payload")
	if errors.Is(err, errNoKey) {
		return nil, errNoPayloadType
	}
	if err != nil {
		return nil, err
	}
	typ, err := stringValue(b, i, "type", errNoPayloadType)
	if errors.Is(err, errNotObject) {
		return nil, errNoPayloadType
	}
	return typ, err
}

// stringValue returns the raw contents of the string under key in the
// object that opens at b[i]; missing when the object has no such string.
func stringValue(b []byte, i int, key string, missing error) ([]byte, error) {
	i, err := valueOf(b, i, key)
	if errors.Is(err, errNoKey) {
		return nil, missing
	}
	if err != nil {
		return nil, err
	}
	if i >= len(b) || b[i] != '"' {
		return nil, missing
	}
	end, err := skipString(b, i)
	if err != nil {
		return nil, missing
	}
	return b[i+1 : end-1], nil
}

// valueOf returns the index of the value of key in the object that opens
// at b[i], or errNoKey when the object has no such key.
func valueOf(b []byte, i int, key string) (int, error) {
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != '{' {
		return 0, errNotObject
	}
	i++
	for {
		k, next, err := nextKey(b, i)
		if err != nil {
			return 0, err
		}
		if k == nil {
			return 0, errNoKey
		}
		if string(k) == key {
			return next, nil
		}
		if i, err = skipValue(b, next); err != nil {
			return 0, err
		}
	}
}

// nextKey reads `[,] "key" :` starting at i, inside an object. It returns
// the raw key and the index of its value, or a nil key at the object's end.
func nextKey(b []byte, i int) (key []byte, next int, err error) {
	i = skipSpace(b, i)
	if i < len(b) && b[i] == ',' {
		i = skipSpace(b, i+1)
	}
	if i >= len(b) {
		return nil, 0, errTruncated
	}
	if b[i] == '}' {
		return nil, i + 1, nil
	}
	if b[i] != '"' {
		return nil, 0, errSyntax
	}
	end, err := skipString(b, i)
	if err != nil {
		return nil, 0, err
	}
	key = b[i+1 : end-1]
	i = skipSpace(b, end)
	if i >= len(b) || b[i] != ':' {
		return nil, 0, errSyntax
	}
	return key, skipSpace(b, i+1), nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index just past the string that opens at b[i].
func skipString(b []byte, i int) (int, error) {
	i++
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return 0, errTruncated
		}
		i += j
		// The quote is escaped when an odd number of backslashes precede it.
		k := i - 1
		for k >= 0 && b[k] == '\\' {
			k--
		}
		i++
		if (i-2-k)%2 == 0 {
			return i, nil
		}
	}
}

// skipValue returns the index just past the value that starts at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errTruncated
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				end, err := skipString(b, i)
				if err != nil {
					return 0, err
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
			i++
		}
		return 0, errTruncated
	default:
		// A number, true, false or null runs to the next delimiter.
		start := i
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				if i == start {
					return 0, errSyntax
				}
				return i, nil
			case '{', '[', '"', ':':
				return 0, errSyntax
			}
			i++
		}
		return 0, errTruncated
	}
}
