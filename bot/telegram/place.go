package telegram

import (
	"encoding/json"

	"github.com/hermes-bot/hermes-bot/pending"
)

// Name is the Telegram front-end's name, under which the store keeps its
// places, owed edits and State.
const Name = "telegram"

// place is where a message is in Telegram: its chat, its ID, and the
// forum topic it is in (0: none). Its JSON is the front-end's
// pending.Place, the shape the store of hermes-bot 03d8d17 kept, so those
// places read as Telegram's.
type place struct {
	Chat    int64 `json:"chat"`
	Message int   `json:"message,omitempty"`
	Thread  int   `json:"thread,omitempty"`
}

// encode is p as the life cycle keeps it; "" when p names no message.
func (p place) encode() pending.Place {
	if p.Message == 0 {
		return ""
	}
	raw, _ := json.Marshal(p) // a struct of integers always encodes
	return pending.Place(raw)
}

// placeAt is the place at encodes; zero when it is not Telegram's.
func placeAt(at pending.Place) place {
	var p place
	if json.Unmarshal([]byte(at), &p) != nil {
		return place{}
	}
	return p
}
