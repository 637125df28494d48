package telegram_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot"
	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/internal/testlog"
	"github.com/hermes-bot/hermes-bot/bot/telegram"
	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/pending"
)

// topicRig runs bridges with cfg over a real go-telegram/bot client, the
// Outbox and the redacting wrapper, as cmd/hermes-bot wires them, against
// a fake Bot API whose chat is a forum when forum is set.
type topicRig struct {
	fe    *telegram.Frontend
	t     *testing.T
	srv   *telegramtest.Server
	tb    *tgbot.Bot
	out   *telegram.Outbox
	store *pending.Store
	oc    *recordingOpencode
	logs  *testlog.Buffer
}

func startTopicRig(t *testing.T, forum bool) (*topicRig, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	srv := telegramtest.NewServer(token)
	t.Cleanup(srv.Close)
	add := srv.AddForum
	if !forum {
		add = func(id int64) error { return srv.AddChat(id, telegramtest.ChatSupergroup) }
	}
	if err := add(chatID); err != nil {
		t.Fatal(err)
	}
	store, err := pending.Open(filepath.Join(t.TempDir(), "pending.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	redactor := telegram.NewRedactor(token)
	tb := newFakeBot(t, srv, token)
	r := &topicRig{t: t, srv: srv, tb: tb, store: store, oc: &recordingOpencode{changed: make(chan struct{}, 1)}, logs: &testlog.Buffer{}}
	r.out = telegram.NewOutbox(telegram.RedactTelegram(tb, redactor), telegram.OutboxOptions{}, zerolog.New(r.logs))
	t.Cleanup(r.out.Close)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("bridge log:\n%s", r.logs.String())
		}
	})
	return r, ctx
}

// bridge makes a bridge on the rig's store, shown by a front-end with
// cfg; the rig keeps the front-end, for poll.
func (r *topicRig) bridge(ctx context.Context, cfg telegram.Config) *bot.Bridge {
	cfg.ChatID, cfg.BotID, cfg.Later = chatID, r.tb.ID(), r.out
	r.fe = telegram.New(cfg, r.out, r.store, zerolog.New(r.logs))
	return bot.NewBridge(bot.Config{Servers: map[string]bot.Opencode{"": r.oc}}, r.store, []frontend.Frontend{r.fe}, zerolog.New(r.logs))
}

// poll delivers updates to br until the test ends.
func (r *topicRig) poll(ctx context.Context, br *bot.Bridge) {
	r.tb.RegisterHandlerMatchFunc(func(*models.Update) bool { return true }, r.fe.Handler(br), r.fe.Middlewares()...)
	polling, stop := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		r.tb.Start(polling)
	}()
	r.t.Cleanup(func() {
		stop()
		<-stopped
		if err := br.Wait(ctx); err != nil {
			r.t.Error(err)
		}
	})
}

// message returns the message of request id as the fake holds it.
func (r *topicRig) message(ctx context.Context, br *bot.Bridge, id, dir string) telegramtest.Message {
	r.t.Helper()
	ev := question(id)
	ev.Directory = dir
	br.HandleEvent(ctx, ev)
	e, err := r.store.ByRequestID("", id)
	if err != nil {
		r.t.Fatal(err)
	}
	m, ok := r.srv.Message(chatID, telegram.MessageAt(e.Places[telegram.Name]))
	if !ok || telegram.MessageAt(e.Places[telegram.Name]) == 0 {
		r.t.Fatalf("message of %s not posted (message ID %d)", id, telegram.MessageAt(e.Places[telegram.Name]))
	}
	return m
}

func TestTelegramConfiguredThread(t *testing.T) {
	r, ctx := startTopicRig(t, true)
	br := r.bridge(ctx, telegram.Config{ThreadID: 42})
	r.poll(ctx, br)
	m := r.message(ctx, br, "que_1", "/home/user/projects/demo")
	if m.ThreadID != 42 {
		t.Fatalf("question posted in thread %d, want 42", m.ThreadID)
	}
	// The prompt for a typed answer goes to the same topic, and a reply
	// there answers.
	if _, err := r.srv.PressButtonText(chatID, m.ID, ann, "✏️ Type an answer"); err != nil {
		t.Fatal(err)
	}
	prompt, err := r.srv.WaitMessage(ctx, chatID, func(x telegramtest.Message) bool { return x.ForceReply != nil })
	if err != nil {
		t.Fatal(err)
	}
	if prompt.ThreadID != 42 {
		t.Fatalf("prompt in thread %d, want 42", prompt.ThreadID)
	}
	if _, err := r.srv.Reply(chatID, prompt.ID, ann, "MySQL"); err != nil {
		t.Fatal(err)
	}
	if got := r.waitReplies(ctx, 1); got[0][0][0] != "MySQL" {
		t.Fatalf("replies %v, want MySQL", got)
	}
	for _, x := range r.srv.Messages(chatID) {
		if x.ThreadID != 42 {
			t.Errorf("message %d %q in thread %d, want 42", x.ID, x.PlainText, x.ThreadID)
		}
	}
}

func (r *topicRig) waitReplies(ctx context.Context, n int) [][][]string {
	r.t.Helper()
	for {
		if got := r.oc.Replies(); len(got) >= n {
			return got
		}
		select {
		case <-r.oc.changed:
		case <-ctx.Done():
			r.t.Fatalf("waiting for %d replies: %v (got %d)", n, ctx.Err(), len(r.oc.Replies()))
		}
	}
}

func TestTelegramTopicPerProject(t *testing.T) {
	r, ctx := startTopicRig(t, true)
	cfg := telegram.Config{TopicPerProject: true}
	br := r.bridge(ctx, cfg)
	m1 := r.message(ctx, br, "que_1", "/home/user/projects/demo")
	m2 := r.message(ctx, br, "que_2", "/home/user/projects/demo")
	m3 := r.message(ctx, br, "que_3", "/srv/other")
	topics := r.srv.Topics(chatID)
	if len(topics) != 2 || topics[0].Name != "demo" || topics[1].Name != "other" {
		t.Fatalf("topics %+v, want demo and other", topics)
	}
	if m1.ThreadID != topics[0].ThreadID || m2.ThreadID != topics[0].ThreadID || m3.ThreadID != topics[1].ThreadID {
		t.Fatalf("questions in threads %d, %d, %d; want %d, %d, %d",
			m1.ThreadID, m2.ThreadID, m3.ThreadID, topics[0].ThreadID, topics[0].ThreadID, topics[1].ThreadID)
	}
	if err := br.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	// A new bridge on the same store, as after a restart, posts in the
	// topic remembered.
	br = r.bridge(ctx, cfg)
	if m := r.message(ctx, br, "que_4", "/home/user/projects/demo"); m.ThreadID != topics[0].ThreadID {
		t.Fatalf("after a restart the question went to thread %d, want %d", m.ThreadID, topics[0].ThreadID)
	}
	if n := len(r.srv.RequestsFor("createForumTopic")); n != 2 {
		t.Fatalf("%d createForumTopic calls, want 2", n)
	}
}

func TestTelegramTopicFallback(t *testing.T) {
	r, ctx := startTopicRig(t, false) // not a forum: creating a topic fails
	br := r.bridge(ctx, telegram.Config{TopicPerProject: true})
	m1 := r.message(ctx, br, "que_1", "/home/user/projects/demo")
	m2 := r.message(ctx, br, "que_2", "/home/user/projects/demo")
	if m1.ThreadID != 0 || m2.ThreadID != 0 {
		t.Fatalf("questions in threads %d, %d; want the chat itself", m1.ThreadID, m2.ThreadID)
	}
	if n := len(r.srv.RequestsFor("createForumTopic")); n != 1 {
		t.Fatalf("%d createForumTopic calls, want 1 (not again right after a failure)", n)
	}
	if logs := r.logs.String(); strings.Count(logs, "could not create the project's forum topic") != 1 ||
		!strings.Contains(logs, "the chat is not a forum") || strings.Contains(logs, token) {
		t.Fatalf("want one warning saying why, without the token:\n%s", logs)
	}
	if err := br.Wait(ctx); err != nil {
		t.Fatal(err)
	}
}
