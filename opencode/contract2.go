package opencode

import "strings"

// ContractKind says what a ContractEntry describes.
type ContractKind string

// These are the kinds of ContractEntry.
const (
	ContractRoute ContractKind = "route" // an HTTP route
	ContractEvent ContractKind = "event" // a record of an event stream
	ContractShape ContractKind = "shape" // a value outside any route: a file, a part of an answer
)

// ContractEntry is one route, event or shape of OpenCode 2, as read from
// its published source (anomalyco/opencode).
type ContractEntry struct {
	Kind ContractKind
	// Name is "METHOD /path" for a route, with {sid} for the session and
	// {id} for the form, question, permission or saved approval; the type
	// for an event; a short name for a shape.
	Name string
	// Request is a JSON example of a route's body, "" when it has none.
	Request string
	// Example is a JSON example of a route's answer ("" for 204), of one
	// record of a stream, of an event's data, or of a shape.
	Example string
	// Status is a route's status on success.
	Status int
	// Errors are the failures a route documents, by status.
	Errors []ContractError
	// Stream is the route whose stream carries an event.
	Stream string
	// Source is where it was read: "packages/…@commit", several joined by
	// ", ".
	Source string
	// Note says what the source leaves open and what a fake does there.
	Note string
}

// ContractError is a documented failure of a route: its status and the
// _tag of its body.
type ContractError struct {
	Status int
	Tag    string
}

// Method returns a route's method, "" for other kinds.
func (e ContractEntry) Method() string {
	if e.Kind != ContractRoute {
		return ""
	}
	m, _, _ := strings.Cut(e.Name, " ")
	return m
}

// Path returns a route's path pattern, "" for other kinds.
func (e ContractEntry) Path() string {
	if e.Kind != ContractRoute {
		return ""
	}
	_, p, _ := strings.Cut(e.Name, " ")
	return p
}

// The streams of OpenCode 2.
const (
	streamEvents  = "GET /api/event"
	streamChanges = "GET /api/event/changes"
)

// Examples shared by several entries. IDs are plain so a test can use them
// in paths: ses_1, frm_1, que_1, per_1, psv_1.
const (
	contractForm = `{"id":"frm_1","sessionID":"ses_1","title":"Deploy","mode":"form","fields":[` +
		`{"key":"target","title":"Where to?","type":"string","required":true,"options":[{"value":"staging","label":"Staging"},{"value":"prod","label":"Production","description":"Live traffic"}]},` +
		`{"key":"reason","type":"string","required":true,"minLength":3,"maxLength":200,"when":[{"key":"target","op":"eq","value":"prod"}]},` +
		`{"key":"replicas","type":"integer","minimum":1,"maximum":10,"default":2},` +
		`{"key":"notify","type":"boolean","default":true},` +
		`{"key":"channels","type":"multiselect","options":[{"value":"email","label":"Email"},{"value":"chat","label":"Chat"}],"minItems":1,"maxItems":2,"when":[{"key":"notify","op":"eq","value":true}]},` +
		`{"key":"contact","type":"string","format":"email","pattern":"@example\\.com$"}]}`
	contractAnswer     = `{"target":"prod","reason":"hotfix","replicas":3,"notify":true,"channels":["email"],"contact":"ops@example.com"}`
	contractQuestion   = `{"id":"que_1","sessionID":"ses_1","questions":[{"question":"Which database?","header":"Database","options":[{"label":"Postgres","description":"the usual"}]}],"tool":{"messageID":"msg_1","callID":"call_1"}}`
	contractPermission = `{"id":"per_1","sessionID":"ses_1","action":"bash","resources":["git status"],"save":["git status *"],"metadata":{},"source":{"type":"tool","messageID":"msg_1","callID":"call_1"}}`
	contractSaved      = `{"id":"psv_1","projectID":"prj_1","action":"bash","resource":"git status *"}`
	contractSession    = `{"id":"ses_1","projectID":"prj_1","title":"Fix the tests","cost":0,` +
		`"tokens":{"input":0,"output":0,"reasoning":0,"cache":{"read":0,"write":0}},` +
		`"time":{"created":1767225600000,"updated":1767225660000},"location":{"directory":"/home/me/project"}}`

	srcForm        = "packages/schema/src/form.ts@3ece701"
	srcFormGroup   = "packages/protocol/src/groups/form.ts@8c6ff62"
	srcSession     = "packages/protocol/src/groups/session.ts@8c6ff62"
	srcSession01   = "packages/protocol/src/groups/session.ts@01fd0c8"
	srcErrors      = "packages/protocol/src/errors.ts@153b09a"
	srcPermGroup   = "packages/protocol/src/groups/permission.ts@ef5d209"
	srcEventSchema = "packages/schema/src/event.ts@a2cc772"
	noteAnswer1x   = "the table gives no answer; the fake answers as opencode 1.x's /api surface does"
	noteBadBody    = "a malformed body: the fake answers 400 InvalidRequestError, as opencode 1.x's /api surface does"
)

// Contract2 returns every route, event and shape hermes-bot uses of
// OpenCode 2. "What hermes-bot uses of OpenCode 2" in docs/opencode2.md is its
// copy for users; a test keeps the two alike. A function, not a variable,
// so a binary that never calls it carries none of it.
func Contract2() []ContractEntry {
	return []ContractEntry{
		{
			Kind: ContractShape, Name: "service.json",
			Example: `{"id":"svc_1","version":"2.0.0","url":"http://127.0.0.1:49374","pid":4242,"password":"secret"}`,
			Source:  "packages/client/src/service-probe.ts@7e91214, packages/cli/src/services/service-registration.ts@894630a",
			Note:    "in $XDG_STATE_HOME/opencode, else ~/.local/state/opencode; mode 0600, renamed into place; id, version and password may be missing",
		},
		{
			Kind: ContractRoute, Name: "GET /api/health", Status: 200,
			Example: `{"healthy":true,"version":"2.0.0","pid":4242}`,
			Source:  "packages/protocol/src/groups/health.ts@7c3c912, packages/client/src/promise/service.ts@17ae0e0",
		},
		{
			Kind: ContractRoute, Name: "GET /api/info", Status: 200,
			Example: `{"version":"2.0.0","pid":4242,"urls":["http://127.0.0.1:49374"],"paths":{}}`,
			Source:  "packages/protocol/src/groups/server.ts@8f1e7f9, packages/client/src/service-probe.ts@7e91214",
			Note:    "what urls and paths hold was not read; the fake answers its own URL and no paths",
		},
		{
			Kind: ContractRoute, Name: streamEvents, Status: 200,
			Example: `{"id":"evt_1","created":1767225600000,"type":"server.connected","data":{}}`,
			Source:  srcEventSchema + ", packages/server/src/handlers/event.ts@a2cc772, packages/protocol/src/groups/event.ts@f32c8a4",
			Note:    "server-sent events, one envelope per record, a \": heartbeat\" comment every 15 s; location, metadata and durable may be added",
		},
		{
			Kind: ContractRoute, Name: streamChanges, Status: 200,
			Example: `{"type":"log.sweep_required"}`,
			Source:  "packages/schema/src/event-log.ts@2d6e2bb",
			Note:    "server-sent events without the envelope",
		},
		{
			Kind: ContractShape, Name: "form", Example: contractForm, Source: srcForm,
			Note: "a field's when is one condition with a string value in @23699db; mode \"url\" has a url instead of fields",
		},
		{
			Kind: ContractRoute, Name: "GET /api/session/{sid}/form", Status: 200,
			Example: `{"data":[` + contractForm + `]}`, Source: srcFormGroup,
			Note: "{location, data} in @23699db",
		},
		{
			Kind: ContractRoute, Name: "POST /api/session/{sid}/form/{id}/reply", Status: 204,
			Request: `{"answer":` + contractAnswer + `}`,
			Errors:  []ContractError{{400, "FormInvalidAnswerError"}, {404, "FormNotFoundError"}, {409, "FormAlreadySettledError"}},
			Source:  srcFormGroup + ", " + srcErrors,
		},
		{
			Kind: ContractRoute, Name: "POST /api/session/{sid}/form/{id}/cancel", Status: 204,
			Errors: []ContractError{{404, "FormNotFoundError"}, {409, "FormAlreadySettledError"}},
			Source: srcFormGroup,
			Note:   "the cancel of @8c6ff62, DELETE …/form/{id} in @01fd0c8; the errors are documented for reply; the fake answers cancel alike",
		},
		{
			Kind: ContractRoute, Name: "DELETE /api/session/{sid}/form/{id}", Status: 204,
			Errors: []ContractError{{404, "FormNotFoundError"}, {409, "FormAlreadySettledError"}},
			Source: srcSession01 + ", " + srcErrors,
			Note:   "the cancel of @01fd0c8, which has no POST …/cancel; ?message= tells the asker why; also 404 SessionNotFoundError",
		},
		{
			Kind: ContractRoute, Name: "GET /api/session/{sid}/form/{id}/state", Status: 200,
			Example: `{"data":{"status":"answered","answer":` + contractAnswer + `}}`,
			Errors:  []ContractError{{404, "FormNotFoundError"}}, Source: srcFormGroup + ", " + srcForm,
			Note: "status pending, answered (with answer) or cancelled",
		},
		{Kind: ContractEvent, Name: "form.created", Stream: streamEvents, Example: `{"form":` + contractForm + `}`, Source: srcForm},
		{Kind: ContractEvent, Name: "form.replied", Stream: streamEvents, Example: `{"id":"frm_1","sessionID":"ses_1","answer":` + contractAnswer + `}`, Source: srcForm},
		{Kind: ContractEvent, Name: "form.cancelled", Stream: streamEvents, Example: `{"id":"frm_1","sessionID":"ses_1"}`, Source: srcForm},
		{Kind: ContractEvent, Name: "question.v2.asked", Stream: streamEvents, Example: contractQuestion, Source: "packages/schema/src/question.ts@3ece701"},
		{
			Kind: ContractRoute, Name: "GET /api/session/{sid}/question", Status: 200,
			Example: `{"data":[` + contractQuestion + `]}`,
			Source:  "packages/protocol/src/groups/question.ts@8c6ff62", Note: noteAnswer1x,
		},
		{
			Kind: ContractRoute, Name: "POST /api/session/{sid}/question/{id}/reply", Status: 204,
			Request: `{"answers":[["Postgres"]]}`,
			Errors:  []ContractError{{404, "QuestionNotFoundError"}},
			Source:  "packages/protocol/src/groups/question.ts@8c6ff62", Note: noteAnswer1x + "; " + noteBadBody,
		},
		{
			Kind: ContractRoute, Name: "POST /api/session/{sid}/question/{id}/reject", Status: 204,
			Errors: []ContractError{{404, "QuestionNotFoundError"}},
			Source: "packages/protocol/src/groups/question.ts@8c6ff62", Note: noteAnswer1x,
		},
		{
			Kind: ContractEvent, Name: "permission.v2.asked", Stream: streamEvents, Example: contractPermission,
			Source: "packages/schema/src/permission.ts@3ece701", Note: "plus reason? in @047544f",
		},
		{
			Kind: ContractEvent, Name: "permission.asked", Stream: streamEvents, Example: contractPermission,
			Source: "packages/schema/src/event-manifest.ts@3ece701",
			Note:   "the 1.x spelling, kept during the migration; its data under this name was not read, the fake sends the v2 data",
		},
		{
			Kind: ContractRoute, Name: "GET /api/session/{sid}/permission", Status: 200,
			Example: `{"data":[` + contractPermission + `]}`, Source: srcPermGroup, Note: noteAnswer1x,
		},
		{
			Kind: ContractRoute, Name: "POST /api/session/{sid}/permission/{id}/reply", Status: 204,
			Request: `{"reply":"always","message":"fine"}`,
			Errors:  []ContractError{{404, "PermissionNotFoundError"}},
			Source:  srcPermGroup, Note: "reply once, always or reject; " + noteBadBody,
		},
		{
			Kind: ContractRoute, Name: "GET /api/permission/saved", Status: 200,
			Example: `{"data":[` + contractSaved + `]}`,
			Source:  srcPermGroup + ", packages/schema/src/permission-saved.ts@6ac446e",
			Note:    "?projectID= narrows the list",
		},
		{
			Kind: ContractRoute, Name: "DELETE /api/permission/saved/{id}", Status: 204, Source: srcPermGroup,
			Note: "an unknown id is not documented; the fake answers 204",
		},
		{
			Kind: ContractShape, Name: "session", Example: contractSession,
			Source: "packages/schema/src/session.ts@a2cc772, " + srcSession01,
			Note: "Session.Info, times in ms; also parentID? (a child's), fork?, agent?, model?, time.archived?, subpath?, revert?; " +
				"location {directory, workspaceID?}; hermes-bot reads id, parentID, title, location.directory and time",
		},
		{
			Kind: ContractRoute, Name: "GET /api/session", Status: 200,
			Example: `{"data":[` + contractSession + `],"cursor":{"next":"eyJhbmNob3IiOnt9fQ"}}`,
			Source:  srcSession01,
			Note: "query directory?, limit? (the newest 50), order? asc or desc, cursor? (a page's cursor.previous or next), project?, search?, parentID?; " +
				"a bad one is 400 InvalidRequestError or InvalidCursorError; the fake lists newest first (order=asc oldest), of directory when given, in one page, cursor {}",
		},
		{
			Kind: ContractRoute, Name: "POST /api/session", Status: 200,
			Request: `{"title":"Fix the tests","location":{"directory":"/home/me/project"}}`,
			Example: `{"data":` + contractSession + `}`,
			Source:  srcSession01,
			Note: "also id?, parentID? (a child at its parent's location; an unknown one is 404 SessionNotFoundError), agent?, model?, metadata?, permissions?; " +
				"without location the fake uses \"/\" and names the session ses_N; " + noteBadBody,
		},
		{
			Kind: ContractRoute, Name: "GET /api/session/{sid}", Status: 200,
			Example: `{"data":` + contractSession + `}`,
			Errors:  []ContractError{{404, "SessionNotFoundError"}},
			Source:  srcSession01 + ", " + srcErrors,
			Note:    "the fake knows every session a test named, in \"/\" without a title unless made otherwise",
		},
		{
			Kind: ContractRoute, Name: "POST /api/session/{sid}/prompt", Status: 204,
			Request: `{"id":"msg_2","prompt":{"text":"Run the tests"},"delivery":"queue"}`,
			Source:  srcSession + ", " + srcSession01 + ", packages/schema/src/prompt-input.ts@fd379c6, packages/schema/src/session-delivery.ts@9e3d245",
			Note: "@8c6ff62 as the example, 204; @01fd0c8 takes the prompt's fields at the top level ({id?, text, files?, agents?, metadata?, delivery?, resume?}) " +
				"and answers 200 {data: the inbox item}; both schemas ignore unknown keys, so a body may carry both shapes; " +
				"the fake takes either or both (equal texts, else 400 InvalidRequestError) and answers 204; delivery steer or queue; " + noteBadBody,
		},
		{
			Kind: ContractRoute, Name: "GET /api/session/active", Status: 200,
			Example: `{"data":{"ses_1":{"type":"running"}}}`,
			Source:  "packages/protocol/src/groups/session.ts@01fd0c8",
			Note:    "the sessions this process runs a turn of; absent means inactive; the fake also counts a session with a pending form, question or permission",
		},
		{
			Kind: ContractRoute, Name: "POST /api/session/{sid}/interrupt", Status: 204, Source: srcSession + ", " + srcSession01,
			Note: "a no-op when the session is idle: 204 in @8c6ff62; 200 {\"interrupted\": bool}, false when idle, in @01fd0c8; the fake answers 204",
		},
		{Kind: ContractEvent, Name: "session.execution.succeeded", Stream: streamEvents, Example: `{"sessionID":"ses_1"}`, Source: "packages/schema/src/session-event.ts@9dd9ee6, packages/schema/src/session-event.ts@0313097"},
		{Kind: ContractEvent, Name: "session.execution.failed", Stream: streamEvents, Example: `{"sessionID":"ses_1","error":{"type":"provider","message":"rate limited"}}`, Source: "packages/schema/src/session-event.ts@9dd9ee6, packages/schema/src/session-event.ts@0313097"},
		{
			Kind: ContractEvent, Name: "session.execution.interrupted", Stream: streamEvents, Example: `{"sessionID":"ses_1","reason":"user"}`,
			Source: "packages/schema/src/session-event.ts@9dd9ee6, packages/schema/src/session-event.ts@0313097", Note: "reason user, shutdown or superseded",
		},
		{
			Kind: ContractEvent, Name: "session.status", Stream: streamEvents, Example: `{"sessionID":"ses_1","status":{"type":"idle"}}`,
			Source: "packages/schema/src/session-status-event.ts@3ece701", Note: "status type idle, busy or retry",
		},
		{Kind: ContractEvent, Name: "server.connected", Stream: streamEvents, Example: `{}`, Source: srcEventSchema + ", packages/server/src/handlers/event.ts@a2cc772", Note: "first on every connect; its data was not read, the fake sends {}"},
		{Kind: ContractEvent, Name: "log.sweep_required", Stream: streamChanges, Example: `{"type":"log.sweep_required"}`, Source: "packages/schema/src/event-log.ts@2d6e2bb", Note: "first on every connect and whenever hints were lost"},
		{Kind: ContractEvent, Name: "log.hint", Stream: streamChanges, Example: `{"type":"log.hint","aggregateID":"ses_1","seq":3}`, Source: "packages/schema/src/event-log.ts@2d6e2bb", Note: "which aggregates there are was not read; the fake uses the session"},
	}
}

// Sources of Contract2Phone.
const (
	srcSessionEvent = "packages/schema/src/session-event.ts@0313097"
	srcModel        = "packages/schema/src/model.ts@24c7576"
)

// Contract2Phone returns what the calls for a person away from the
// terminal use of OpenCode 2 (RecentContext, PromptFiles, SessionModel,
// live status), read as Contract2's entries are. They stay apart from
// Contract2 until opencodetest.Server2 serves them; docs/opencode2.md
// holds their table too.
func Contract2Phone() []ContractEntry {
	return []ContractEntry{
		{
			Kind: ContractRoute, Name: "GET /api/session/{sid}/message", Status: 200,
			Example: `{"data":[{"id":"msg_2","type":"assistant","agent":"build","model":{"id":"m","providerID":"p"},"content":[` +
				`{"type":"text","text":"Two tests fail."},` +
				`{"type":"tool","id":"call_1","name":"bash","state":{"status":"running","input":{"command":"go test ./..."},"metadata":{}},"time":{"created":1767225600000}}],` +
				`"time":{"created":1767225600000}},` +
				`{"id":"msg_1","type":"user","text":"Fix the tests","time":{"created":1767225500000}}],"cursor":{}}`,
			Errors: []ContractError{{404, "SessionNotFoundError"}},
			Source: "packages/protocol/src/groups/message.ts@17dce3a, packages/schema/src/session-message.ts@0ceb3dd",
			Note: "query limit? (1 to 200), order? asc or desc, cursor?; hermes-bot asks limit=8&order=desc; a message's type is user, assistant, " +
				"synthetic, system, shell, compaction, idle, …; an assistant's content holds text, reasoning and tool parts, a tool's state.input " +
				"a string while streaming; that a tool part's id is the call's ID is not stated",
		},
		{
			Kind: ContractRoute, Name: "GET /api/model", Status: 200,
			Example: `{"location":{"directory":"/home/me/project","project":{"id":"prj_1","directory":"/home/me/project"}},"data":[` +
				`{"id":"m","modelID":"m","providerID":"p","name":"M","capabilities":{"tools":true,"input":["text","image"],"output":["text"]},` +
				`"variants":[],"time":{"released":0},"cost":[],"status":"active","enabled":true,"limit":{"context":200000,"output":32000}}]}`,
			Source: "packages/protocol/src/groups/model.ts@1652328, " + srcModel + ", packages/schema/src/location.ts@0f6c270",
			Note:   "query location[directory]? (deepObject); capabilities.input lists what the model takes (default text and image); hermes-bot reads id, providerID, name and capabilities.input",
		},
		{
			Kind: ContractShape, Name: "session model", Example: `{"id":"m","providerID":"p","variant":"default"}`,
			Source: "packages/schema/src/session.ts@a2cc772, " + srcModel,
			Note:   "Session.Info.model?, a Model.Ref; a session without one is ErrNotFound to SessionModel",
		},
		{
			Kind: ContractShape, Name: "prompt file", Example: `{"uri":"data:image/png;base64,iVBORw0KGgo=","mime":"image/png","name":"photo.png"}`,
			Source: "packages/schema/src/prompt-input.ts@1bfd211",
			Note:   "an element of the prompt's files (under prompt and at the top level); mime?, name?, description?; which URI schemes are read is not defined, hermes-bot sends a data: URL as to 1.x",
		},
		{
			Kind: ContractEvent, Name: "session.tool.input.started", Stream: streamEvents, Source: srcSessionEvent,
			Example: `{"sessionID":"ses_1","assistantMessageID":"msg_2","callID":"call_1","name":"bash"}`,
			Note:    "the only tool event that names the tool",
		},
		{
			Kind: ContractEvent, Name: "session.tool.called", Stream: streamEvents, Source: srcSessionEvent,
			Example: `{"sessionID":"ses_1","assistantMessageID":"msg_2","callID":"call_1","input":{"command":"go test ./..."},"executed":true}`,
		},
		{
			Kind: ContractEvent, Name: "session.tool.success", Stream: streamEvents, Source: srcSessionEvent,
			Example: `{"sessionID":"ses_1","assistantMessageID":"msg_2","callID":"call_1","content":[{"type":"text","text":"ok"}],"executed":true}`,
		},
		{
			Kind: ContractEvent, Name: "session.tool.failed", Stream: streamEvents, Source: srcSessionEvent,
			Example: `{"sessionID":"ses_1","assistantMessageID":"msg_2","callID":"call_1","error":{"type":"tool","message":"exit 1"},"executed":true}`,
		},
		{
			Kind: ContractEvent, Name: "session.step.ended", Stream: streamEvents, Source: srcSessionEvent,
			Example: `{"sessionID":"ses_1","assistantMessageID":"msg_2","finish":"tool-calls","cost":0.0123,"tokens":{"input":1200,"output":80,"reasoning":0,"cache":{"read":500,"write":0}}}`,
			Note:    "cost in US dollars; tokens as Session.Info's",
		},
	}
}
