package pending_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/pending"
)

func TestPlaceJSON(t *testing.T) {
	raw, err := json.Marshal(pending.Entry{UID: "u1", Place: pending.Place{Chat: -5, Message: 7, Thread: 3}, Prompt: 9})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"place":{"chat":-5,"message":7,"thread":3}`) || !strings.Contains(string(raw), `"prompt":9`) {
		t.Errorf("entry encodes as %s", raw)
	}
	raw, err = json.Marshal(pending.ClosedRequest{Toast: "gone"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "place") {
		t.Errorf("a closed request shown nowhere encodes a place: %s", raw)
	}

	// Both shapes in one record: the new fields win, the old fill only
	// what the new leave empty.
	var e pending.Entry
	if err := json.Unmarshal([]byte(`{"uid":"u1","place":{"chat":-6,"message":8},"chatID":-5,"messageID":7,"promptMessageID":9}`), &e); err != nil {
		t.Fatal(err)
	}
	if e.Place != (pending.Place{Chat: -6, Message: 8}) || e.Prompt != 9 || e.UID != "u1" {
		t.Errorf("decoded %+v", e)
	}
	var ed pending.Edit
	if err := json.Unmarshal([]byte(`{"chatID":-5,"messageID":7,"text":"x","at":"2025-03-04T05:06:07Z"}`), &ed); err != nil {
		t.Fatal(err)
	}
	if ed.Place != (pending.Place{Chat: -5, Message: 7}) || ed.Text != "x" || ed.At.IsZero() {
		t.Errorf("old owed edit decoded as %+v", ed)
	}
	var c pending.ClosedRequest
	if err := json.Unmarshal([]byte(`{"toast":"t","chatID":-5,"messageID":7,"requestID":"que_1","text":"y"}`), &c); err != nil {
		t.Fatal(err)
	}
	if c.Place != (pending.Place{Chat: -5, Message: 7}) || c.RequestID != "que_1" || c.Text != "y" || c.Toast != "t" {
		t.Errorf("old closed request decoded as %+v", c)
	}
}
