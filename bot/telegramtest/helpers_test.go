package telegramtest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
)

const (
	token         = "123456:test-token"
	botID         = 123456
	groupID int64 = -1001234567890
)

var (
	alice = telegramtest.User{ID: 501, FirstName: "Alice", Username: "alice"}
	bob   = telegramtest.User{ID: 502, FirstName: "Bob"}
)

// newServer starts a server with one supergroup, closed when the test ends.
func newServer(tb testing.TB, opts ...telegramtest.Option) *telegramtest.Server {
	tb.Helper()
	s := telegramtest.NewServer(token, opts...)
	tb.Cleanup(s.Close)
	if err := s.AddChat(groupID, telegramtest.ChatSupergroup); err != nil {
		tb.Fatal(err)
	}
	return s
}

// testContext ends with the test, or after a deadline that only a hung test reaches.
func testContext(tb testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	tb.Cleanup(cancel)
	return ctx
}

type apiResponse struct {
	OK          bool            `json:"ok"`
	Result      json.RawMessage `json:"result"`
	ErrorCode   int             `json:"error_code"`
	Description string          `json:"description"`
	Parameters  struct {
		RetryAfter      int   `json:"retry_after"`
		MigrateToChatID int64 `json:"migrate_to_chat_id"`
	} `json:"parameters"`
}

// call posts a form-encoded API call and decodes the answer.
func call(tb testing.TB, s *telegramtest.Server, method string, p map[string]string) (int, apiResponse) {
	tb.Helper()
	form := url.Values{}
	for k, v := range p {
		form.Set(k, v)
	}
	resp, err := http.Post(s.URL+"/bot"+token+"/"+method, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		tb.Fatalf("%s: %v", method, err)
	}
	return decode(tb, method, resp)
}

func decode(tb testing.TB, method string, resp *http.Response) (int, apiResponse) {
	tb.Helper()
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatalf("%s: read body: %v", method, err)
	}
	var r apiResponse
	if err := json.Unmarshal(body, &r); err != nil {
		tb.Fatalf("%s: decode %s: %v", method, body, err)
	}
	if !r.OK && r.ErrorCode != resp.StatusCode {
		tb.Errorf("%s: HTTP status %d but error_code %d", method, resp.StatusCode, r.ErrorCode)
	}
	if r.OK && len(r.Result) == 0 {
		tb.Errorf("%s: ok answer without result: %s", method, body)
	}
	return resp.StatusCode, r
}

// mustCall is call for a call that must succeed.
func mustCall(tb testing.TB, s *telegramtest.Server, method string, p map[string]string) json.RawMessage {
	tb.Helper()
	_, r := call(tb, s, method, p)
	if !r.OK {
		tb.Fatalf("%s(%v): %d %s", method, p, r.ErrorCode, r.Description)
	}
	return r.Result
}

// wireMessage is the part of a Message object the tests read.
type wireMessage struct {
	MessageID int    `json:"message_id"`
	Date      int64  `json:"date"`
	Text      string `json:"text"`
	From      struct {
		ID    int64 `json:"id"`
		IsBot bool  `json:"is_bot"`
	} `json:"from"`
	Chat struct {
		ID   int64  `json:"id"`
		Type string `json:"type"`
	} `json:"chat"`
	ReplyToMessage *wireMessage `json:"reply_to_message"`
	ReplyMarkup    *struct {
		InlineKeyboard [][]map[string]any `json:"inline_keyboard"`
	} `json:"reply_markup"`
}

// send posts a message to the group with extra parameters and returns its ID.
func send(tb testing.TB, s *telegramtest.Server, text string, extra map[string]string) int {
	tb.Helper()
	p := map[string]string{"chat_id": fmt.Sprint(groupID), "text": text}
	for k, v := range extra {
		p[k] = v
	}
	var m wireMessage
	if err := json.Unmarshal(mustCall(tb, s, "sendMessage", p), &m); err != nil {
		tb.Fatal(err)
	}
	return m.MessageID
}

// keyboard renders rows of "text=data" callback buttons as reply_markup JSON.
func keyboard(rows ...[]string) string {
	var kb [][]map[string]string
	for _, row := range rows {
		var r []map[string]string
		for _, b := range row {
			text, data, _ := strings.Cut(b, "=")
			r = append(r, map[string]string{"text": text, "callback_data": data})
		}
		kb = append(kb, r)
	}
	out, _ := json.Marshal(map[string]any{"inline_keyboard": kb})
	return string(out)
}
