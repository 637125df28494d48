package telegramtest_test

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
)

// A bot posts a question with buttons; a user presses one; the bot answers
// the callback and edits the message. The test waits for the edit instead
// of sleeping.
func ExampleServer() {
	const chatID = -1001234567890
	s := telegramtest.NewServer("123:abc")
	defer s.Close()
	if err := s.AddChat(chatID, telegramtest.ChatSupergroup); err != nil {
		panic(err)
	}

	b, err := bot.New("123:abc",
		bot.WithServerURL(s.URL),
		bot.WithSkipGetMe(),
		bot.WithHTTPClient(2*time.Second, &http.Client{Timeout: 10 * time.Second}),
		bot.WithDefaultHandler(func(context.Context, *bot.Bot, *models.Update) {}),
		bot.WithCallbackQueryDataHandler("ans:", bot.MatchTypePrefix, func(ctx context.Context, b *bot.Bot, u *models.Update) {
			q := u.CallbackQuery
			_, _ = b.AnswerCallbackQuery(ctx, &bot.AnswerCallbackQueryParams{CallbackQueryID: q.ID})
			_, _ = b.EditMessageText(ctx, &bot.EditMessageTextParams{
				ChatID:    chatID,
				MessageID: q.Message.Message.ID,
				Text:      "Deploy? <b>yes</b>, said " + q.From.FirstName,
				ParseMode: models.ParseModeHTML,
			})
		}),
	)
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	question, err := b.SendMessage(ctx, &bot.SendMessageParams{
		ChatID: chatID,
		Text:   "Deploy?",
		ReplyMarkup: models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{
			{{Text: "Yes", CallbackData: "ans:1:y"}, {Text: "No", CallbackData: "ans:1:n"}},
		}},
	})
	if err != nil {
		panic(err)
	}

	polling, stop := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		b.Start(polling)
	}()

	if _, err := s.PressButtonText(chatID, question.ID, telegramtest.User{ID: 7, FirstName: "Ann"}, "Yes"); err != nil {
		panic(err)
	}
	m, err := s.WaitMessage(ctx, chatID, func(m telegramtest.Message) bool { return m.Edits > 0 })
	if err != nil {
		panic(err)
	}
	if err := s.Wait(ctx, func() bool { return len(s.UnansweredCallbacks()) == 0 }); err != nil {
		panic(err)
	}
	stop()
	<-stopped

	fmt.Println(m.PlainText)
	fmt.Println("keyboard removed:", m.Keyboard == nil)
	// Output:
	// Deploy? yes, said Ann
	// keyboard removed: true
}
