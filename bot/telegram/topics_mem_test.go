package telegram_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/telegram"
	"github.com/hermes-bot/hermes-bot/opencode"
)

func wantThreads(t *testing.T, r *memRig, want ...int) {
	t.Helper()
	if got := r.tg.threads(); !slices.Equal(got, want) {
		t.Fatalf("threads of the messages sent = %v, want %v", got, want)
	}
}

func inDir(ev opencode.Event, dir string) opencode.Event {
	ev.Directory = dir
	return ev
}

// Every message of a configured thread goes there: requests, the prompt
// for a typed answer, and a note about the answer.
func TestMemConfiguredThread(t *testing.T) {
	r := newMemRig(t, telegram.Config{ThreadID: 7})
	e := r.ask(question("que_1"), "que_1")
	p := r.ask(permissionAsked("per_1", "rm -rf build"), "per_1")
	if threadOf(e) != 7 || threadOf(p) != 7 {
		t.Fatalf("entries' threads %d, %d; want 7", threadOf(e), threadOf(p))
	}
	wantThreads(t, r, 7, 7)
	if n := len(r.tg.Topics()); n != 0 {
		t.Fatalf("%d topics created without TopicPerProject", n)
	}
	r.press(alice, frontend.Type, e, 0, 0)
	r.oc.refuse = opencode.ErrNotAccepted
	r.reply(alice, "MySQL", r.prompt())
	wantThreads(t, r, 7, 7, 7, 7)
	if sent := r.tg.Sent(); !strings.Contains(sent[len(sent)-1].Text, "did not accept") {
		t.Fatalf("last message %q, want the note that opencode refused the answer", sent[len(sent)-1].Text)
	}
}

// A project's requests, permissions too, share its topic; a restart
// finds it again.
func TestMemTopicPerProject(t *testing.T) {
	r := newMemRig(t, telegram.Config{ThreadID: 7, TopicPerProject: true})
	e1 := r.ask(question("que_1"), "que_1")
	e2 := r.ask(question("que_2"), "que_2")
	p := r.ask(permissionAsked("per_1", "rm -rf build"), "per_1")
	r.ask(inDir(question("que_3"), "/srv/other/"), "que_3")
	if got := r.tg.Topics(); !slices.Equal(got, []string{"demo", "other"}) {
		t.Fatalf("topics created %q, want one for demo and one for other", got)
	}
	for _, e := range []string{e1.UID, e2.UID, p.UID} {
		if e, _ := r.store.Get(e); threadOf(e) != 100 {
			t.Errorf("entry %s in thread %d, want demo's 100", e.UID, threadOf(e))
		}
	}
	wantThreads(t, r, 100, 100, 100, 101)
	r.wire(r.tg)
	r.ask(question("que_4"), "que_4")
	if got := r.tg.Topics(); len(got) != 2 {
		t.Fatalf("topics created after a restart %q, want none more", got)
	}
	wantThreads(t, r, 100, 100, 100, 101, 100)
}

// A topic that cannot be made is not tried again at once: the requests go
// to the configured thread, one warning said; later a topic is made.
func TestMemTopicCreationFailureFallsBack(t *testing.T) {
	r := newMemRig(t, telegram.Config{ThreadID: 7, TopicPerProject: true})
	r.tg.topicErr = errors.New("Bad Request: the chat is not a forum")
	r.ask(question("que_1"), "que_1")
	r.ask(question("que_2"), "que_2")
	wantThreads(t, r, 7, 7)
	if n := strings.Count(r.logs.String(), "could not create the project's forum topic"); n != 1 {
		t.Fatalf("%d warnings about the topic, want 1:\n%s", n, r.logs.String())
	}
	r.tg.mu.Lock()
	r.tg.topicErr = nil
	r.tg.mu.Unlock()
	r.now = r.now.Add(10 * time.Minute) // the front-end's wait before trying again
	r.ask(question("que_3"), "que_3")
	wantThreads(t, r, 7, 7, 100)
	if _, ok, _ := telegram.StateOf(r.store).ThreadFor(memChat, "/home/user/projects/demo"); !ok {
		t.Fatal("the topic created was not remembered")
	}
}

// topiclessTelegram fails every createForumTopic, as a client that
// cannot create topics would.
type topiclessTelegram struct{ telegram.Telegram }

func (topiclessTelegram) CreateForumTopic(context.Context, *tgbot.CreateForumTopicParams) (*models.ForumTopic, error) {
	return nil, errNoTopics
}

func TestMemTopicWithoutCreator(t *testing.T) {
	r := newMemRig(t, telegram.Config{TopicPerProject: true})
	r.wire(topiclessTelegram{r.tg})
	r.ask(question("que_1"), "que_1")
	wantThreads(t, r, 0)
	if !strings.Contains(r.logs.String(), "cannot create forum topics") {
		t.Fatalf("no warning that topics cannot be created:\n%s", r.logs.String())
	}
}

// topicText hands the front-end user's plain text in forum topic thread,
// which replies to the topic's service message.
func (r *memRig) topicText(user models.User, thread int, text string) {
	chat := models.Chat{ID: memChat, Type: "supergroup", IsForum: true}
	r.message(user, &models.Message{Chat: chat, Text: text, MessageThreadID: thread, IsTopicMessage: true,
		ReplyToMessage: &models.Message{ID: thread, Date: 1700000000, Chat: chat, From: &models.User{ID: 123, IsBot: true},
			MessageThreadID: thread, IsTopicMessage: true, ForumTopicCreated: &models.ForumTopicCreated{Name: "demo"}}})
}

// Plain text in a topic answers the one request there awaiting text.
func TestMemPlainTextInTopic(t *testing.T) {
	r := newMemRig(t, telegram.Config{TopicPerProject: true})
	e1 := r.ask(question("que_1"), "que_1")
	e2 := r.ask(inDir(question("que_2"), "/srv/other"), "que_2")
	if threadOf(e1) != 100 || threadOf(e2) != 101 {
		t.Fatalf("threads %d, %d; want 100, 101", threadOf(e1), threadOf(e2))
	}
	r.press(alice, frontend.Type, e1, 0, 0)
	r.press(bobby, frontend.Type, e2, 0, 0)
	wantThreads(t, r, 100, 101, 100, 101)
	r.topicText(bobby, 101, "for other")
	if a := r.oc.Answers(); len(a) != 1 || a[0].RequestID != "que_2" || a[0].Answers[0][0] != "for other" {
		t.Fatalf("replies %+v, want que_2 answered with the topic's text", a)
	}
	r.topicText(alice, 555, "stray")
	if n := len(r.oc.Answers()); n != 1 {
		t.Fatalf("text in a topic where nothing waits answered: %d replies", n)
	}
	r.topicText(alice, 100, "for demo")
	if a := r.oc.Answers(); len(a) != 2 || a[1].RequestID != "que_1" {
		t.Fatalf("replies %+v, want que_1 answered second", a)
	}
}

// A command's answer goes to the command's topic; outside forums
// message_thread_id marks a reply thread, not echoed.
func TestMemCommandInTopic(t *testing.T) {
	r := newMemRig(t, telegram.Config{})
	send := func(thread int, topic bool) int {
		r.message(alice, &models.Message{Text: "/help", MessageThreadID: thread, IsTopicMessage: topic})
		sent := r.tg.Sent()
		return sent[len(sent)-1].MessageThreadID
	}
	if got := send(9, true); got != 9 {
		t.Errorf("reply to a command in topic 9 went to thread %d", got)
	}
	if got := send(9, false); got != 0 {
		t.Errorf("reply to a command in a reply thread went to thread %d, want 0", got)
	}
}
