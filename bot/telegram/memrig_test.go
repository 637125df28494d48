package telegram_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot"
	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/internal/testlog"
	"github.com/hermes-bot/hermes-bot/bot/telegram"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// memTelegram is an in-memory Bot API that records what is sent and the
// topics created; an edit of a message it did not send fails as
// Telegram's does. Its messages are numbered from 101.
type memTelegram struct {
	mu      sync.Mutex
	sent    []*tgbot.SendMessageParams
	edits   []*tgbot.EditMessageTextParams
	answers map[string][]string
	topics  []string
	deleted map[int]bool
	// topicErr, when set, fails every createForumTopic; sendErr fails
	// the next sendMessage.
	topicErr, sendErr error
	// onSend, when set, is called with each message's ID under the lock:
	// it may start what calls the fake, not call it.
	onSend func(id int)
}

func (m *memTelegram) SendMessage(_ context.Context, p *tgbot.SendMessageParams) (*models.Message, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.sendErr; err != nil {
		m.sendErr = nil
		return nil, err
	}
	m.sent = append(m.sent, p)
	if m.onSend != nil {
		m.onSend(100 + len(m.sent))
	}
	return &models.Message{ID: 100 + len(m.sent), Chat: models.Chat{ID: p.ChatID.(int64)}, Text: p.Text}, nil
}

func (m *memTelegram) EditMessageText(_ context.Context, p *tgbot.EditMessageTextParams) (*models.Message, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if p.MessageID <= 100 || p.MessageID > 100+len(m.sent) || m.deleted[p.MessageID] {
		return nil, fmt.Errorf("%w, Bad Request: message to edit not found", tgbot.ErrorBadRequest)
	}
	m.edits = append(m.edits, p)
	return &models.Message{ID: p.MessageID, Text: p.Text}, nil
}

func (m *memTelegram) AnswerCallbackQuery(_ context.Context, p *tgbot.AnswerCallbackQueryParams) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.answers == nil {
		m.answers = make(map[string][]string)
	}
	m.answers[p.CallbackQueryID] = append(m.answers[p.CallbackQueryID], p.Text)
	return true, nil
}

// Delete makes message id gone, as if a member of the chat deleted it.
func (m *memTelegram) Delete(id int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.deleted == nil {
		m.deleted = make(map[int]bool)
	}
	m.deleted[id] = true
}

// EditsOf returns the edits of message id, oldest first.
func (m *memTelegram) EditsOf(id int) []*tgbot.EditMessageTextParams {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*tgbot.EditMessageTextParams
	for _, e := range m.edits {
		if e.MessageID == id {
			out = append(out, e)
		}
	}
	return out
}

// AnswersFor returns the toasts given to callback query id.
func (m *memTelegram) AnswersFor(id string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.answers[id])
}

func (m *memTelegram) SendDocument(context.Context, *tgbot.SendDocumentParams) (*models.Message, error) {
	return nil, tgbot.ErrorBadRequest
}

// CreateForumTopic gives topics thread IDs 100, 101, ….
func (m *memTelegram) CreateForumTopic(_ context.Context, p *tgbot.CreateForumTopicParams) (*models.ForumTopic, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.topicErr != nil {
		return nil, m.topicErr
	}
	m.topics = append(m.topics, p.Name)
	return &models.ForumTopic{MessageThreadID: 99 + len(m.topics), Name: p.Name}, nil
}

func (m *memTelegram) SetMessageReaction(context.Context, *tgbot.SetMessageReactionParams) (bool, error) {
	return true, nil
}

func (m *memTelegram) GetFile(context.Context, *tgbot.GetFileParams) (*models.File, error) {
	return nil, tgbot.ErrorBadRequest
}

func (m *memTelegram) FileDownloadLink(*models.File) string { return "" }

// Sent returns the messages sent, in order.
func (m *memTelegram) Sent() []*tgbot.SendMessageParams {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.sent)
}

// Topics returns the names of the topics created.
func (m *memTelegram) Topics() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.topics)
}

// threads lists the message_thread_id of every message sent, in order.
func (m *memTelegram) threads() []int {
	var out []int
	for _, p := range m.Sent() {
		out = append(out, p.MessageThreadID)
	}
	return out
}

// callsOpencode records the request and surface of each answer, and
// refuses them while refuse is set.
type callsOpencode struct {
	*recordingOpencode
	mu      sync.Mutex
	answers []surfaceReply
	refuse  error
	// sessions, when set, are the sessions opencode knows.
	sessions map[string]opencode.Session
}

func (o *callsOpencode) GetSession(ctx context.Context, dir, id string) (opencode.Session, error) {
	if s, ok := o.sessions[id]; ok {
		return s, nil
	}
	return o.recordingOpencode.GetSession(ctx, dir, id)
}

type surfaceReply struct {
	Surface   opencode.Surface
	RequestID string
	Answers   [][]string
}

func newCallsOpencode() *callsOpencode {
	return &callsOpencode{recordingOpencode: &recordingOpencode{changed: make(chan struct{}, 1)}}
}

func (o *callsOpencode) Requests(sf opencode.Surface) opencode.Requests {
	return surfaceRequests{o, sf}
}

// Answers returns the answers opencode accepted, in order.
func (o *callsOpencode) Answers() []surfaceReply {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.answers)
}

type surfaceRequests struct {
	*callsOpencode
	sf opencode.Surface
}

func (r surfaceRequests) Surface() opencode.Surface { return r.sf }

func (r surfaceRequests) ReplyQuestion(ctx context.Context, dir, session, requestID string, answers [][]string) error {
	r.mu.Lock()
	if err := r.refuse; err != nil {
		r.mu.Unlock()
		return err
	}
	r.answers = append(r.answers, surfaceReply{r.sf, requestID, answers})
	r.mu.Unlock()
	return r.recordingOpencode.ReplyQuestion(ctx, dir, session, requestID, answers)
}

// memRig is a bridge over a real store and callsOpencode, shown by a
// Telegram front-end over memTelegram; updates are handed to the
// front-end directly, so each is handled when the call returns.
type memRig struct {
	t     *testing.T
	cfg   telegram.Config
	bcfg  bot.Config
	tg    *memTelegram
	oc    *callsOpencode
	store *pending.Store
	fe    *telegram.Frontend
	br    *bot.Bridge
	logs  *testlog.Buffer
	now   time.Time
	seq   int
}

const memChat int64 = -1001234

var (
	alice   = models.User{ID: 11, FirstName: "Alice", Username: "alice"}
	bobby   = models.User{ID: 22, FirstName: "Bob"}
	mallory = models.User{ID: 666, FirstName: "Mallory"}
)

func newMemRig(t *testing.T, cfg telegram.Config) *memRig {
	t.Helper()
	return newMemRigWith(t, cfg, bot.Config{})
}

// newMemRigWith is newMemRig with the bridge's settings bcfg.
func newMemRigWith(t *testing.T, cfg telegram.Config, bcfg bot.Config) *memRig {
	t.Helper()
	store, err := pending.Open(filepath.Join(t.TempDir(), "pending.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	if cfg.ChatID == 0 {
		cfg.ChatID = memChat
	}
	r := &memRig{t: t, cfg: cfg, bcfg: bcfg, tg: &memTelegram{}, oc: newCallsOpencode(), store: store, logs: &testlog.Buffer{},
		now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	r.wire(r.tg)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("bridge log:\n%s", r.logs.String())
		}
	})
	return r
}

// wire makes the front-end, over tg, and the bridge anew, as a restart.
func (r *memRig) wire(tg telegram.Telegram) {
	cfg := r.cfg
	cfg.Now = func() time.Time { return r.now }
	r.fe = telegram.New(cfg, tg, r.store, zerolog.New(r.logs))
	bcfg := r.bcfg
	bcfg.Servers = map[string]bot.Opencode{"": r.oc}
	r.br = bot.NewBridge(bcfg, r.store, []frontend.Frontend{r.fe}, zerolog.New(r.logs))
	br := r.br
	r.t.Cleanup(func() { _ = br.Wait(context.Background()) })
}

// ask posts event ev and returns the entry of request id.
func (r *memRig) ask(ev opencode.Event, id string) *pending.Entry {
	r.t.Helper()
	r.br.HandleEvent(context.Background(), ev)
	e, err := r.store.ByRequestID("", id)
	if err != nil {
		r.t.Fatalf("request %s not stored: %v", id, err)
	}
	return e
}

// press hands the front-end user's press of a's button of e.
func (r *memRig) press(user models.User, a frontend.Action, e *pending.Entry, qi, oi int) {
	r.t.Helper()
	r.pressData(r.cfg.ChatID, user, buttonData(r.t, a, e.UID, qi, oi), telegram.MessageAt(e.Places[telegram.Name]))
}

// pressSent presses data on message msg as Telegram delivers it, with
// the keyboard the message was sent with, and returns the query's ID.
func (r *memRig) pressSent(user models.User, data string, msg int) string {
	r.t.Helper()
	sent := r.tg.Sent()
	if msg <= 100 || msg > 100+len(sent) {
		r.t.Fatalf("message %d was not sent", msg)
	}
	kb, ok := sent[msg-101].ReplyMarkup.(*models.InlineKeyboardMarkup)
	if !ok {
		r.t.Fatalf("message %d was not sent with a keyboard", msg)
	}
	return r.pressWith(r.cfg.ChatID, user, data, msg, kb)
}

// pressData hands the front-end user's press of a button with data on
// message msg of chat, and returns the query's ID after checking it was
// answered once.
func (r *memRig) pressData(chat int64, user models.User, data string, msg int) string {
	r.t.Helper()
	return r.pressWith(chat, user, data, msg, nil)
}

func (r *memRig) pressWith(chat int64, user models.User, data string, msg int, kb *models.InlineKeyboardMarkup) string {
	r.t.Helper()
	r.seq++
	id := fmt.Sprint("cb", r.seq)
	r.fe.HandleUpdate(context.Background(), r.br, &models.Update{ID: int64(r.seq), CallbackQuery: &models.CallbackQuery{
		ID: id, From: user, Data: data,
		Message: models.MaybeInaccessibleMessage{Type: models.MaybeInaccessibleMessageTypeMessage,
			Message: &models.Message{ID: msg, Date: 1700000000, Chat: models.Chat{ID: chat, Type: "supergroup"}, ReplyMarkup: kb}}}})
	if got := r.tg.AnswersFor(id); len(got) != 1 {
		r.t.Fatalf("callback %s (%q) answered %d times: %q", id, data, len(got), got)
	}
	return id
}

// message hands the front-end m, from user in the rig's chat.
func (r *memRig) message(user models.User, m *models.Message) {
	r.seq++
	m.ID, m.Date, m.From = 1000+r.seq, 1700000000, &user
	if m.Chat.ID == 0 {
		m.Chat = models.Chat{ID: r.cfg.ChatID, Type: "supergroup"}
	}
	r.fe.HandleUpdate(context.Background(), r.br, &models.Update{ID: int64(r.seq), Message: m})
}

// reply hands the front-end user's text replying to message to.
func (r *memRig) reply(user models.User, text string, to int) {
	chat := models.Chat{ID: r.cfg.ChatID, Type: "supergroup"}
	r.message(user, &models.Message{Chat: chat, Text: text,
		ReplyToMessage: &models.Message{ID: to, Date: 1700000000, Chat: chat, From: &models.User{ID: 123, IsBot: true}}})
}

// prompt is the last force_reply prompt sent; it fails the test when none was.
func (r *memRig) prompt() int {
	r.t.Helper()
	sent := r.tg.Sent()
	for i := len(sent) - 1; i >= 0; i-- {
		if _, ok := sent[i].ReplyMarkup.(*models.ForceReply); ok {
			return 101 + i
		}
	}
	r.t.Fatal("no prompt was sent")
	return 0
}

// threadOf is the thread the front-end placed e in.
func threadOf(e *pending.Entry) int { return telegram.ThreadAt(e.Places[telegram.Name]) }

var errNoTopics = errors.New("this Telegram client cannot create forum topics")
