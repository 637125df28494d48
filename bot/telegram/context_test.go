package telegram

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
)

var said = []frontend.ContextLine{
	{Text: "The config says <sqlite> & nothing else."},
	{Tool: "read", Text: "/home/user/projects/demo/settings/config.json"},
	{Text: "Which one do you want?"},
}

// What the agent did before asking shows quoted between the head and the
// question, escaped, its own words in italics and tool calls short; a
// long question is cut around it, within Telegram's limits.
func TestRenderContextAboveQuestion(t *testing.T) {
	e := entryWith(frontend.Question{Text: "Which database?", Custom: true, Options: []frontend.Option{{Label: "Postgres"}}})
	e.Context = said
	text, _ := mustRender(t, e)
	quote := "<blockquote><i>The config says &lt;sqlite&gt; &amp; nothing else.</i>\n🔧 read …/config.json\n<i>Which one do you want?</i></blockquote>"
	i := strings.Index(text, quote)
	if i < 0 {
		t.Fatalf("no context quote %q in\n%s", quote, text)
	}
	if j := strings.Index(text, "Which database?"); j < i || strings.Index(text, "demo") > i {
		t.Errorf("quote not between the head and the question:\n%s", text)
	}

	e.Questions[0].Text = strings.Repeat("long question ", 400)
	e.Context = append(e.Context, frontend.ContextLine{Text: strings.Repeat("x", 1000)})
	text, _ = mustRender(t, e)
	if !strings.Contains(text, "<blockquote>") || !strings.Contains(text, i18n.English.CutNote) {
		t.Errorf("long question with context:\n%s", text)
	}
	if n := u16len(contextBlock(e)); n > maxContext+len("\n<blockquote></blockquote>") {
		t.Errorf("context block is %d units", n)
	}

	e.Context = nil
	if text, _ = mustRender(t, e); strings.Contains(text, "blockquote") {
		t.Errorf("a request without context shows a quote:\n%s", text)
	}
}

// A permission request shows it too, above what it asks.
func TestRenderContextAbovePermission(t *testing.T) {
	v := &frontend.View{UID: "aB3dE6gH", Kind: frontend.KindPermission, Directory: "/home/user/projects/demo",
		SessionID: "ses_1", Context: said, Permission: &frontend.Permission{Kind: "bash", Patterns: []string{"go test ./..."},
			Metadata: json.RawMessage(`{"command":"go test ./..."}`)}}
	text, _, err := renderPermission(&i18n.English, v.UID, []*frontend.View{v}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkMessageText(text); err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	i, j := strings.Index(text, "🔧 read …/config.json"), strings.Index(text, "go test ./...")
	if i < 0 || j < i {
		t.Errorf("context not above the command:\n%s", text)
	}
}

// Stock replies are buttons below a question that takes a typed answer,
// carrying an index; none below one that forbids it.
func TestQuickReplyButtons(t *testing.T) {
	replies := []string{"Yes, go ahead", "No, stop", strings.Repeat("é", 40)}
	e := entryWith(frontend.Question{Text: "Go on?", Custom: true, Options: []frontend.Option{{Label: "Yes"}}})
	_, kb, err := renderQuestion(&i18n.English, e)
	if err != nil {
		t.Fatal(err)
	}
	before := len(kb.InlineKeyboard)
	if kb, err = addQuickReplies(kb, e, replies); err != nil {
		t.Fatal(err)
	}
	if err := checkKeyboard(kb); err != nil {
		t.Fatal(err)
	}
	rows := kb.InlineKeyboard[before:]
	if len(rows) != len(replies) {
		t.Fatalf("%d quick reply rows, want %d", len(rows), len(replies))
	}
	for i, r := range rows {
		d, err := decodeCallback(r[0].CallbackData)
		if err != nil || d.Action != actQuick || d.UID != e.UID || d.Question != 0 || d.Option != i {
			t.Errorf("button %d: %q (%+v, %v)", i, r[0].CallbackData, d, err)
		}
		if !strings.Contains(r[0].Text, replies[i]) {
			t.Errorf("button %d says %q, want %q", i, r[0].Text, replies[i])
		}
	}

	e.Questions[0].Custom = false
	_, kb, _ = renderQuestion(&i18n.English, e)
	n := len(kb.InlineKeyboard)
	if kb, _ = addQuickReplies(kb, e, replies); len(kb.InlineKeyboard) != n {
		t.Errorf("quick replies offered where typing is not allowed")
	}
}

// A stock reply's press answers with what its button showed: an index
// past the replies, or a button showing another reply (they changed since
// it was posted), answers nothing.
func TestQuickReplyOfPress(t *testing.T) {
	f := New(Config{QuickReplies: []string{"Yes, go ahead", "No, stop"}}, nil, nil, zerolog.Nop())
	press := func(i int, label string) *models.CallbackQuery {
		data, err := callbackData{Action: actQuick, UID: "aB3dE6gH", Question: 0, Option: i}.encode()
		if err != nil {
			t.Fatal(err)
		}
		kb := &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{{{Text: label, CallbackData: data}}}}
		return &models.CallbackQuery{Data: data, Message: models.MaybeInaccessibleMessage{Message: &models.Message{ReplyMarkup: kb}}}
	}
	if got := f.quickReply(1, press(1, "💬 No, stop")); got != "No, stop" {
		t.Errorf("press of \"No, stop\" answers %q", got)
	}
	if got := f.quickReply(1, press(1, "💬 Explain first")); got != "" {
		t.Errorf("press of a button showing another reply answers %q", got)
	}
	if got := f.quickReply(2, press(2, "💬 No, stop")); got != "" {
		t.Errorf("press past the replies answers %q", got)
	}
	if got := f.quickReply(0, &models.CallbackQuery{Data: "x"}); got != "Yes, go ahead" {
		t.Errorf("press of a message too old to show answers %q", got)
	}
}
