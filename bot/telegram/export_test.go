package telegram

import "github.com/hermes-bot/hermes-bot/pending"

// MessageAt is the message ID of Telegram place at (0: none), for tests.
func MessageAt(at pending.Place) int { return placeAt(at).Message }

// PlaceFor is the Telegram place of message msg of chat, for tests.
func PlaceFor(chat int64, msg int) pending.Place { return place{Chat: chat, Message: msg}.encode() }

// ThreadAt is the forum thread of Telegram place at (0: none), for tests.
func ThreadAt(at pending.Place) int { return placeAt(at).Thread }
