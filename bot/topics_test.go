package bot

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/telegram"
	"github.com/hermes-bot/hermes-bot/opencode"
)

// threads lists the message_thread_id of every message sent, in order.
func (h *harness) threads() []int {
	var out []int
	for _, m := range h.tg.Sent() {
		out = append(out, m.P.MessageThreadID)
	}
	return out
}

func wantThreads(t *testing.T, h *harness, want ...int) {
	t.Helper()
	got := h.threads()
	if len(got) != len(want) {
		t.Fatalf("threads of the messages sent = %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("threads of the messages sent = %v, want %v", got, want)
		}
	}
}

func inDir(ev opencode.Event, dir string) opencode.Event {
	ev.Directory = dir
	return ev
}

func TestConfiguredThread(t *testing.T) {
	h := newHarness(t, harnessConfig{ThreadID: 7})
	e := h.ask("que_1", dbQuestion())
	p := h.askPerm(permEvent("per_1", "rm -rf build"))
	if tgOf(e).Thread != 7 || tgOf(h.entry(p.UID)).Thread != 7 {
		t.Fatalf("entries' threads %d, %d; want 7", tgOf(e).Thread, tgOf(h.entry(p.UID)).Thread)
	}
	wantThreads(t, h, 7, 7)
	if n := len(h.tg.Topics()); n != 0 {
		t.Fatalf("%d topics created without TopicPerProject", n)
	}
	// The prompt for a typed answer and a note about the answer follow.
	h.press(alice, data(t, frontend.Type, e.UID, 0, 0), e)
	h.oc.replyErrs = []error{opencode.ErrNotAccepted}
	h.text(alice, "MySQL", h.promptOf(e.UID))
	wantThreads(t, h, 7, 7, 7, 7)
	if !strings.Contains(h.lastSent().P.Text, "did not accept") {
		t.Fatalf("last message %q, want the note that opencode refused the answer", h.lastSent().P.Text)
	}
}

func TestTopicPerProject(t *testing.T) {
	h := newHarness(t, harnessConfig{ThreadID: 7, TopicPerProject: true})
	e1 := h.ask("que_1", dbQuestion())
	e2 := h.ask("que_2", dbQuestion())
	p := h.askPerm(permEvent("per_1", "rm -rf build"))
	h.b.HandleEvent(context.Background(), inDir(askedEvent("que_3", dbQuestion()), "/srv/other/"))
	if got := h.tg.Topics(); len(got) != 2 || got[0] != "demo" || got[1] != "other" {
		t.Fatalf("topics created %q, want one for demo and one for other", got)
	}
	for _, e := range []string{e1.UID, e2.UID, p.UID} {
		if th := tgOf(h.entry(e)).Thread; th != 100 {
			t.Errorf("entry %s in thread %d, want demo's 100", e, th)
		}
	}
	wantThreads(t, h, 100, 100, 100, 101)

	// A new bridge on the same store finds the topic again.
	h.restart()
	h.b.HandleEvent(context.Background(), askedEvent("que_4", dbQuestion()))
	if got := h.tg.Topics(); len(got) != 2 {
		t.Fatalf("topics created after a restart %q, want none more", got)
	}
	wantThreads(t, h, 100, 100, 100, 101, 100)
}

func TestTopicCreationFailureFallsBack(t *testing.T) {
	h := newHarness(t, harnessConfig{ThreadID: 7, TopicPerProject: true})
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h.b.now = func() time.Time { return now }
	h.tg.topicErr = errors.New("Bad Request: the chat is not a forum")
	h.ask("que_1", dbQuestion())
	h.ask("que_2", dbQuestion())
	wantThreads(t, h, 7, 7)
	if n := strings.Count(h.logs.String(), "could not create the project's forum topic"); n != 1 {
		t.Fatalf("%d warnings about the topic, want 1:\n%s", n, h.logs.String())
	}
	// Later it is tried again, and the topic it makes is used.
	h.tg.topicErr = nil
	now = now.Add(10 * time.Minute) // the front-end's wait before trying again
	h.ask("que_3", dbQuestion())
	wantThreads(t, h, 7, 7, 100)
	if _, ok, _ := telegram.StateOf(h.store).ThreadFor(testChat, "/home/user/projects/demo"); !ok {
		t.Fatal("the topic created was not remembered")
	}
}

// topiclessTelegram fails every createForumTopic, as a client that
// cannot create topics would.
type topiclessTelegram struct{ telegram.Telegram }

func (topiclessTelegram) CreateForumTopic(context.Context, *tgbot.CreateForumTopicParams) (*models.ForumTopic, error) {
	return nil, errors.New("this Telegram client cannot create forum topics")
}

func TestTopicWithoutCreator(t *testing.T) {
	h := newHarness(t, harnessConfig{TopicPerProject: true})
	h.wire(topiclessTelegram{h.tg})
	h.ask("que_1", dbQuestion())
	wantThreads(t, h, 0)
	if !strings.Contains(h.logs.String(), "cannot create forum topics") {
		t.Fatalf("no warning that topics cannot be created:\n%s", h.logs.String())
	}
}

// topicText sends text from user in forum topic thread, as a plain message
// (whose reply_to_message is the topic's service message) or as a reply.
func (h *harness) topicText(user models.User, thread int, text string, replyTo int) {
	h.t.Helper()
	h.seq++
	chat := models.Chat{ID: testChat, Type: "supergroup", IsForum: true}
	m := &models.Message{
		ID: 1000 + h.seq, Date: 1700000000, Chat: chat, From: &user, Text: text,
		MessageThreadID: thread, IsTopicMessage: true,
		ReplyToMessage: &models.Message{ID: thread, Date: 1700000000, Chat: chat, From: &models.User{ID: 123, IsBot: true},
			MessageThreadID: thread, IsTopicMessage: true, ForumTopicCreated: &models.ForumTopicCreated{Name: "demo"}},
	}
	if replyTo != 0 {
		m.ReplyToMessage = &models.Message{ID: replyTo, Date: 1700000000, Chat: chat, From: &models.User{ID: 123, IsBot: true},
			MessageThreadID: thread, IsTopicMessage: true}
	}
	h.update(context.Background(), &models.Update{ID: int64(h.seq), Message: m})
}

func TestPlainTextInTopic(t *testing.T) {
	h := newHarness(t, harnessConfig{TopicPerProject: true})
	e1 := h.ask("que_1", dbQuestion())
	h.b.HandleEvent(context.Background(), inDir(askedEvent("que_2", dbQuestion()), "/srv/other"))
	e2, err := h.store.ByRequestID("", "que_2")
	if err != nil {
		t.Fatal(err)
	}
	if tgOf(e1).Thread != 100 || tgOf(e2).Thread != 101 {
		t.Fatalf("threads %d, %d; want 100, 101", tgOf(e1).Thread, tgOf(e2).Thread)
	}
	h.press(alice, data(t, frontend.Type, e1.UID, 0, 0), e1)
	h.press(bob, data(t, frontend.Type, e2.UID, 0, 0), e2)
	wantThreads(t, h, 100, 101, 100, 101)

	// Two requests await text, but only one in this topic: a plain message
	// there (which replies to the topic's first message) answers it.
	h.topicText(bob, 101, "for other", 0)
	r := h.oc.Replies()
	if len(r) != 1 || r[0].RequestID != "que_2" || r[0].Answers[0][0] != "for other" {
		t.Fatalf("replies %+v, want que_2 answered with the topic's text", r)
	}
	// A topic where nothing awaits text takes nothing.
	h.topicText(alice, 555, "stray", 0)
	if n := len(h.oc.Replies()); n != 1 {
		t.Fatalf("text in a topic where nothing waits answered: %d replies", n)
	}
	h.topicText(alice, 100, "for demo", 0)
	if r := h.oc.Replies(); len(r) != 2 || r[1].RequestID != "que_1" {
		t.Fatalf("replies %+v, want que_1 answered second", r)
	}
}

func TestCommandInTopic(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	send := func(thread int, topic bool) int {
		h.seq++
		h.update(context.Background(), &models.Update{ID: int64(h.seq), Message: &models.Message{
			ID: 1000 + h.seq, Date: 1700000000, Chat: models.Chat{ID: testChat, Type: "supergroup"},
			From: &alice, Text: "/help", MessageThreadID: thread, IsTopicMessage: topic,
		}})
		return h.lastSent().P.MessageThreadID
	}
	if got := send(9, true); got != 9 {
		t.Errorf("reply to a command in topic 9 went to thread %d", got)
	}
	// Outside forums message_thread_id marks a reply thread: not echoed.
	if got := send(9, false); got != 0 {
		t.Errorf("reply to a command in a reply thread went to thread %d, want 0", got)
	}
}
