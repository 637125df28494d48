package telegramtest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
)

const notModified = "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message"

func TestRouting(t *testing.T) {
	s := newServer(t)

	t.Run("wrong token", func(t *testing.T) {
		resp, err := http.Post(s.URL+"/bot999:wrong/getMe", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		status, r := decode(t, "getMe", resp)
		if status != http.StatusUnauthorized || r.Description != "Unauthorized" {
			t.Errorf("got %d %q, want 401 Unauthorized", status, r.Description)
		}
	})
	t.Run("unknown method", func(t *testing.T) {
		status, r := call(t, s, "sendPhoto", nil)
		if status != http.StatusNotFound || r.Description != "Not Found" {
			t.Errorf("got %d %q, want 404 Not Found", status, r.Description)
		}
	})
	t.Run("not a bot path", func(t *testing.T) {
		resp, err := http.Get(s.URL + "/getMe")
		if err != nil {
			t.Fatal(err)
		}
		if status, _ := decode(t, "getMe", resp); status != http.StatusNotFound {
			t.Errorf("status = %d, want 404", status)
		}
	})
	t.Run("GET with query", func(t *testing.T) {
		resp, err := http.Get(s.URL + "/bot" + token + "/getChat?chat_id=" + fmt.Sprint(groupID))
		if err != nil {
			t.Fatal(err)
		}
		_, r := decode(t, "getChat", resp)
		var chat struct {
			ID   int64  `json:"id"`
			Type string `json:"type"`
		}
		if err := json.Unmarshal(r.Result, &chat); err != nil || chat.ID != groupID || chat.Type != "supergroup" {
			t.Errorf("getChat = %s (%v), want the supergroup", r.Result, err)
		}
	})
	t.Run("empty multipart body", func(t *testing.T) {
		// go-telegram/bot sends calls without parameters like this.
		resp, err := http.Post(s.URL+"/bot"+token+"/getMe", "multipart/form-data; boundary=abc", nil)
		if err != nil {
			t.Fatal(err)
		}
		_, r := decode(t, "getMe", resp)
		var me struct {
			ID       int64  `json:"id"`
			IsBot    bool   `json:"is_bot"`
			Username string `json:"username"`
		}
		if err := json.Unmarshal(r.Result, &me); err != nil || me.ID != botID || !me.IsBot || me.Username != "hermes_test_bot" {
			t.Errorf("getMe = %s (%v)", r.Result, err)
		}
	})
	t.Run("JSON body and method case", func(t *testing.T) {
		body := fmt.Sprintf(`{"chat_id":%d,"text":"json","reply_markup":{"inline_keyboard":[[{"text":"A","callback_data":"a"}]]}}`, groupID)
		resp, err := http.Post(s.URL+"/bot"+token+"/SENDMESSAGE", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if _, r := decode(t, "sendMessage", resp); !r.OK {
			t.Fatalf("sendMessage: %s", r.Description)
		}
		reqs := s.RequestsFor("sendMessage")
		if len(reqs) != 1 || reqs[0].Method != "sendMessage" || reqs[0].Params["text"] != "json" ||
			!strings.Contains(reqs[0].Params["reply_markup"], `"callback_data":"a"`) {
			t.Errorf("recorded %+v", reqs)
		}
		msgs := s.Messages(groupID)
		if len(msgs) != 1 || len(msgs[0].Keyboard) != 1 || msgs[0].Keyboard[0][0].CallbackData != "a" {
			t.Errorf("messages = %+v", msgs)
		}
	})
	t.Run("username option", func(t *testing.T) {
		s := telegramtest.NewServer("77:x", telegramtest.WithUsername("other_bot"))
		defer s.Close()
		if u := s.BotUser(); u.ID != 77 || u.Username != "other_bot" {
			t.Errorf("BotUser = %+v", u)
		}
	})
}

func TestSendMessageRejects(t *testing.T) {
	s := newServer(t)
	tooManyRows := make([][]string, 13) // 13 rows of 8: 104 buttons
	for i := range tooManyRows {
		for j := range 8 {
			tooManyRows[i] = append(tooManyRows[i], fmt.Sprintf("b%d=%d", j, i*8+j))
		}
	}
	nine := []string{"1=1", "2=2", "3=3", "4=4", "5=5", "6=6", "7=7", "8=8", "9=9"}
	tests := []struct {
		name string
		p    map[string]string
		want string // description; a trailing "…" makes it a prefix
	}{
		{"unknown chat", map[string]string{"chat_id": "-42"}, "Bad Request: chat not found"},
		{"no chat", map[string]string{"chat_id": ""}, "Bad Request: chat_id is empty"},
		{"empty text", map[string]string{"text": ""}, "Bad Request: message text is empty"},
		{"only white space after tags", map[string]string{"text": "<b> </b>\n", "parse_mode": "HTML"}, "Bad Request: message text is empty"},
		{"4097 characters", map[string]string{"text": strings.Repeat("a", 4097)}, "Bad Request: message is too long"},
		{"4097 visible characters in tags", map[string]string{"text": "<b>" + strings.Repeat("a", 4097) + "</b>", "parse_mode": "HTML"}, "Bad Request: message is too long"},
		{"2049 emoji are 4098 UTF-16 units", map[string]string{"text": strings.Repeat("😀", 2049)}, "Bad Request: message is too long"},
		{"unsupported parse mode", map[string]string{"parse_mode": "XML"}, "Bad Request: unsupported parse_mode"},
		{"unknown tag", map[string]string{"text": "hi <foo>", "parse_mode": "HTML"}, `Bad Request: can't parse entities: Unsupported start tag "foo" at byte offset 3`},
		{"unclosed tag", map[string]string{"text": "<i>hi", "parse_mode": "HTML"}, `Bad Request: can't parse entities: Can't find end tag corresponding to start tag "i"`},
		{"bare ampersand", map[string]string{"text": "a & b", "parse_mode": "HTML"}, `Bad Request: can't parse entities: Unescaped "&" at byte offset 2…`},
		{"MarkdownV2, which the bot never sends", map[string]string{"text": `*end*\.`, "parse_mode": "MarkdownV2"}, "Bad Request: unsupported parse_mode MarkdownV2…"},
		{"legacy Markdown", map[string]string{"text": "*bold*", "parse_mode": "Markdown"}, "Bad Request: unsupported parse_mode Markdown…"},
		{"callback data 65 bytes", map[string]string{"reply_markup": keyboard([]string{"A=" + strings.Repeat("x", 65)})}, "Bad Request: BUTTON_DATA_INVALID"},
		{"callback data 33 two-byte letters", map[string]string{"reply_markup": keyboard([]string{"A=" + strings.Repeat("я", 33)})}, "Bad Request: BUTTON_DATA_INVALID"},
		{"empty callback data", map[string]string{"reply_markup": `{"inline_keyboard":[[{"text":"A","callback_data":""}]]}`}, "Bad Request: BUTTON_DATA_INVALID"},
		{"button without action", map[string]string{"reply_markup": `{"inline_keyboard":[[{"text":"A"}]]}`}, "Bad Request: can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"},
		{"button with only empty copy_text", map[string]string{"reply_markup": `{"inline_keyboard":[[{"text":"A","copy_text":{"text":""}}]]}`}, "Bad Request: can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"},
		{"button with two actions", map[string]string{"reply_markup": `{"inline_keyboard":[[{"text":"A","callback_data":"a","url":"https://x.org"}]]}`}, "Bad Request: can't parse inline keyboard button: a button must have exactly one action…"},
		{"button with empty text", map[string]string{"reply_markup": `{"inline_keyboard":[[{"text":"","callback_data":"a"}]]}`}, "Bad Request: BUTTON_TEXT_INVALID"},
		{"button without text", map[string]string{"reply_markup": `{"inline_keyboard":[[{"callback_data":"a"}]]}`}, `Bad Request: can't parse inline keyboard button: Can't find field "text"`},
		{"unknown button style", map[string]string{"reply_markup": `{"inline_keyboard":[[{"text":"A","callback_data":"a","style":"green"}]]}`}, `Bad Request: can't parse inline keyboard button: unsupported button style "green"`},
		{"empty button style", map[string]string{"reply_markup": `{"inline_keyboard":[[{"text":"A","callback_data":"a","style":""}]]}`}, `Bad Request: can't parse inline keyboard button: unsupported button style ""`},
		{"button style not a string", map[string]string{"reply_markup": `{"inline_keyboard":[[{"text":"A","callback_data":"a","style":1}]]}`}, `Bad Request: can't parse inline keyboard button: Field "style" must be of type String`},
		{"button not an object", map[string]string{"reply_markup": `{"inline_keyboard":[["A"]]}`}, "Bad Request: can't parse inline keyboard button: InlineKeyboardButton should be an Object"},
		{"unsupported URL", map[string]string{"reply_markup": `{"inline_keyboard":[[{"text":"A","url":"ftp://x.org"}]]}`}, "Bad Request: inline keyboard button URL 'ftp://x.org' is invalid: Unsupported URL protocol"},
		{"nine buttons in a row", map[string]string{"reply_markup": keyboard(nine)}, "Bad Request: reply markup is too long"},
		{"more than 100 buttons", map[string]string{"reply_markup": keyboard(tooManyRows...)}, "Bad Request: reply markup is too long"},
		{"null inline keyboard", map[string]string{"reply_markup": `{"inline_keyboard":null}`}, `Bad Request: field "inline_keyboard" of the InlineKeyboardMarkup should be an Array of Arrays`},
		{"markup not JSON", map[string]string{"reply_markup": `{"inline_keyboard":`}, "Bad Request: can't parse reply keyboard markup JSON object"},
		{"markup not an object", map[string]string{"reply_markup": `[]`}, "Bad Request: object expected as reply markup"},
		{"force_reply false", map[string]string{"reply_markup": `{"force_reply":false}`}, `Bad Request: field "force_reply" of the ForceReply must be true`},
		{"placeholder of 65 characters", map[string]string{"reply_markup": `{"force_reply":true,"input_field_placeholder":"` + strings.Repeat("p", 65) + `"}`}, "Bad Request: input field placeholder is too long"},
		{"reply to a missing message", map[string]string{"reply_parameters": `{"message_id":999}`}, "Bad Request: message to be replied not found"},
		{"legacy reply to a missing message", map[string]string{"reply_to_message_id": "999"}, "Bad Request: message to be replied not found"},
		{"thread in a chat without topics", map[string]string{"message_thread_id": "7"}, "Bad Request: message thread not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := map[string]string{"chat_id": fmt.Sprint(groupID), "text": "hi"}
			for k, v := range tt.p {
				p[k] = v
			}
			status, r := call(t, s, "sendMessage", p)
			if r.OK || status != http.StatusBadRequest {
				t.Fatalf("got %d ok=%v, want 400 %q", status, r.OK, tt.want)
			}
			if prefix, ok := strings.CutSuffix(tt.want, "…"); ok {
				if !strings.HasPrefix(r.Description, prefix) {
					t.Errorf("description = %q, want prefix %q", r.Description, prefix)
				}
			} else if r.Description != tt.want {
				t.Errorf("description = %q, want %q", r.Description, tt.want)
			}
		})
	}
	if msgs := s.Messages(groupID); len(msgs) != 0 {
		t.Errorf("rejected sends stored %d messages", len(msgs))
	}
}

func TestSendMessageAccepts(t *testing.T) {
	s := newServer(t)
	// What go-telegram/bot sends for a callback button.
	goTelegramButton := `{"inline_keyboard":[[{"text":"Yes","callback_data":"a:1:y","copy_text":{"text":""}}]]}`
	tests := []struct {
		name  string
		p     map[string]string
		plain string
	}{
		{"4096 characters", map[string]string{"text": strings.Repeat("a", 4096)}, strings.Repeat("a", 4096)},
		{"4096 visible characters in tags", map[string]string{"text": "<b>" + strings.Repeat("a", 4096) + "</b>", "parse_mode": "HTML"}, strings.Repeat("a", 4096)},
		{"4096 escaped characters", map[string]string{"text": strings.Repeat("&lt;", 4096), "parse_mode": "HTML"}, strings.Repeat("<", 4096)},
		{"2048 emoji", map[string]string{"text": strings.Repeat("😀", 2048)}, strings.Repeat("😀", 2048)},
		{"lower-case parse mode", map[string]string{"text": "<i>x</i>", "parse_mode": "html"}, "x"},
		{"callback data 64 bytes", map[string]string{"reply_markup": keyboard([]string{"A=" + strings.Repeat("x", 64)})}, "hi"},
		{"callback data 32 two-byte letters", map[string]string{"reply_markup": keyboard([]string{"A=" + strings.Repeat("я", 32)})}, "hi"},
		{"go-telegram button with empty copy_text", map[string]string{"reply_markup": goTelegramButton}, "hi"},
		{"copy_text button", map[string]string{"reply_markup": `{"inline_keyboard":[[{"text":"Copy","copy_text":{"text":"abc"}}]]}`}, "hi"},
		{"URL button", map[string]string{"reply_markup": `{"inline_keyboard":[[{"text":"Open","url":"https://example.com"}]]}`}, "hi"},
		{"8 buttons in a row", map[string]string{"reply_markup": keyboard([]string{"1=1", "2=2", "3=3", "4=4", "5=5", "6=6", "7=7", "8=8"})}, "hi"},
		{"empty keyboard", map[string]string{"reply_markup": `{"inline_keyboard":[]}`}, "hi"},
		{"force reply", map[string]string{"reply_markup": `{"force_reply":true,"selective":true,"input_field_placeholder":"` + strings.Repeat("p", 64) + `"}`}, "hi"},
		{"reply to a missing message allowed", map[string]string{"reply_parameters": `{"message_id":999,"allow_sending_without_reply":true}`}, "hi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := map[string]string{"chat_id": fmt.Sprint(groupID), "text": "hi"}
			for k, v := range tt.p {
				p[k] = v
			}
			var m wireMessage
			if err := json.Unmarshal(mustCall(t, s, "sendMessage", p), &m); err != nil {
				t.Fatal(err)
			}
			if m.Text != tt.plain {
				t.Errorf("result text = %.40q…, want %.40q…", m.Text, tt.plain)
			}
			stored, ok := s.Message(groupID, m.MessageID)
			if !ok || stored.Text != p["text"] || stored.PlainText != tt.plain || stored.ReplyTo != 0 {
				t.Errorf("stored %+v, %v", stored, ok)
			}
		})
	}
}

func TestSentMessage(t *testing.T) {
	s := newServer(t)
	first := send(t, s, "first", nil)
	var m wireMessage
	err := json.Unmarshal(mustCall(t, s, "sendMessage", map[string]string{
		"chat_id":          fmt.Sprint(groupID),
		"text":             "<b>Deploy?</b> &lt;prod&gt;",
		"parse_mode":       "HTML",
		"reply_parameters": fmt.Sprintf(`{"message_id":%d}`, first),
		"reply_markup":     keyboard([]string{"Yes=a:1:y", "No=a:1:n"}),
	}), &m)
	if err != nil {
		t.Fatal(err)
	}
	if m.MessageID != first+1 || m.Date == 0 || m.From.ID != botID || !m.From.IsBot || m.Chat.ID != groupID || m.Chat.Type != "supergroup" {
		t.Errorf("result header = %+v", m)
	}
	if m.Text != "Deploy? <prod>" {
		t.Errorf("result text = %q, want the visible text", m.Text)
	}
	if m.ReplyToMessage == nil || m.ReplyToMessage.MessageID != first {
		t.Errorf("reply_to_message = %+v, want message %d", m.ReplyToMessage, first)
	}
	if m.ReplyMarkup == nil || len(m.ReplyMarkup.InlineKeyboard) != 1 || m.ReplyMarkup.InlineKeyboard[0][1]["callback_data"] != "a:1:n" {
		t.Errorf("reply_markup = %+v", m.ReplyMarkup)
	}

	got, ok := s.Message(groupID, m.MessageID)
	want := []telegramtest.Entity{{Type: "bold", Offset: 0, Length: 7}}
	if !ok || got.Text != "<b>Deploy?</b> &lt;prod&gt;" || got.PlainText != "Deploy? <prod>" || got.ParseMode != "HTML" ||
		!got.FromBot || got.From.ID != botID || got.ReplyTo != first || got.Edits != 0 || got.Date.IsZero() ||
		len(got.Entities) != 1 || got.Entities[0] != want[0] {
		t.Errorf("stored %+v", got)
	}
	wantKB := [][]telegramtest.Button{{{Text: "Yes", CallbackData: "a:1:y"}, {Text: "No", CallbackData: "a:1:n"}}}
	if fmt.Sprint(got.Keyboard) != fmt.Sprint(wantKB) {
		t.Errorf("keyboard = %v, want %v", got.Keyboard, wantKB)
	}

	legacy := send(t, s, "legacy", map[string]string{"reply_to_message_id": fmt.Sprint(first)})
	if got, _ := s.Message(groupID, legacy); got.ReplyTo != first {
		t.Errorf("reply_to_message_id: ReplyTo = %d, want %d", got.ReplyTo, first)
	}
	prompt := send(t, s, "Your answer?", map[string]string{"reply_markup": `{"force_reply":true,"selective":true,"input_field_placeholder":"type"}`})
	if got, _ := s.Message(groupID, prompt); got.ForceReply == nil || !got.ForceReply.Selective || got.ForceReply.Placeholder != "type" || got.Keyboard != nil {
		t.Errorf("force reply message = %+v", got)
	}
	if n := len(s.Messages(groupID)); n != 4 {
		t.Errorf("Messages returned %d messages, want 4", n)
	}
}

func TestForumTopics(t *testing.T) {
	s := newServer(t)
	const forumID int64 = -1009
	if err := s.AddForum(forumID); err != nil {
		t.Fatal(err)
	}
	var m struct {
		ThreadID int  `json:"message_thread_id"`
		IsTopic  bool `json:"is_topic_message"`
	}
	res := mustCall(t, s, "sendMessage", map[string]string{"chat_id": fmt.Sprint(forumID), "text": "hi", "message_thread_id": "7"})
	if err := json.Unmarshal(res, &m); err != nil || m.ThreadID != 7 || !m.IsTopic {
		t.Errorf("topic message = %s (%v)", res, err)
	}
	if msgs := s.Messages(forumID); len(msgs) != 1 || msgs[0].ThreadID != 7 {
		t.Errorf("messages = %+v", msgs)
	}
	if err := s.AddChat(1, "bogus"); err == nil {
		t.Error("AddChat accepted an unknown chat type")
	}
}

func TestEdits(t *testing.T) {
	s := newServer(t)
	kb := keyboard([]string{"Yes=a:1:y"})
	id := send(t, s, "<b>Q</b>", map[string]string{"parse_mode": "HTML", "reply_markup": kb})
	edit := func(method string, p map[string]string) (int, apiResponse) {
		t.Helper()
		full := map[string]string{"chat_id": fmt.Sprint(groupID), "message_id": fmt.Sprint(id)}
		for k, v := range p {
			full[k] = v
		}
		return call(t, s, method, full)
	}
	expectError := func(what string, r apiResponse, want string) {
		t.Helper()
		if r.OK || r.Description != want {
			t.Errorf("%s: got ok=%v %q, want %q", what, r.OK, r.Description, want)
		}
	}

	_, r := edit("editMessageText", map[string]string{"text": "<b>Q</b>", "parse_mode": "HTML", "reply_markup": kb})
	expectError("same text and keyboard", r, notModified)
	_, r = edit("editMessageText", map[string]string{"text": "<strong>Q</strong>", "parse_mode": "HTML", "reply_markup": kb})
	expectError("same visible text, other tag", r, notModified)

	// Without reply_markup the keyboard goes: that is a change.
	if _, r = edit("editMessageText", map[string]string{"text": "<b>Q</b>", "parse_mode": "HTML"}); !r.OK {
		t.Fatalf("edit removing the keyboard: %s", r.Description)
	}
	var m wireMessage
	if err := json.Unmarshal(r.Result, &m); err != nil || m.ReplyMarkup != nil || m.Text != "Q" {
		t.Errorf("edit result = %s (%v)", r.Result, err)
	}
	if got, _ := s.Message(groupID, id); got.Keyboard != nil || got.Edits != 1 {
		t.Errorf("after edit: %+v", got)
	}
	_, r = edit("editMessageText", map[string]string{"text": "<b>Q</b>", "parse_mode": "HTML"})
	expectError("same again", r, notModified)

	if _, r = edit("editMessageText", map[string]string{"text": "Answered: yes", "reply_markup": `{"inline_keyboard":[]}`}); !r.OK {
		t.Fatalf("editMessageText with empty keyboard: %s", r.Description)
	}
	got, _ := s.Message(groupID, id)
	if got.Edits != 2 || got.Text != "Answered: yes" || got.PlainText != "Answered: yes" || got.ParseMode != "" || got.Keyboard != nil {
		t.Errorf("after two edits: %+v", got)
	}

	_, r = edit("editMessageText", map[string]string{"text": "x", "reply_markup": `{"force_reply":true}`})
	expectError("force_reply on edit", r, "Bad Request: inline keyboard expected")
	_, r = edit("editMessageText", map[string]string{"text": "<b>x", "parse_mode": "HTML"})
	expectError("bad HTML on edit", r, `Bad Request: can't parse entities: Can't find end tag corresponding to start tag "b"`)
	_, r = edit("editMessageText", map[string]string{"text": strings.Repeat("b", 4097)})
	expectError("long text on edit", r, "Bad Request: message is too long")
	_, r = edit("editMessageText", map[string]string{"text": "x", "reply_markup": keyboard([]string{"A=" + strings.Repeat("d", 65)})})
	expectError("long callback data on edit", r, "Bad Request: BUTTON_DATA_INVALID")
	_, r = call(t, s, "editMessageText", map[string]string{"chat_id": fmt.Sprint(groupID), "message_id": "999", "text": "x"})
	expectError("unknown message", r, "Bad Request: message to edit not found")
	_, r = call(t, s, "editMessageText", map[string]string{"chat_id": fmt.Sprint(groupID), "text": "x"})
	expectError("no message_id", r, "Bad Request: message identifier is not specified")

	userMsg, err := s.SendText(groupID, alice, "mine")
	if err != nil {
		t.Fatal(err)
	}
	_, r = call(t, s, "editMessageText", map[string]string{"chat_id": fmt.Sprint(groupID), "message_id": fmt.Sprint(userMsg), "text": "x"})
	expectError("a user's message", r, "Bad Request: message can't be edited")
}

func TestCallbacks(t *testing.T) {
	s := newServer(t)
	id := send(t, s, "<i>Pick</i>", map[string]string{"parse_mode": "HTML", "reply_markup": `{"inline_keyboard":[[{"text":"Yes","callback_data":"a:1:y"},{"text":"Docs","url":"https://example.com"}]]}`})

	if _, err := s.PressButton(groupID, id, alice, "a:1:n"); !errors.Is(err, telegramtest.ErrNoSuchButton) {
		t.Errorf("pressing data not on the keyboard: err = %v, want ErrNoSuchButton", err)
	}
	if _, err := s.PressButtonText(groupID, id, alice, "No"); !errors.Is(err, telegramtest.ErrNoSuchButton) {
		t.Errorf("pressing a missing text: err = %v", err)
	}
	if _, err := s.PressButtonText(groupID, id, alice, "Docs"); !errors.Is(err, telegramtest.ErrNoSuchButton) {
		t.Errorf("pressing a URL button: err = %v", err)
	}
	if _, err := s.PressButton(groupID, 999, alice, "a:1:y"); !errors.Is(err, telegramtest.ErrUnknownMessage) {
		t.Errorf("pressing on a missing message: err = %v", err)
	}
	if _, err := s.PressData(-5, id, alice, "x"); !errors.Is(err, telegramtest.ErrUnknownChat) {
		t.Errorf("pressing in a missing chat: err = %v", err)
	}
	if n := s.PendingUpdates(); n != 0 {
		t.Fatalf("failed presses queued %d updates", n)
	}

	cb, err := s.PressButtonText(groupID, id, alice, "Yes")
	if err != nil {
		t.Fatal(err)
	}
	var updates []struct {
		UpdateID      int64 `json:"update_id"`
		CallbackQuery struct {
			ID   string `json:"id"`
			Data string `json:"data"`
			From struct {
				ID        int64  `json:"id"`
				FirstName string `json:"first_name"`
			} `json:"from"`
			ChatInstance string      `json:"chat_instance"`
			Message      wireMessage `json:"message"`
		} `json:"callback_query"`
	}
	if err := json.Unmarshal(mustCall(t, s, "getUpdates", nil), &updates); err != nil || len(updates) != 1 {
		t.Fatalf("updates = %+v (%v)", updates, err)
	}
	q := updates[0].CallbackQuery
	if q.ID != cb || q.Data != "a:1:y" || q.From.ID != alice.ID || q.From.FirstName != "Alice" || q.ChatInstance == "" {
		t.Errorf("callback query = %+v", q)
	}
	if q.Message.MessageID != id || q.Message.Date == 0 || q.Message.Text != "Pick" || q.Message.From.ID != botID || q.Message.ReplyMarkup == nil {
		t.Errorf("callback message = %+v", q.Message)
	}
	if got := s.UnansweredCallbacks(); len(got) != 1 || got[0] != cb {
		t.Errorf("unanswered = %v, want [%s]", got, cb)
	}

	answer := func(p map[string]string) apiResponse {
		t.Helper()
		_, r := call(t, s, "answerCallbackQuery", p)
		return r
	}
	const tooOld = "Bad Request: query is too old and response timeout expired or query ID is invalid"
	if r := answer(map[string]string{"callback_query_id": "12345"}); r.Description != tooOld {
		t.Errorf("unknown query: %q", r.Description)
	}
	if r := answer(map[string]string{"callback_query_id": cb, "text": strings.Repeat("t", 201)}); r.Description != "Bad Request: MESSAGE_TOO_LONG" {
		t.Errorf("201-character answer: %q", r.Description)
	}
	if r := answer(map[string]string{"callback_query_id": cb, "text": strings.Repeat("t", 200), "show_alert": "true"}); !r.OK || string(r.Result) != "true" {
		t.Errorf("first answer: %+v", r)
	}
	if r := answer(map[string]string{"callback_query_id": cb}); r.Description != tooOld {
		t.Errorf("second answer: %q", r.Description)
	}
	answers := s.CallbackAnswers()
	if len(answers) != 1 || answers[0].ID != cb || !answers[0].ShowAlert || len(answers[0].Text) != 200 {
		t.Errorf("answers = %+v", answers)
	}
	if got := s.UnansweredCallbacks(); len(got) != 0 {
		t.Errorf("unanswered after answer = %v", got)
	}

	// A stale keyboard: the button is gone, but an old client can still send its data.
	mustCall(t, s, "editMessageText", map[string]string{"chat_id": fmt.Sprint(groupID), "message_id": fmt.Sprint(id), "text": "Picked"})
	if _, err := s.PressButtonText(groupID, id, alice, "Yes"); !errors.Is(err, telegramtest.ErrNoSuchButton) {
		t.Errorf("pressing a removed button: err = %v", err)
	}
	_, err = s.PressData(groupID, id, bob, "a:1:y")
	if err != nil {
		t.Fatal(err)
	}

	// A press on a message the chat does not have carries an inaccessible
	// message (date 0).
	if _, err := s.PressData(groupID, id+100, bob, "a:1:y"); err != nil {
		t.Fatal(err)
	}
	var late []struct {
		CallbackQuery models.CallbackQuery `json:"callback_query"`
	}
	if err := json.Unmarshal(mustCall(t, s, "getUpdates", map[string]string{"offset": fmt.Sprint(updates[0].UpdateID + 1)}), &late); err != nil || len(late) != 2 {
		t.Fatalf("updates after stale presses = %+v (%v)", late, err)
	}
	if late[0].CallbackQuery.Message.Message == nil || late[1].CallbackQuery.Message.Message != nil || late[1].CallbackQuery.Message.InaccessibleMessage == nil {
		t.Errorf("stale presses: %+v / %+v", late[0].CallbackQuery.Message, late[1].CallbackQuery.Message)
	}
}

func TestUserMessages(t *testing.T) {
	s := newServer(t)
	prompt := send(t, s, "Your answer?", map[string]string{"reply_markup": `{"force_reply":true,"selective":true}`})
	id, err := s.Reply(groupID, prompt, alice, "typed answer")
	if err != nil {
		t.Fatal(err)
	}
	cmd, err := s.SendText(groupID, bob, "/start now")
	if err != nil {
		t.Fatal(err)
	}
	var updates []models.Update
	if err := json.Unmarshal(mustCall(t, s, "getUpdates", nil), &updates); err != nil || len(updates) != 2 {
		t.Fatalf("updates = %+v (%v)", updates, err)
	}
	m := updates[0].Message
	if m == nil || m.ID != id || m.Text != "typed answer" || m.From.ID != alice.ID || m.From.IsBot || m.Date == 0 ||
		m.ReplyToMessage == nil || m.ReplyToMessage.ID != prompt || m.ReplyToMessage.From.ID != botID || !m.ReplyToMessage.From.IsBot {
		t.Errorf("reply update = %+v", m)
	}
	c := updates[1].Message
	if c == nil || c.ID != cmd || c.ReplyToMessage != nil || len(c.Entities) != 1 || c.Entities[0].Type != "bot_command" || c.Entities[0].Length != 6 {
		t.Errorf("command update = %+v", c)
	}
	if stored, ok := s.Message(groupID, id); !ok || stored.FromBot || stored.From != alice || stored.ReplyTo != prompt {
		t.Errorf("stored reply = %+v", stored)
	}
	if len(s.Messages(groupID)) != 1 {
		t.Error("Messages lists users' messages")
	}
	// The bot may reply to a user's message.
	send(t, s, "ok", map[string]string{"reply_parameters": fmt.Sprintf(`{"message_id":%d}`, id)})

	if _, err := s.Reply(groupID, 999, alice, "x"); !errors.Is(err, telegramtest.ErrUnknownMessage) {
		t.Errorf("reply to a missing message: err = %v", err)
	}
	if _, err := s.SendText(groupID, alice, " "); !errors.Is(err, telegramtest.ErrEmptyText) {
		t.Errorf("empty text: err = %v", err)
	}
	if _, err := s.SendText(-7, alice, "x"); !errors.Is(err, telegramtest.ErrUnknownChat) {
		t.Errorf("unknown chat: err = %v", err)
	}
}

func TestEnqueue(t *testing.T) {
	s := newServer(t)
	first, err := s.Enqueue(json.RawMessage(`{"update_id":999,"edited_message":{"message_id":1,"date":1,"chat":{"id":1,"type":"private"},"text":"x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.Enqueue(models.Update{Message: &models.Message{ID: 5, Date: 1, Chat: models.Chat{ID: groupID, Type: "supergroup"}, Text: "typed"}})
	if err != nil {
		t.Fatal(err)
	}
	if first != 1 || second != 2 {
		t.Errorf("update IDs = %d, %d; want 1, 2", first, second)
	}
	var updates []models.Update
	if err := json.Unmarshal(mustCall(t, s, "getUpdates", nil), &updates); err != nil || len(updates) != 2 {
		t.Fatalf("updates = %+v (%v)", updates, err)
	}
	if updates[0].ID != 1 || updates[0].EditedMessage == nil || updates[1].ID != 2 || updates[1].Message == nil || updates[1].Message.Text != "typed" {
		t.Errorf("updates = %+v, %+v", updates[0], updates[1])
	}
	for _, bad := range []any{`[1]`, `{"update_id":3}`, `{"message":{},"callback_query":{}}`, make(chan int)} {
		if _, err := s.Enqueue(bad); err == nil {
			t.Errorf("Enqueue(%v) succeeded", bad)
		}
	}
}

func TestGetUpdatesOffsetAndLimit(t *testing.T) {
	s := newServer(t)
	for i := range 3 {
		if _, err := s.SendText(groupID, alice, fmt.Sprint("m", i)); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(p map[string]string) []int64 {
		t.Helper()
		var updates []models.Update
		if err := json.Unmarshal(mustCall(t, s, "getUpdates", p), &updates); err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, u := range updates {
			out = append(out, u.ID)
		}
		return out
	}
	if got := ids(map[string]string{"limit": "2"}); fmt.Sprint(got) != "[1 2]" {
		t.Errorf("limit 2: %v", got)
	}
	if got := ids(nil); fmt.Sprint(got) != "[1 2 3]" {
		t.Errorf("unconfirmed updates are sent again: %v", got)
	}
	if got := ids(map[string]string{"offset": "3"}); fmt.Sprint(got) != "[3]" {
		t.Errorf("offset 3: %v", got)
	}
	if n := s.PendingUpdates(); n != 1 {
		t.Errorf("offset 3 left %d updates, want 1", n)
	}
	if got := ids(map[string]string{"offset": "1"}); fmt.Sprint(got) != "[3]" {
		t.Errorf("confirmed updates came back: %v", got)
	}
	for range 3 {
		if _, err := s.SendText(groupID, alice, "more"); err != nil {
			t.Fatal(err)
		}
	}
	if got := ids(map[string]string{"offset": "-2"}); fmt.Sprint(got) != "[5 6]" {
		t.Errorf("offset -2: %v", got)
	}
	if got := ids(map[string]string{"offset": "7"}); len(got) != 0 || s.PendingUpdates() != 0 {
		t.Errorf("after confirming all: %v, %d pending", got, s.PendingUpdates())
	}
}

func TestGetUpdatesLongPoll(t *testing.T) {
	// A cap far beyond the test's deadline: the poll can only end because
	// an update arrived.
	s := newServer(t, telegramtest.WithMaxPollWait(time.Hour))
	ctx := testContext(t)
	type result struct {
		status int
		r      apiResponse
		err    error
	}
	poll := func(p string) <-chan result {
		ch := make(chan result, 1)
		go func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/bot"+token+"/getUpdates", strings.NewReader(p))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				ch <- result{err: err}
				return
			}
			defer resp.Body.Close()
			var r apiResponse
			err = json.NewDecoder(resp.Body).Decode(&r)
			ch <- result{resp.StatusCode, r, err}
		}()
		return ch
	}

	waiting := poll("timeout=30")
	if _, err := s.WaitRequests(ctx, "getUpdates", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SendText(groupID, alice, "wake up"); err != nil {
		t.Fatal(err)
	}
	res := <-waiting
	if res.err != nil || !res.r.OK || !strings.Contains(string(res.r.Result), "wake up") {
		t.Fatalf("long poll = %+v", res)
	}

	// A second poller ends the first with 409, as Telegram does.
	first := poll("offset=2&timeout=30")
	if err := s.WaitPolls(ctx, 2); err != nil {
		t.Fatal(err)
	}
	second := poll("offset=2&timeout=0")
	res = <-first
	if res.err != nil || res.status != http.StatusConflict || res.r.Description != "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running" {
		t.Errorf("first poller = %+v", res)
	}
	if res = <-second; res.err != nil || !res.r.OK || string(res.r.Result) != "[]" {
		t.Errorf("second poller = %+v", res)
	}
}

func TestGetUpdatesIdleTimeout(t *testing.T) {
	s := newServer(t, telegramtest.WithMaxPollWait(10*time.Millisecond))
	if res := mustCall(t, s, "getUpdates", map[string]string{"timeout": "50"}); string(res) != "[]" {
		t.Errorf("idle poll = %s, want []", res)
	}
}

func TestAllowedUpdatesAndWebhook(t *testing.T) {
	s := newServer(t)
	id := send(t, s, "q", map[string]string{"reply_markup": keyboard([]string{"A=a"})})
	if _, err := s.SendText(groupID, alice, "ignored"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PressButton(groupID, id, alice, "a"); err != nil {
		t.Fatal(err)
	}
	var updates []models.Update
	if err := json.Unmarshal(mustCall(t, s, "getUpdates", map[string]string{"allowed_updates": `["callback_query"]`}), &updates); err != nil {
		t.Fatal(err)
	}
	if len(updates) != 1 || updates[0].CallbackQuery == nil || s.PendingUpdates() != 1 {
		t.Errorf("allowed callback_query only: %+v, %d pending", updates, s.PendingUpdates())
	}

	s.SetWebhook("https://example.com/hook")
	const active = "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"
	if status, r := call(t, s, "getUpdates", nil); status != http.StatusConflict || r.Description != active {
		t.Errorf("with a webhook: %d %q", status, r.Description)
	}
	mustCall(t, s, "deleteWebhook", map[string]string{"drop_pending_updates": "true"})
	if res := mustCall(t, s, "getUpdates", nil); string(res) != "[]" || s.PendingUpdates() != 0 {
		t.Errorf("after deleteWebhook with drop_pending_updates: %s", res)
	}
	if n := len(s.RequestsFor("deleteWebhook")); n != 1 {
		t.Errorf("recorded %d deleteWebhook calls", n)
	}
}

func TestOtherMethods(t *testing.T) {
	s := newServer(t)
	if res := mustCall(t, s, "setMyCommands", map[string]string{"commands": `[{"command":"status","description":"Show pending questions"}]`}); string(res) != "true" {
		t.Errorf("setMyCommands = %s", res)
	}
	for _, bad := range []string{`[{"command":"Bad-Name","description":"x"}]`, `[{"command":"ok","description":""}]`, `{`} {
		if _, r := call(t, s, "setMyCommands", map[string]string{"commands": bad}); r.OK {
			t.Errorf("setMyCommands accepted %s", bad)
		}
	}
	if reqs := s.RequestsFor("setMyCommands"); len(reqs) != 4 || !strings.Contains(reqs[0].Params["commands"], "status") {
		t.Errorf("recorded setMyCommands = %+v", reqs)
	}
	if _, r := call(t, s, "getChat", map[string]string{"chat_id": "-1"}); r.Description != "Bad Request: chat not found" {
		t.Errorf("getChat of an unknown chat: %q", r.Description)
	}
}

func TestFaults(t *testing.T) {
	s := newServer(t)
	p := map[string]string{"chat_id": fmt.Sprint(groupID), "text": "hi"}

	s.FailNext("sendMessage", telegramtest.Fault{Code: 429, RetryAfter: 7})
	status, r := call(t, s, "sendMessage", p)
	if status != 429 || r.Description != "Too Many Requests: retry after 7" || r.Parameters.RetryAfter != 7 {
		t.Errorf("429 fault = %d %+v", status, r)
	}
	s.FailNextN("sendMessage", 2, telegramtest.Fault{Code: 500})
	for i := range 2 {
		if status, r := call(t, s, "sendMessage", p); status != 500 || r.Description != "Internal Server Error" {
			t.Errorf("500 fault %d = %d %q", i, status, r.Description)
		}
	}
	s.FailNext("sendmessage", telegramtest.Fault{Code: 400, MigrateToChatID: -100777})
	if _, r := call(t, s, "sendMessage", p); r.Parameters.MigrateToChatID != -100777 || r.Description != "Bad Request: group chat was upgraded to a supergroup chat" {
		t.Errorf("migrate fault = %+v", r)
	}
	s.FailNext("sendMessage", telegramtest.Fault{Code: 502, Body: "<html>Bad Gateway</html>"})
	resp, err := http.Post(s.URL+"/bot"+token+"/sendMessage", "application/x-www-form-urlencoded", strings.NewReader("chat_id=1&text=x"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 502 || !bytes.Equal(body, []byte("<html>Bad Gateway</html>")) {
		t.Errorf("raw fault = %d %q", resp.StatusCode, body)
	}
	if n := len(s.Messages(groupID)); n != 0 {
		t.Errorf("failed calls stored %d messages", n)
	}
	s.FailNextN("sendMessage", 5, telegramtest.Fault{Code: 500})
	if status, _ := call(t, s, "sendMessage", p); status != 500 {
		t.Errorf("before ClearFaults: status %d, want 500", status)
	}
	s.ClearFaults("SendMessage")
	mustCall(t, s, "sendMessage", p)
	if n := len(s.Messages(groupID)); n != 1 {
		t.Errorf("after the faults: %d messages, want 1", n)
	}
	if n := len(s.RequestsFor("sendMessage")); n != 7 {
		t.Errorf("recorded %d sendMessage calls, want 7", n)
	}
}

func TestWaitEndsWithContext(t *testing.T) {
	s := newServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Wait(ctx, func() bool { return false }); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait = %v, want context.Canceled", err)
	}
	if _, err := s.WaitMessage(ctx, groupID, func(telegramtest.Message) bool { return true }); !errors.Is(err, context.Canceled) {
		t.Errorf("WaitMessage = %v, want context.Canceled", err)
	}
}

func TestClose(t *testing.T) {
	s := telegramtest.NewServer(token, telegramtest.WithMaxPollWait(time.Hour))
	done := make(chan error, 1)
	go func() {
		resp, err := http.Post(s.URL+"/bot"+token+"/getUpdates", "application/x-www-form-urlencoded", strings.NewReader("timeout=30"))
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	if _, err := s.WaitRequests(testContext(t), "getUpdates", 1); err != nil {
		t.Fatal(err)
	}
	s.Close() // must end the hour-long poll, or the test hangs
	s.Close()
	if err := <-done; err != nil {
		t.Errorf("long poll during Close: %v", err)
	}
	if _, err := http.Post(s.URL+"/bot"+token+"/getMe", "", nil); err == nil {
		t.Error("server still answers after Close")
	}
}

func TestCreateForumTopic(t *testing.T) {
	s := newServer(t)
	const forumID int64 = -1009
	if err := s.AddForum(forumID); err != nil {
		t.Fatal(err)
	}
	var topic struct {
		ThreadID int    `json:"message_thread_id"`
		Name     string `json:"name"`
	}
	res := mustCall(t, s, "createForumTopic", map[string]string{"chat_id": fmt.Sprint(forumID), "name": "demo"})
	if err := json.Unmarshal(res, &topic); err != nil || topic.ThreadID <= 0 || topic.Name != "demo" {
		t.Fatalf("createForumTopic = %s (%v)", res, err)
	}
	// The topic's thread takes a message ID, so the next message's ID is past it.
	var m struct {
		ID       int  `json:"message_id"`
		ThreadID int  `json:"message_thread_id"`
		IsTopic  bool `json:"is_topic_message"`
	}
	res = mustCall(t, s, "sendMessage", map[string]string{"chat_id": fmt.Sprint(forumID), "text": "hi",
		"message_thread_id": fmt.Sprint(topic.ThreadID)})
	if err := json.Unmarshal(res, &m); err != nil || m.ThreadID != topic.ThreadID || !m.IsTopic || m.ID <= topic.ThreadID {
		t.Errorf("message in the topic = %s (%v)", res, err)
	}
	if got := s.Topics(forumID); len(got) != 1 || got[0] != (telegramtest.Topic{ThreadID: topic.ThreadID, Name: "demo"}) {
		t.Errorf("Topics = %+v", got)
	}
	for _, c := range []struct {
		name string
		p    map[string]string
		want string
	}{
		{"not a forum", map[string]string{"chat_id": fmt.Sprint(groupID), "name": "x"}, "Bad Request: the chat is not a forum"},
		{"unknown chat", map[string]string{"chat_id": "-42", "name": "x"}, "Bad Request: chat not found"},
		{"no chat", map[string]string{"name": "x"}, "Bad Request: chat_id is empty"},
		{"empty name", map[string]string{"chat_id": fmt.Sprint(forumID), "name": ""}, "Bad Request: TOPIC_TITLE_EMPTY"},
		{"long name", map[string]string{"chat_id": fmt.Sprint(forumID), "name": strings.Repeat("é", 129)}, "Bad Request: TOPIC_TITLE_TOO_LONG"},
	} {
		_, r := call(t, s, "createForumTopic", c.p)
		if r.OK || r.ErrorCode != 400 || !strings.HasPrefix(r.Description, c.want) {
			t.Errorf("%s: %d %q, want 400 %q", c.name, r.ErrorCode, r.Description, c.want)
		}
	}
	if _, r := call(t, s, "createForumTopic", map[string]string{"chat_id": fmt.Sprint(forumID), "name": strings.Repeat("é", 128)}); !r.OK {
		t.Errorf("a 128-character name: %s", r.Description)
	}
	if n := len(s.Topics(forumID)); n != 2 {
		t.Errorf("%d topics after the failures, want 2", n)
	}
}

func TestHold(t *testing.T) {
	s := newServer(t)
	id := send(t, s, "open", nil)
	edit := map[string]string{"chat_id": fmt.Sprint(groupID), "message_id": fmt.Sprint(id), "text": "closed"}

	// A held call never takes effect, its client gone or not.
	release := s.Hold("editMessageText")
	form := url.Values{}
	for k, v := range edit {
		form.Set(k, v)
	}
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/bot"+token+"/editMessageText", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	gaveUp := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		gaveUp <- err
	}()
	if _, err := s.WaitRequests(testContext(t), "editMessageText", 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-gaveUp; err == nil {
		t.Fatal("a held call answered before its release")
	}
	waited := make(chan int, 1)
	go func() {
		// No t.Fatal off the test's goroutine: a failed post sends 0.
		resp, err := http.Post(s.URL+"/bot"+token+"/editMessageText", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
		if err != nil {
			waited <- 0
			return
		}
		resp.Body.Close()
		waited <- resp.StatusCode
	}()
	if _, err := s.WaitRequests(testContext(t), "editMessageText", 2); err != nil {
		t.Fatal(err)
	}
	release()
	if got := <-waited; got != http.StatusBadGateway {
		t.Errorf("a held call got %d at its release, want 502", got)
	}
	if m, _ := s.Message(groupID, id); m.Text != "open" {
		t.Errorf("a held call took effect: %q", m.Text)
	}
	// Released, calls go through again.
	mustCall(t, s, "editMessageText", edit)
	if m, _ := s.Message(groupID, id); m.Text != "closed" {
		t.Errorf("after release: %q, want closed", m.Text)
	}

	// HoldReplies: the message is sent at once, its answer waits.
	release = s.HoldReplies("sendMessage")
	answered := make(chan *http.Response, 1)
	go func() {
		// No t.Fatal off the test's goroutine: a failed post sends nil.
		resp, _ := http.Post(s.URL+"/bot"+token+"/sendMessage", "application/x-www-form-urlencoded",
			strings.NewReader(url.Values{"chat_id": {fmt.Sprint(groupID)}, "text": {"late answer"}}.Encode()))
		answered <- resp
	}()
	if err := s.Wait(testContext(t), func() bool { return len(s.Messages(groupID)) == 2 }); err != nil {
		t.Fatal(err)
	}
	select {
	case <-answered:
		t.Fatal("sendMessage answered before its release")
	default:
	}
	release()
	release()
	resp := <-answered
	if resp == nil {
		t.Fatal("sendMessage failed")
	}
	_, r := decode(t, "sendMessage", resp)
	var m wireMessage
	if err := json.Unmarshal(r.Result, &m); err != nil || m.MessageID != s.Messages(groupID)[1].ID {
		t.Errorf("answer %s names another message than %d (%v)", r.Result, s.Messages(groupID)[1].ID, err)
	}
}

func TestButtonStyles(t *testing.T) {
	s := newServer(t)
	id := send(t, s, "Pick", map[string]string{"reply_markup": `{"inline_keyboard":[[` +
		`{"text":"Yes","callback_data":"y","style":"success"},{"text":"No","callback_data":"n","style":"danger"},` +
		`{"text":"Maybe","callback_data":"m","style":"primary"},{"text":"Plain","callback_data":"p"}]]}`})
	m, ok := s.Message(groupID, id)
	if !ok || len(m.Keyboard) != 1 {
		t.Fatalf("message = %+v", m)
	}
	var got []string
	for _, b := range m.Keyboard[0] {
		got = append(got, b.Style)
	}
	if want := []string{"success", "danger", "primary", ""}; !slices.Equal(got, want) {
		t.Errorf("styles = %q, want %q", got, want)
	}
}
