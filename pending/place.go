package pending

import "encoding/json"

// Place is where a front-end shows a request: a chat (a group, a channel), a
// message in it, and the thread of the chat it is in. What the numbers mean is the
// front-end's business; the store keeps and indexes them. Message 0: not shown yet.
type Place struct {
	Chat    int64 `json:"chat"`
	Message int   `json:"message,omitempty"`
	Thread  int   `json:"thread,omitempty"`
}

// Files written before Place existed name the place after Telegram:
// chatID, messageID and threadID beside the other fields, and an entry's
// prompt as promptMessageID. A record is read in either shape, so those
// files keep working. legacyPlace holds those old fields.
type legacyPlace struct {
	ChatID    int64 `json:"chatID,omitempty"`
	MessageID int   `json:"messageID,omitempty"`
	ThreadID  int   `json:"threadID,omitempty"`
}

// place returns the Place the old fields name.
func (l legacyPlace) place() Place {
	return Place{Chat: l.ChatID, Message: l.MessageID, Thread: l.ThreadID}
}

// UnmarshalJSON reads an entry in today's shape or in the shape of files
// written before Place (see legacyPlace); a record holding both keeps the
// new fields.
func (e *Entry) UnmarshalJSON(raw []byte) error {
	type plain Entry // without this method, so decoding it does not recurse
	var v struct {
		plain
		legacyPlace
		PromptMessageID int `json:"promptMessageID,omitempty"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	*e = Entry(v.plain)
	if e.Place == (Place{}) {
		e.Place = v.legacyPlace.place()
	}
	if e.Prompt == 0 {
		e.Prompt = v.PromptMessageID
	}
	return nil
}

// UnmarshalJSON reads a closed request in today's shape or in the shape of
// files written before Place.
func (c *ClosedRequest) UnmarshalJSON(raw []byte) error {
	type plain ClosedRequest
	var v struct {
		plain
		legacyPlace
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	*c = ClosedRequest(v.plain)
	if c.Place == (Place{}) {
		c.Place = v.legacyPlace.place()
	}
	return nil
}

// UnmarshalJSON reads an owed edit in today's shape or in the shape of
// files written before Place.
func (e *Edit) UnmarshalJSON(raw []byte) error {
	type plain Edit
	var v struct {
		plain
		legacyPlace
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	*e = Edit(v.plain)
	if e.Place == (Place{}) {
		e.Place = v.legacyPlace.place()
	}
	return nil
}
