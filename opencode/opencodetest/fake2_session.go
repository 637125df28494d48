package opencodetest

import (
	"encoding/json"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// fakeSession2 is a session of a Server2.
type fakeSession2 struct {
	id, parentID, title, directory string
	created, updated               int64 // Unix milliseconds
	seq                            int   // creation order: newest is highest
}

// info is the session as Session.Info: the keys the schema requires, and
// parentID for a child.
func (f *fakeSession2) info() map[string]any {
	m := map[string]any{
		"id": f.id, "projectID": Server2ProjectID, "title": f.title, "cost": 0,
		"tokens":   map[string]any{"input": 0, "output": 0, "reasoning": 0, "cache": map[string]int{"read": 0, "write": 0}},
		"time":     map[string]int64{"created": f.created, "updated": f.updated},
		"location": map[string]string{"directory": f.directory},
	}
	if f.parentID != "" {
		m["parentID"] = f.parentID
	}
	return m
}

// AddSession makes session sid exist in directory with title, as GET
// /api/session and GET /api/session/{sid} list it; a session that exists
// already keeps its times and takes the new directory and title.
func (s *Server2) AddSession(sid, directory, title string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.sessionLocked(sid)
	f.directory, f.title = directory, title
	s.broadcastLocked()
}

// sessionLocked returns session sid, creating it in "/" without a title
// when unknown: every session a test names exists.
func (s *Server2) sessionLocked(sid string) *fakeSession2 {
	if f, ok := s.sessions[sid]; ok {
		return f
	}
	s.sessionSeq++
	now := time.Now().UnixMilli()
	f := &fakeSession2{id: sid, directory: "/", created: now, updated: now, seq: s.sessionSeq}
	s.sessions[sid] = f
	return f
}

// touchLocked notes that session sid changed now, creating it if unknown.
func (s *Server2) touchLocked(sid string) {
	if sid == "" {
		return
	}
	f := s.sessionLocked(sid)
	f.updated = max(f.updated, time.Now().UnixMilli())
}

// handleListSessions lists sessions newest first (order=asc: oldest
// first), of directory when the query names one, at most limit. The fake
// answers one page: it hands out no cursor, so any is invalid.
func (s *Server2) handleListSessions(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	dir := q.Get("directory")
	if q.Has("directory") && !path.IsAbs(dir) {
		fakeInvalid(w, "Query", "Expected an absolute path, got \""+dir+"\"")
		return
	}
	limit := 50
	if q.Has("limit") {
		n, err := strconv.Atoi(q.Get("limit"))
		if err != nil || n < 1 {
			fakeInvalid(w, "Query", "Expected a positive integer, got \""+q.Get("limit")+"\"")
			return
		}
		limit = n
	}
	order := q.Get("order")
	if order != "" && order != "asc" && order != "desc" {
		fakeInvalid(w, "Query", "Expected \"asc\" or \"desc\", got \""+order+"\"")
		return
	}
	if q.Has("cursor") {
		fakeTagged(w, http.StatusBadRequest, "InvalidCursorError", "Invalid cursor")
		return
	}
	s.mu.Lock()
	var list []*fakeSession2
	for _, f := range s.sessions {
		if dir == "" || f.directory == dir {
			list = append(list, f)
		}
	}
	slices.SortFunc(list, func(a, b *fakeSession2) int { return b.seq - a.seq })
	if order == "asc" {
		slices.Reverse(list)
	}
	data := make([]any, 0, min(limit, len(list)))
	for _, f := range list[:min(limit, len(list))] {
		data = append(data, f.info())
	}
	s.mu.Unlock()
	fakeWriteJSON(w, http.StatusOK, map[string]any{"data": data, "cursor": struct{}{}})
}

// handleCreateSession creates a session: the given id or the next free
// ses_N, in location.directory ("/" when none), or at its parent's.
func (s *Server2) handleCreateSession(w http.ResponseWriter, r *http.Request) {
	var body struct {
		ID       string `json:"id"`
		ParentID string `json:"parentID"`
		Title    string `json:"title"`
		Location *struct {
			Directory   string `json:"directory"`
			WorkspaceID string `json:"workspaceID"`
		} `json:"location"`
		Agent       json.RawMessage `json:"agent"`
		Model       json.RawMessage `json:"model"`
		Metadata    json.RawMessage `json:"metadata"`
		Permissions json.RawMessage `json:"permissions"`
	}
	if err := decodeStrict(fakeBody(r), &body); err != nil {
		fakeInvalid(w, "Payload", "Expected {\"id\"?, \"parentID\"?, \"title\"?, \"location\"?: {\"directory\"}, …}: "+err.Error())
		return
	}
	for _, id := range []string{body.ID, body.ParentID} {
		if id != "" && !strings.HasPrefix(id, "ses") {
			fakeInvalid(w, "Payload", "Expected a string matching the pattern ^ses, got \""+id+"\"")
			return
		}
	}
	dir := "/"
	if body.Location != nil {
		if !path.IsAbs(body.Location.Directory) {
			fakeInvalid(w, "Payload", "Expected an absolute path, got \""+body.Location.Directory+"\"")
			return
		}
		dir = body.Location.Directory
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if body.ParentID != "" {
		parent, ok := s.sessions[body.ParentID]
		if !ok {
			sessionNotFound(w, body.ParentID)
			return
		}
		dir = parent.directory
	}
	id := body.ID
	if _, taken := s.sessions[id]; taken {
		fakeTagged(w, http.StatusConflict, "ConflictError", "Session already exists: "+id, "resource", id)
		return
	}
	for n := len(s.sessions) + 1; id == ""; n++ {
		if _, taken := s.sessions["ses_"+strconv.Itoa(n)]; !taken {
			id = "ses_" + strconv.Itoa(n)
		}
	}
	f := s.sessionLocked(id)
	f.parentID, f.title, f.directory = body.ParentID, body.Title, dir
	s.broadcastLocked()
	fakeWriteJSON(w, http.StatusOK, map[string]any{"data": f.info()})
}

func (s *Server2) handleGetSession(w http.ResponseWriter, r *http.Request) {
	sid, ok := session2(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	f, ok := s.sessions[sid]
	var info map[string]any
	if ok {
		info = f.info()
	}
	s.mu.Unlock()
	if !ok {
		sessionNotFound(w, sid)
		return
	}
	fakeWriteJSON(w, http.StatusOK, map[string]any{"data": info})
}

func sessionNotFound(w http.ResponseWriter, sid string) {
	fakeTagged(w, http.StatusNotFound, "SessionNotFoundError", "Session not found: "+sid, "sessionID", sid)
}
