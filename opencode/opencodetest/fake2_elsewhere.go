package opencodetest

import "fmt"

// RefuseNextReply makes the next reply to form id fail with
// FormInvalidAnswerError carrying message, as a server whose own checks
// go further than a client's would.
func (s *Server2) RefuseNextReply(id, message string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refuse == nil {
		s.refuse = map[string]string{}
	}
	s.refuse[id] = message
}

// takeRefusalLocked returns and forgets the refusal set for form id.
func (s *Server2) takeRefusalLocked(id string) (string, bool) {
	m, ok := s.refuse[id]
	delete(s.refuse, id)
	return m, ok
}

// AnswerForm answers pending form id as another client would: its state
// becomes answered and form.replied is sent. Nothing is recorded in
// Replies, which hold only what the server was sent.
func (s *Server2) AnswerForm(id string, answer map[string]any) error {
	return s.settleElsewhere(id, FormState{Status: "answered", Answer: answer}, "form.replied")
}

// CancelFormElsewhere cancels pending form id as another client would,
// sending form.cancelled.
func (s *Server2) CancelFormElsewhere(id string) error {
	return s.settleElsewhere(id, FormState{Status: "cancelled"}, "form.cancelled")
}

func (s *Server2) settleElsewhere(id string, st FormState, typ string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.forms {
		if f.ID != id {
			continue
		}
		if f.state.Status != "pending" {
			return fmt.Errorf("opencodetest: form %s is %s already", id, f.state.Status)
		}
		f.state = st
		data := map[string]any{"id": id, "sessionID": f.SessionID}
		if st.Answer != nil {
			data["answer"] = st.Answer
		}
		s.sendLocked(Event2{Type: typ, Data: data})
		s.hintLocked(f.SessionID)
		s.broadcastLocked()
		return nil
	}
	return fmt.Errorf("opencodetest: no form %s", id)
}
