package telegram_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot"
	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/internal/testlog"
	"github.com/hermes-bot/hermes-bot/bot/telegram"
	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// steerOpencode records the steering calls.
type steerOpencode struct {
	mu      sync.Mutex
	prompts []string
	aborts  []string
	// gen is the server's kind, 1 when 0; steered are Steer's calls;
	// saved the rules ListSaved lists, deleted DeleteSaved's calls.
	gen     int
	steered []string
	saved   []opencode.SavedApproval
	deleted []string
}

func (s *steerOpencode) Generation() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return max(s.gen, 1)
}

func (s *steerOpencode) Steer(_ context.Context, _, id, text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steered = append(s.steered, id+": "+text)
	return nil
}

func (s *steerOpencode) ListSaved(context.Context, string) ([]opencode.SavedApproval, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]opencode.SavedApproval(nil), s.saved...), nil
}

func (s *steerOpencode) DeleteSaved(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deleted = append(s.deleted, id)
	for i, a := range s.saved {
		if a.ID == id {
			s.saved = append(s.saved[:i:i], s.saved[i+1:]...)
			break
		}
	}
	return nil
}

func (s *steerOpencode) CreateSession(_ context.Context, dir, _ string) (opencode.Session, error) {
	return opencode.Session{ID: "ses_new", Directory: dir}, nil
}

func (s *steerOpencode) PromptAsync(_ context.Context, _, id, text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prompts = append(s.prompts, id+": "+text)
	return nil
}

func (s *steerOpencode) Abort(_ context.Context, _, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.aborts = append(s.aborts, id)
	return nil
}

func (s *steerOpencode) ListSessions(context.Context, string) ([]opencode.Session, error) {
	return []opencode.Session{{ID: "ses_parent", Title: "Plan & ship"}}, nil
}

func (s *steerOpencode) BusySessions(context.Context, string) (map[string]bool, error) {
	return map[string]bool{"ses_parent": true}, nil
}

func (s *steerOpencode) ListProjects(context.Context) ([]opencode.Project, error) {
	return []opencode.Project{{Worktree: "/home/user/projects/demo"}}, nil
}

func (s *steerOpencode) deletedIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.deleted...)
}

func (s *steerOpencode) steeredCalls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.steered...)
}

func (s *steerOpencode) calls() (prompts, aborts []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.prompts...), append([]string(nil), s.aborts...)
}

// startSteerRig is startRig with steering wired and "finished" notices on.
func startSteerRig(t *testing.T, allowed ...int64) (*rig, *steerOpencode, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	srv := telegramtest.NewServer(token)
	t.Cleanup(srv.Close)
	if err := srv.AddChat(chatID, telegramtest.ChatSupergroup); err != nil {
		t.Fatal(err)
	}
	store, err := pending.Open(filepath.Join(t.TempDir(), "pending.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	tb := newFakeBot(t, srv, token)
	logs := &testlog.Buffer{}
	log := zerolog.New(logs)
	st := &steerOpencode{}
	oc := &recordingOpencode{changed: make(chan struct{}, 1), steer: st}
	fe := telegram.New(telegram.Config{ChatID: chatID, AllowedUserIDs: allowed, BotID: tb.ID(), BotUsername: srv.BotUser().Username},
		telegram.RedactTelegram(tb, telegram.NewRedactor(token)), store, log)
	br := bot.NewBridge(bot.Config{Notify: bot.NotifyOptions{Idle: true}, Servers: map[string]bot.Opencode{"": oc}}, store, []frontend.Frontend{fe}, log)
	tb.RegisterHandlerMatchFunc(func(*models.Update) bool { return true }, fe.Handler(br), fe.Middlewares()...)
	polling, stop := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tb.Start(polling)
	}()
	t.Cleanup(func() {
		stop()
		<-stopped
		_ = br.Wait(ctx)
		if t.Failed() {
			t.Logf("bridge log:\n%s", logs.String())
		}
	})
	return &rig{srv: srv, bridge: br, oc: oc, store: store, logs: logs}, st, ctx
}

func (r *rig) idle(ctx context.Context, t *testing.T) telegramtest.Message {
	t.Helper()
	r.bridge.HandleEvent(ctx, opencode.Event{Directory: "/home/user/projects/demo", Type: opencode.TypeSessionIdle,
		SessionIdle: &opencode.SessionIdle{SessionID: "ses_parent"}})
	m, err := r.srv.WaitMessage(ctx, chatID, func(m telegramtest.Message) bool { return strings.Contains(m.PlainText, "finished") })
	if err != nil {
		t.Fatalf("no finished notice: %v", err)
	}
	return m
}

// With nobody on the allow-list steering is off: /new and /sessions say
// so in one line, and a reply to a notice reaches no session.
func TestTelegramSteeringOffWithoutAllowList(t *testing.T) {
	r, st, ctx := startSteerRig(t)
	notice := r.idle(ctx, t)
	if len(notice.Keyboard) != 0 || strings.Contains(notice.PlainText, "Reply to this message") {
		t.Errorf("a notice invites steering while it is off:\n%s %q", notice.PlainText, buttonTexts(notice))
	}
	for _, cmd := range []string{"/new", "/sessions"} {
		id, err := r.srv.SendText(chatID, ann, cmd)
		if err != nil {
			t.Fatal(err)
		}
		reply, err := r.srv.WaitMessage(ctx, chatID, func(m telegramtest.Message) bool { return m.ReplyTo == id })
		if err != nil {
			t.Fatalf("no reply to %s: %v", cmd, err)
		}
		if !strings.HasPrefix(reply.PlainText, "Steering is off: set TELEGRAM_ALLOWED_USER_IDS") || strings.Count(reply.PlainText, "\n") != 0 {
			t.Errorf("%s answered %q, want the one line saying steering is off", cmd, reply.PlainText)
		}
	}
	id, err := r.srv.Reply(chatID, notice.ID, ann, "keep going")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.srv.WaitMessage(ctx, chatID, func(m telegramtest.Message) bool { return m.ReplyTo == id }); err != nil {
		t.Fatalf("the reply was not told steering is off: %v", err)
	}
	if p, _ := st.calls(); len(p) != 0 {
		t.Errorf("prompts sent while steering is off: %q", p)
	}
}

// A reply to a notice continues its session, confirmed in one line; an
// outsider's reply does nothing.
func TestTelegramReplyToNoticeContinues(t *testing.T) {
	r, st, ctx := startSteerRig(t, ann.ID)
	notice := r.idle(ctx, t)
	if b := buttonTexts(notice); len(b) != 1 || !strings.Contains(b[0], "Continue") || !strings.Contains(notice.PlainText, "Reply to this message") {
		t.Fatalf("notice %q with buttons %q does not invite a reply", notice.PlainText, b)
	}
	if _, err := r.srv.Reply(chatID, notice.ID, eve, "rm -rf everything"); err != nil {
		t.Fatal(err)
	}
	id, err := r.srv.Reply(chatID, notice.ID, ann, "now write the changelog")
	if err != nil {
		t.Fatal(err)
	}
	reply, err := r.srv.WaitMessage(ctx, chatID, func(m telegramtest.Message) bool { return m.ReplyTo == id })
	if err != nil {
		t.Fatal(err)
	}
	if reply.PlainText != "→ sent to Plan & ship" {
		t.Errorf("confirmation %q", reply.PlainText)
	}
	if p, _ := st.calls(); len(p) != 1 || p[0] != "ses_parent: now write the changelog" {
		t.Errorf("prompts %q, want only Ann's", p)
	}
}

// /sessions lists the session with its state and a Stop button; Stop
// asks first, and only the confirmation aborts.
func TestTelegramSessionsAndStop(t *testing.T) {
	r, st, ctx := startSteerRig(t, ann.ID)
	r.idle(ctx, t) // so the session has a latest message
	id, err := r.srv.SendText(chatID, ann, "/sessions")
	if err != nil {
		t.Fatal(err)
	}
	list, err := r.srv.WaitMessage(ctx, chatID, func(m telegramtest.Message) bool { return m.ReplyTo == id })
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(list.PlainText, "Plan & ship") || !strings.Contains(list.PlainText, "working") || !strings.Contains(list.Text, `<a href="https://t.me/c/`) {
		t.Fatalf("/sessions:\n%s", list.Text)
	}
	b := buttonTexts(list)
	if len(b) != 1 || !strings.HasPrefix(b[0], "⏹ Stop") {
		t.Fatalf("buttons %q", b)
	}
	if _, err := r.srv.PressButtonText(chatID, list.ID, ann, b[0]); err != nil {
		t.Fatal(err)
	}
	confirm, err := r.srv.WaitMessage(ctx, chatID, func(m telegramtest.Message) bool {
		return m.ReplyTo == list.ID && strings.HasPrefix(m.PlainText, "⏹ Stop Plan & ship?")
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, a := st.calls(); len(a) != 0 {
		t.Fatalf("aborted before the confirmation: %q", a)
	}
	cb, err := r.srv.PressButtonText(chatID, confirm.ID, eve, "⏹ Yes, stop it")
	if err != nil {
		t.Fatal(err)
	}
	if a, err := r.srv.WaitAnswer(ctx, cb); err != nil || !strings.Contains(a.Text, "not allowed") {
		t.Errorf("Eve's press told %q, %v", a.Text, err)
	}
	if _, err := r.srv.PressButtonText(chatID, confirm.ID, ann, "⏹ Yes, stop it"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.srv.WaitMessage(ctx, chatID, func(m telegramtest.Message) bool {
		return m.ID == confirm.ID && strings.HasPrefix(m.PlainText, "⏹ Plan & ship stopped by Ann") && len(m.Keyboard) == 0
	}); err != nil {
		t.Fatal(err)
	}
	if _, a := st.calls(); len(a) != 1 || a[0] != "ses_parent" {
		t.Errorf("aborts %q", a)
	}
}

func buttonTexts(m telegramtest.Message) []string {
	var out []string
	for _, row := range m.Keyboard {
		for _, b := range row {
			out = append(out, b.Text)
		}
	}
	return out
}
