package telegram_test

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/telegram"
	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// fileCall is one PromptFiles call.
type fileCall struct {
	id, text string
	files    []opencode.File
	max      int64
}

func (o *recordingOpencode) PromptFiles(_ context.Context, _, id, text string, files []opencode.File, max int64) error {
	if o.steer == nil {
		return errNoSteer
	}
	o.steer.mu.Lock()
	defer o.steer.mu.Unlock()
	o.steer.files = append(o.steer.files, fileCall{id: id, text: text, files: files, max: max})
	return nil
}

func (o *recordingOpencode) SessionModel(_ context.Context, _, id string) (opencode.ModelInfo, error) {
	if o.steer == nil {
		return opencode.ModelInfo{}, errNoSteer
	}
	o.steer.mu.Lock()
	defer o.steer.mu.Unlock()
	return opencode.ModelInfo{ProviderID: "p", ID: "m", Image: !o.steer.textOnly}, nil
}

func (s *steerOpencode) fileCalls() []fileCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.files)
}

// reactionsOn returns the reactions the bot set on message id, in order,
// "" for one cleared.
func reactionsOn(t *testing.T, srv *telegramtest.Server, id int) []string {
	t.Helper()
	var out []string
	for _, r := range srv.RequestsFor("setMessageReaction") {
		if r.Params["message_id"] != strconv.Itoa(id) {
			continue
		}
		var rs []struct{ Emoji string }
		if r.Params["reaction"] != "" {
			if err := json.Unmarshal([]byte(r.Params["reaction"]), &rs); err != nil {
				t.Fatalf("reaction %q: %v", r.Params["reaction"], err)
			}
		}
		e := ""
		for _, x := range rs {
			e += x.Emoji
		}
		out = append(out, e)
	}
	return out
}

// replyTo waits for the bot's message replying to id.
func replyTo(ctx context.Context, t *testing.T, r *rig, id int) telegramtest.Message {
	t.Helper()
	m, err := r.srv.WaitMessage(ctx, chatID, func(m telegramtest.Message) bool { return m.FromBot && m.ReplyTo == id })
	if err != nil {
		t.Fatalf("no reply to message %d: %v", id, err)
	}
	return m
}

// A reply to a session opencode no longer knows is answered with why, and
// its 👀 taken back.
func TestTelegramSteerFailureReplies(t *testing.T) {
	r, st, ctx := startSteerRig(t, ann.ID)
	notice := r.idle(ctx, t)
	if err := r.store.RememberMessage(telegram.Name, telegram.PlaceFor(chatID, notice.ID), pending.SessionRef{Directory: "/home/user/projects/demo", ID: "ses_gone"}); err != nil {
		t.Fatal(err)
	}
	id, err := r.srv.Reply(chatID, notice.ID, ann, "go on")
	if err != nil {
		t.Fatal(err)
	}
	reply := replyTo(ctx, t, r, id)
	if !strings.Contains(reply.PlainText, "opencode no longer knows that session") {
		t.Errorf("failure reply %q does not say why", reply.PlainText)
	}
	if got := reactionsOn(t, r.srv, id); !slices.Equal(got, []string{"👀", ""}) {
		t.Errorf("reactions = %q, want 👀 then cleared", got)
	}
	if p, _ := st.calls(); len(p) != 0 {
		t.Errorf("prompts %q", p)
	}
}

// With reactions refused (off in the group), the old one-line reply
// confirms instead, and the refusal is logged as a warning once.
func TestTelegramSteerReactionFallback(t *testing.T) {
	r, st, ctx := startSteerRig(t, ann.ID)
	notice := r.idle(ctx, t)
	r.srv.FailNextN("setMessageReaction", 4, telegramtest.Fault{Code: 400, Description: "Bad Request: REACTION_INVALID"})
	for i, text := range []string{"first", "second"} {
		id, err := r.srv.Reply(chatID, notice.ID, ann, text)
		if err != nil {
			t.Fatal(err)
		}
		if reply := replyTo(ctx, t, r, id); reply.PlainText != "→ sent to Plan & ship" {
			t.Errorf("reply %d = %q, want the one-line confirmation", i, reply.PlainText)
		}
	}
	if p, _ := st.calls(); len(p) != 2 {
		t.Errorf("prompts %q", p)
	}
	if n := strings.Count(r.logs.String(), `"level":"warn","chatID"`); n != 1 || !strings.Contains(r.logs.String(), "could not react") {
		t.Errorf("%d warnings about reactions, want 1:\n%s", n, r.logs)
	}
}

// A steering message older than HERMES_STALE_STEER (Telegram kept it
// while hermes-bot was down) is held with a Send button while a fresh one
// goes through; an outsider's tap is refused, Ann's sends it once.
func TestTelegramStaleSteerAsksFirst(t *testing.T) {
	var ahead atomic.Int64 // how far the bot's clock is ahead of the messages'
	r, st, ctx := startSteerRigWith(t, func(c *telegram.Config) {
		c.StaleSteer = 5 * time.Minute
		c.Now = func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }
	}, ann.ID)
	notice := r.idle(ctx, t)

	ahead.Store(int64(20 * time.Minute))
	old, err := r.srv.Reply(chatID, notice.ID, ann, "written yesterday")
	if err != nil {
		t.Fatal(err)
	}
	ask := replyTo(ctx, t, r, old)
	if !strings.Contains(ask.PlainText, "Send this to the agent now?") || !slices.Equal(buttonTexts(ask), []string{"📤 Send"}) {
		t.Fatalf("stale message asked %q with %q", ask.PlainText, buttonTexts(ask))
	}
	if !strings.Contains(ask.PlainText, "waited 20 min") {
		t.Errorf("the question does not say how old the message is: %q", ask.PlainText)
	}

	ahead.Store(0)
	fresh, err := r.srv.Reply(chatID, notice.ID, ann, "written now")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.srv.WaitReaction(ctx, chatID, fresh, "👍"); err != nil {
		t.Fatal(err)
	}
	if p, _ := st.calls(); !slices.Equal(p, []string{"ses_parent: written now"}) {
		t.Fatalf("prompts %q, want only the fresh one", p)
	}
	if got := reactionsOn(t, r.srv, old); len(got) != 0 {
		t.Errorf("the held message was acknowledged with %q before Send", got)
	}

	cb, err := r.srv.PressButtonText(chatID, ask.ID, eve, "📤 Send")
	if err != nil {
		t.Fatal(err)
	}
	if a, err := r.srv.WaitAnswer(ctx, cb); err != nil || !strings.Contains(a.Text, "not allowed") {
		t.Errorf("Eve's tap was told %q, %v", a.Text, err)
	}
	if _, err := r.srv.PressButtonText(chatID, ask.ID, ann, "📤 Send"); err != nil {
		t.Fatal(err)
	}
	if err := r.srv.WaitReaction(ctx, chatID, old, "👍"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.srv.WaitMessage(ctx, chatID, func(m telegramtest.Message) bool {
		return m.ID == ask.ID && m.PlainText == "→ sent to Plan & ship" && len(m.Keyboard) == 0
	}); err != nil {
		t.Fatal(err)
	}
	if p, _ := st.calls(); !slices.Equal(p, []string{"ses_parent: written now", "ses_parent: written yesterday"}) {
		t.Errorf("prompts %q, want the stale one once, after the fresh one", p)
	}
}

// A second tap on Send (two people at once, or a double tap) sends
// nothing more.
func TestTelegramStaleSendOnce(t *testing.T) {
	r, st, ctx := startSteerRigWith(t, func(c *telegram.Config) {
		c.StaleSteer = time.Minute
		c.Now = func() time.Time { return time.Now().Add(time.Hour) }
	}, ann.ID, bob.ID)
	notice := r.idle(ctx, t)
	old, err := r.srv.Reply(chatID, notice.ID, ann, "once only")
	if err != nil {
		t.Fatal(err)
	}
	ask := replyTo(ctx, t, r, old)
	cb1, err := r.srv.PressButtonText(chatID, ask.ID, ann, "📤 Send")
	if err != nil {
		t.Fatal(err)
	}
	cb2, err := r.srv.PressButtonText(chatID, ask.ID, bob, "📤 Send")
	if err != nil {
		t.Fatal(err)
	}
	a1, err1 := r.srv.WaitAnswer(ctx, cb1)
	a2, err2 := r.srv.WaitAnswer(ctx, cb2)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if gone := "sent already"; strings.Contains(a1.Text, gone) == strings.Contains(a2.Text, gone) {
		t.Errorf("toasts %q and %q: want exactly one told it was sent already", a1.Text, a2.Text)
	}
	if err := r.srv.WaitReaction(ctx, chatID, old, "👍"); err != nil {
		t.Fatal(err)
	}
	if p, _ := st.calls(); !slices.Equal(p, []string{"ses_parent: once only"}) {
		t.Errorf("prompts %q, want one", p)
	}
}

// bob may steer too.
var bob = telegramtest.User{ID: 8, FirstName: "Bob"}
