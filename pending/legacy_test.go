package pending

import (
	"testing"
)

// The upgrade reads records of the shape before Place; a record holding
// both shapes keeps the new fields, the old filling only what the new
// leave empty.
func TestLegacyReaders(t *testing.T) {
	e, err := legacyEntry([]byte(`{"uid":"u1","place":{"chat":-6,"message":8},"chatID":-5,"messageID":7,"promptMessageID":9}`))
	if err != nil {
		t.Fatal(err)
	}
	if e.Place != (Place{Chat: -6, Message: 8}) || e.Prompt != 9 || e.UID != "u1" {
		t.Errorf("decoded %+v", e)
	}
	e, err = legacyEntry([]byte(`{"uid":"u2","chatID":-5,"messageID":7,"threadID":3}`))
	if err != nil || e.Place != (Place{Chat: -5, Message: 7, Thread: 3}) {
		t.Errorf("old entry decoded as %+v, %v", e, err)
	}
	ed, err := legacyEdit([]byte(`{"chatID":-5,"messageID":7,"text":"x","at":"2025-03-04T05:06:07Z"}`))
	if err != nil || ed.Place != (Place{Chat: -5, Message: 7}) || ed.Text != "x" || ed.At.IsZero() {
		t.Errorf("old owed edit decoded as %+v, %v", ed, err)
	}
	c, err := legacyClosed([]byte(`{"toast":"t","chatID":-5,"messageID":7,"requestID":"que_1","text":"y"}`))
	if err != nil || c.Place != (Place{Chat: -5, Message: 7}) || c.RequestID != "que_1" || c.Text != "y" || c.Toast != "t" {
		t.Errorf("old closed request decoded as %+v, %v", c, err)
	}
	if _, err := legacyEntry([]byte(`{"uid":`)); err == nil {
		t.Error("a broken record decoded")
	}
}
