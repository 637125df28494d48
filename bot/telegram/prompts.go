package telegram

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/pending"
)

// Typed text is collected with a force_reply prompt replying to the
// request's message: the prompt's binding to the request and field is
// kept in the front-end's State, so a reply to it is that text, across
// restarts too; text that replies to nothing answers the only prompt
// still open in its thread.

// promptPrefix starts the State key of a prompt's binding; its chat and
// message follow in decimal, ":" between them. The value is a binding in
// JSON.
const promptPrefix = "prompt:"

// promptRetention is how long a binding is kept: a request waits no
// longer than a day.
const promptRetention = 24 * time.Hour

func promptKey(chat int64, message int) string {
	return promptPrefix + strconv.FormatInt(chat, 10) + ":" + strconv.Itoa(message)
}

// binding is what a prompt asks for: the text of request Key's Field (or
// of a reject's reason), from the message Request shows the request in.
type binding struct {
	Key     string    `json:"key"`
	Field   int       `json:"field"`
	Reason  bool      `json:"reason,omitempty"`
	Request place     `json:"request"`
	At      time.Time `json:"at"`
}

// Collect sends the prompt for the text r waits for, replying to r's
// message at at, and binds it to r.Key and field.
func (f *Frontend) Collect(ctx context.Context, at pending.Place, r frontend.Request, field int, reason bool, user frontend.User) error {
	if len(r.Members) == 0 {
		return fmt.Errorf("prompt for %s: no request", r.Key)
	}
	e, p := r.Members[0], placeAt(at)
	var text, placeholder string
	if reason {
		text, placeholder = renderReasonPrompt(f.text, e, user)
	} else {
		text, placeholder = renderPrompt(f.text, e, field, user)
	}
	// Held until the binding is kept, so a reply that comes at once
	// waits for it (see bound).
	f.prompting.RLock()
	defer f.prompting.RUnlock()
	msg, err := f.tg.SendMessage(ctx, htmlMessage(p.Chat, p.Thread, text, &models.ForceReply{
		ForceReply:            true,
		InputFieldPlaceholder: placeholder,
		Selective:             true,
	}, p.Message))
	if err != nil {
		return fmt.Errorf("prompt for %s: %w", r.Key, err)
	}
	now := f.now()
	err = f.state.kv.Update(func(kv pending.KV) error {
		if err := dropPrompts(kv, func(b binding) bool { return b.Key == r.Key || now.Sub(b.At) > promptRetention }); err != nil {
			return err
		}
		raw, err := json.Marshal(binding{Key: r.Key, Field: field, Reason: reason, Request: p, At: now.Round(0)})
		if err != nil {
			return err
		}
		return kv.Put(promptKey(p.Chat, msg.ID), raw)
	})
	if err != nil {
		return fmt.Errorf("prompt for %s: keep it: %w", r.Key, err)
	}
	return nil
}

// dropPrompts deletes the bindings drop accepts, and those that cannot be
// decoded.
func dropPrompts(kv pending.KV, drop func(binding) bool) error {
	var stale []string
	err := kv.ForEach(promptPrefix, func(k string, v []byte) error {
		var b binding
		if json.Unmarshal(v, &b) != nil || drop(b) {
			stale = append(stale, k)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range stale {
		if err := kv.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// forgetPrompts drops the prompts of the request shown at p, which closed.
func (f *Frontend) forgetPrompts(p place) {
	err := f.state.kv.Update(func(kv pending.KV) error {
		return dropPrompts(kv, func(b binding) bool { return b.Request == p })
	})
	if err != nil {
		f.log.Warn().Err(err).Msg("could not forget the prompts of a closed request")
	}
}

// bound returns the binding of the prompt a message of chat replying to
// message replyTo (0: to nothing) in thread answers, and whether there is
// one: the prompt replied to, or the only prompt open in the thread.
func (f *Frontend) bound(core frontend.Core, log zerolog.Logger, chat int64, replyTo, thread int, replyToBot bool) (binding, bool) {
	find := func() (out []binding) {
		_ = f.state.kv.View(func(kv pending.KV) error {
			return kv.ForEach(promptPrefix, func(k string, v []byte) error {
				var b binding
				if json.Unmarshal(v, &b) != nil {
					return nil
				}
				switch {
				case replyTo != 0 && k == promptKey(chat, replyTo):
					out = append(out, b)
				case replyTo == 0 && b.Request.Chat == chat && (!f.threaded() || b.Request.Thread == thread) &&
					core.Awaits(b.Key, b.Field, b.Reason):
					out = append(out, b)
				}
				return nil
			})
		})
		return out
	}
	found := find()
	if len(found) == 0 && replyToBot {
		// The prompt may have been sent but not yet kept.
		f.prompting.Lock()
		f.prompting.Unlock()
		found = find()
	}
	if len(found) != 1 {
		if replyTo == 0 && len(found) > 1 {
			log.Debug().Int("awaiting", len(found)).Msg("ignoring text that replies to nothing: more than one request awaits text")
		}
		return binding{}, false
	}
	return found[0], true
}

// threaded says requests are posted in forum topics, so text that replies
// to nothing answers only a prompt of its own topic.
func (f *Frontend) threaded() bool { return f.cfg.ThreadID != 0 || f.cfg.TopicPerProject }
