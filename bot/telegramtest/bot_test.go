package telegramtest_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
)

// newBot returns a go-telegram/bot client of s, set up as hermes-bot sets
// one up (its own server URL, no getMe at start).
func newBot(tb testing.TB, s *telegramtest.Server, opts ...bot.Option) *bot.Bot {
	tb.Helper()
	base := []bot.Option{
		bot.WithServerURL(s.URL),
		bot.WithSkipGetMe(),
		bot.WithHTTPClient(2*time.Second, &http.Client{Timeout: 10 * time.Second}),
		bot.WithNotAsyncHandlers(),
		bot.WithDefaultHandler(func(context.Context, *bot.Bot, *models.Update) {}),
		bot.WithErrorsHandler(func(err error) { tb.Logf("bot: %v", err) }),
	}
	b, err := bot.New(token, append(base, opts...)...)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// start runs b.Start until the test ends, and waits for it to return, so
// no handler outlives the test.
func start(tb testing.TB, b *bot.Bot) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.Start(ctx)
	}()
	tb.Cleanup(func() {
		cancel()
		<-done
	})
}

func TestGoTelegramBotRoundTrip(t *testing.T) {
	s := newServer(t)
	ctx := testContext(t)
	var (
		mu        sync.Mutex
		pressText string // the callback message text the handler saw
		answers   = make(chan string, 1)
	)
	b := newBot(t, s)
	b.RegisterHandler(bot.HandlerTypeCallbackQueryData, "q:", bot.MatchTypePrefix, func(ctx context.Context, b *bot.Bot, u *models.Update) {
		q := u.CallbackQuery
		if _, err := b.AnswerCallbackQuery(ctx, &bot.AnswerCallbackQueryParams{CallbackQueryID: q.ID, Text: "Type your answer"}); err != nil {
			t.Errorf("answer callback: %v", err)
		}
		if q.Message.Message == nil {
			t.Error("callback without its message")
			return
		}
		mu.Lock()
		pressText = q.Message.Message.Text
		mu.Unlock()
		_, err := b.SendMessage(ctx, &bot.SendMessageParams{
			ChatID:          groupID,
			Text:            "@alice, your answer?",
			ReplyParameters: &models.ReplyParameters{MessageID: q.Message.Message.ID},
			ReplyMarkup:     models.ForceReply{ForceReply: true, Selective: true, InputFieldPlaceholder: "Answer"},
		})
		if err != nil {
			t.Errorf("send prompt: %v", err)
		}
	})
	b.RegisterHandlerMatchFunc(func(u *models.Update) bool {
		m := u.Message
		return m != nil && m.ReplyToMessage != nil && m.ReplyToMessage.From != nil && m.ReplyToMessage.From.ID == b.ID()
	}, func(ctx context.Context, b *bot.Bot, u *models.Update) {
		answers <- u.Message.From.FirstName + ": " + u.Message.Text
	})

	// Start-up calls, then the question.
	if _, err := b.DeleteWebhook(ctx, &bot.DeleteWebhookParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.SetMyCommands(ctx, &bot.SetMyCommandsParams{Commands: []models.BotCommand{{Command: "status", Description: "Pending questions"}}}); err != nil {
		t.Fatal(err)
	}
	me, err := b.GetMe(ctx)
	if err != nil || me.ID != botID || me.Username != "hermes_test_bot" {
		t.Fatalf("GetMe = %+v, %v", me, err)
	}
	question, err := b.SendMessage(ctx, &bot.SendMessageParams{
		ChatID:    groupID,
		Text:      "<b>Which database?</b>\nproject &lt;api&gt;",
		ParseMode: models.ParseModeHTML,
		ReplyMarkup: models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{
			{{Text: "Postgres", CallbackData: "q:1:0"}, {Text: "SQLite", CallbackData: "q:1:1"}},
			{{Text: "Other…", CallbackData: "q:1:custom"}},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if question.Text != "Which database?\nproject <api>" || question.From == nil || question.From.ID != botID || question.ReplyMarkup == nil {
		t.Errorf("sent message = %+v", question)
	}
	start(t, b)

	// A user taps "Other…", gets a force-reply prompt and replies to it.
	cb, err := s.PressButtonText(groupID, question.ID, alice, "Other…")
	if err != nil {
		t.Fatal(err)
	}
	if a, err := s.WaitAnswer(ctx, cb); err != nil || a.Text != "Type your answer" {
		t.Fatalf("answer = %+v, %v", a, err)
	}
	prompt, err := s.WaitMessage(ctx, groupID, func(m telegramtest.Message) bool { return m.ForceReply != nil })
	if err != nil {
		t.Fatal(err)
	}
	if prompt.ReplyTo != question.ID || !prompt.ForceReply.Selective || prompt.ForceReply.Placeholder != "Answer" {
		t.Errorf("prompt = %+v", prompt)
	}
	mu.Lock()
	if pressText != "Which database?\nproject <api>" {
		t.Errorf("callback message text = %q, want the plain text", pressText)
	}
	mu.Unlock()
	if _, err := s.Reply(groupID, prompt.ID, alice, "CockroachDB"); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-answers:
		if got != "Alice: CockroachDB" {
			t.Errorf("reply handler got %q", got)
		}
	case <-ctx.Done():
		t.Fatal("the reply never reached the handler")
	}

	// The bot records the answer: the keyboard goes, and the same edit again changes nothing.
	edit := &bot.EditMessageTextParams{ChatID: groupID, MessageID: question.ID, Text: "<b>Which database?</b>\nAnswered by Alice: CockroachDB", ParseMode: models.ParseModeHTML}
	if _, err := b.EditMessageText(ctx, edit); err != nil {
		t.Fatal(err)
	}
	if _, err := b.EditMessageText(ctx, edit); !errors.Is(err, bot.ErrorBadRequest) || !strings.Contains(err.Error(), "message is not modified") {
		t.Errorf("second edit: %v, want not modified", err)
	}
	final, _ := s.Message(groupID, question.ID)
	if final.Keyboard != nil || final.Edits != 1 || final.PlainText != "Which database?\nAnswered by Alice: CockroachDB" {
		t.Errorf("final message = %+v", final)
	}
	if _, err := s.PressButtonText(groupID, question.ID, bob, "Postgres"); !errors.Is(err, telegramtest.ErrNoSuchButton) {
		t.Errorf("pressing a removed button: %v", err)
	}
	if got := s.UnansweredCallbacks(); len(got) != 0 {
		t.Errorf("unanswered callbacks: %v", got)
	}
	if len(s.RequestsFor("deleteWebhook")) != 1 || len(s.RequestsFor("setMyCommands")) != 1 {
		t.Errorf("start-up calls not recorded: %+v", s.Requests())
	}
}

// TestLongPollDoesNotSpin counts the getUpdates calls of a real bot around
// an idle spell: a fake that answered at once would be polled thousands of
// times a second, a long-polling one is polled about once.
func TestLongPollDoesNotSpin(t *testing.T) {
	s := newServer(t)
	ctx := testContext(t)
	got := make(chan string, 1)
	b := newBot(t, s, bot.WithDefaultHandler(func(_ context.Context, _ *bot.Bot, u *models.Update) {
		if u.Message != nil {
			got <- u.Message.Text
		}
	}))
	start(t, b)
	polls, err := s.WaitRequests(ctx, "getUpdates", 1)
	if err != nil {
		t.Fatal(err)
	}
	if polls[0].Params["timeout"] != "1" {
		t.Errorf("the bot polls with timeout %q, want 1", polls[0].Params["timeout"])
	}
	// The idle spell is what is measured, not a synchronisation: the
	// assertion is on the number of calls, and a slower machine only
	// lowers it.
	select {
	case <-time.After(300 * time.Millisecond):
	case <-ctx.Done():
	}
	if _, err := s.SendText(groupID, alice, "hello"); err != nil {
		t.Fatal(err)
	}
	select {
	case text := <-got:
		if text != "hello" {
			t.Errorf("handler got %q", text)
		}
	case <-ctx.Done():
		t.Fatal("the update never reached the handler")
	}
	if n := len(s.RequestsFor("getUpdates")); n > 5 {
		t.Errorf("%d getUpdates calls for one update: the poll does not block", n)
	}
}

func TestGoTelegramBotErrors(t *testing.T) {
	s := newServer(t)
	ctx := testContext(t)
	b := newBot(t, s)
	send := func() error {
		_, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: groupID, Text: "hi"})
		return err
	}

	s.FailNext("sendMessage", telegramtest.Fault{Code: 429, RetryAfter: 3})
	var tooMany *bot.TooManyRequestsError
	if err := send(); !errors.As(err, &tooMany) || tooMany.RetryAfter != 3 {
		t.Errorf("429: %v", err)
	}
	s.FailNext("sendMessage", telegramtest.Fault{Code: 400, MigrateToChatID: -100999})
	var migrate *bot.MigrateError
	if err := send(); !errors.As(err, &migrate) || migrate.MigrateToChatID != -100999 {
		t.Errorf("migrate: %v", err)
	}
	s.FailNextN("sendMessage", 2, telegramtest.Fault{Code: 502, Body: "<html>Bad Gateway</html>"})
	for range 2 {
		if err := send(); err == nil || !strings.Contains(err.Error(), "error decode response body") {
			t.Errorf("502 page: %v", err)
		}
	}
	if err := send(); err != nil {
		t.Errorf("after the faults: %v", err)
	}

	_, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: groupID, Text: "<b>open", ParseMode: models.ParseModeHTML})
	if !errors.Is(err, bot.ErrorBadRequest) || !strings.Contains(err.Error(), `can't parse entities: Can't find end tag corresponding to start tag "b"`) {
		t.Errorf("bad HTML: %v", err)
	}
	_, err = b.AnswerCallbackQuery(ctx, &bot.AnswerCallbackQueryParams{CallbackQueryID: "nope"})
	if !errors.Is(err, bot.ErrorBadRequest) || !strings.Contains(err.Error(), "query is too old") {
		t.Errorf("unknown callback: %v", err)
	}
	wrong, err := bot.New("999:wrong", bot.WithServerURL(s.URL))
	if err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Errorf("bot.New with a wrong token = %v, %v", wrong, err)
	}
	if _, err := bot.New(token, bot.WithServerURL(s.URL)); err != nil {
		t.Errorf("bot.New with getMe: %v", err)
	}
}

// sendDocument through go-telegram: the file arrives byte for byte with its
// caption, as a reply; what Telegram refuses is refused.
func TestSendDocument(t *testing.T) {
	s := newServer(t)
	ctx := testContext(t)
	b := newBot(t, s)
	req := send(t, s, "<b>Permission</b>", map[string]string{"parse_mode": "HTML"})
	diff := []byte("--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-old \x00 bytes\xff\n+new\n")
	doc := func(content []byte, caption string) (*models.Message, error) {
		return b.SendDocument(ctx, &bot.SendDocumentParams{
			ChatID:          groupID,
			Document:        &models.InputFileUpload{Filename: "change.diff", Data: strings.NewReader(string(content))},
			Caption:         caption,
			ParseMode:       models.ParseModeHTML,
			ReplyParameters: &models.ReplyParameters{MessageID: req},
		})
	}
	m, err := doc(diff, "The whole diff of <b>x.go</b>")
	if err != nil {
		t.Fatal(err)
	}
	if m.Document == nil || m.Document.FileName != "change.diff" || m.Document.FileSize != int64(len(diff)) || m.Caption != "The whole diff of x.go" {
		t.Errorf("answer %+v, document %+v", m, m.Document)
	}
	got, ok := s.Message(groupID, m.ID)
	if !ok || got.Document == nil || string(got.Document.Content) != string(diff) || got.ReplyTo != req || got.PlainText != "The whole diff of x.go" {
		t.Errorf("stored %+v", got)
	}
	if _, err := b.EditMessageText(ctx, &bot.EditMessageTextParams{ChatID: groupID, MessageID: m.ID, Text: "x"}); err == nil ||
		!strings.Contains(err.Error(), "there is no text in the message to edit") {
		t.Errorf("editMessageText of a document: %v", err)
	}
	if _, err := doc(nil, ""); err == nil || !strings.Contains(err.Error(), "file must be non-empty") {
		t.Errorf("empty file: %v", err)
	}
	if _, err := doc(diff, strings.Repeat("é", 1025)); err == nil || !strings.Contains(err.Error(), "caption is too long") {
		t.Errorf("long caption: %v", err)
	}
	if _, err := doc(diff, strings.Repeat("é", 1024)); err != nil {
		t.Errorf("a caption of 1024 characters: %v", err)
	}
	if _, err := doc(diff, "<b>unclosed"); err == nil || !strings.Contains(err.Error(), "can't parse entities") {
		t.Errorf("bad caption HTML: %v", err)
	}
	if _, err := b.SendDocument(ctx, &bot.SendDocumentParams{ChatID: groupID, Document: &models.InputFileString{Data: "not-a-file-id"}}); err == nil {
		t.Error("a document that is no upload was accepted")
	}
}

// A file over the upload limit is refused as Telegram refuses one over
// 50 MB; the limit is lowered so the test need not send that much.
func TestSendDocumentTooLarge(t *testing.T) {
	s := newServer(t, telegramtest.WithMaxUpload(1000))
	ctx := testContext(t)
	b := newBot(t, s)
	doc := func(n int) error {
		_, err := b.SendDocument(ctx, &bot.SendDocumentParams{
			ChatID:   groupID,
			Document: &models.InputFileUpload{Filename: "big.txt", Data: strings.NewReader(strings.Repeat("x", n))},
		})
		return err
	}
	if err := doc(1000); err != nil {
		t.Errorf("a file at the limit: %v", err)
	}
	if err := doc(1001); err == nil || !strings.Contains(err.Error(), "Too Large") {
		t.Errorf("a file over the limit: %v", err)
	}
}
