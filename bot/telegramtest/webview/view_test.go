package webview_test

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/bot/telegramtest/webview"
)

const (
	token  = "77:view-test"
	chatID = int64(-100777)
)

var (
	ann = webview.User{User: telegramtest.User{ID: 11, FirstName: "Ann"}, Note: "allowed"}
	bob = webview.User{User: telegramtest.User{ID: 12, FirstName: "Bob"}}
)

// rig is a fake Telegram with one chat, its page, and a way to send as
// the bot, over the Bot API as a bot would.
type rig struct {
	tg   *telegramtest.Server
	page *httptest.Server
	view *webview.View
	http *http.Client
}

func newRig(t *testing.T) *rig {
	t.Helper()
	tg := telegramtest.NewServer(token)
	t.Cleanup(tg.Close)
	if err := tg.AddChat(chatID, telegramtest.ChatSupergroup); err != nil {
		t.Fatal(err)
	}
	// No bot answers the presses here: a short settle keeps the test quick.
	v, err := webview.New(tg, chatID, webview.Options{Title: "T", Users: []webview.User{ann, bob},
		Settle: 10 * time.Millisecond,
		Panels: func() []webview.Panel { return []webview.Panel{{Title: "Other end", Lines: []string{"got <x>"}}} }})
	if err != nil {
		t.Fatal(err)
	}
	page := httptest.NewServer(v)
	t.Cleanup(page.Close)
	client := &http.Client{
		Transport: &http.Transport{DisableKeepAlives: true},
		// The test looks at the redirect itself.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return &rig{tg: tg, page: page, view: v, http: client}
}

// send sends an HTML message as the bot, with keyboard as reply_markup.
func (r *rig) send(t *testing.T, text string, markup any) int {
	t.Helper()
	form := url.Values{"chat_id": {"-100777"}, "text": {text}, "parse_mode": {"HTML"}}
	if markup != nil {
		b, _ := json.Marshal(markup)
		form.Set("reply_markup", string(b))
	}
	resp, err := r.http.PostForm(r.tg.URL+"/bot"+token+"/sendMessage", form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		OK     bool `json:"ok"`
		Result struct {
			MessageID int `json:"message_id"`
		} `json:"result"`
		Description string `json:"description"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || !out.OK {
		t.Fatalf("sendMessage: %v %s", err, out.Description)
	}
	return out.Result.MessageID
}

func (r *rig) get(t *testing.T, path string) string {
	t.Helper()
	resp, err := r.http.Get(r.page.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %v", path, resp.Status, err)
	}
	return string(body)
}

func (r *rig) post(t *testing.T, path string, form url.Values) *http.Response {
	t.Helper()
	resp, err := r.http.PostForm(r.page.URL+path, form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

func TestPageShowsTheChat(t *testing.T) {
	r := newRig(t)
	id := r.send(t, "<b>Pick</b> one &lt;please&gt;", map[string]any{"inline_keyboard": [][]map[string]string{
		{{"text": "A & B", "callback_data": "pick:a"}}, {{"text": "Docs", "url": "https://example.org/docs"}},
	}})
	prompt := r.send(t, "Reply with your answer", map[string]any{"force_reply": true, "input_field_placeholder": "Your answer"})
	if _, err := r.tg.Reply(chatID, prompt, bob.User, "mine <i>"); err != nil {
		t.Fatal(err)
	}
	body := r.get(t, "/?as=12")
	for _, want := range []string{
		"<b>Pick</b> one &lt;please&gt;", // the bot's HTML, rendered and escaped
		`name="data" value="pick:a"`, `<button type="submit">A &amp; B</button>`,
		`href="https://example.org/docs"`,
		`name="reply_to" value="` + itoa(prompt) + `"`, `placeholder="Your answer"`, // the force-reply box
		"mine &lt;i&gt;", // Bob's reply, escaped
		"Write as Bob",   // acting as ?as=12
		"got &lt;x&gt;",  // the panel
		`id="m` + itoa(id) + `"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if h := r.get(t, "/"); !strings.Contains(h, "Write as Ann") {
		t.Error("without ?as the page does not act as the first user")
	}
}

func TestPressAndReplyAreUpdates(t *testing.T) {
	r := newRig(t)
	id := r.send(t, "Pick", map[string]any{"inline_keyboard": [][]map[string]string{{{"text": "A", "callback_data": "pick:a"}}}})

	resp := r.post(t, "/press", url.Values{"as": {"12"}, "message": {itoa(id)}, "data": {"pick:a"}})
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "./?as=12") {
		t.Fatalf("press: %s to %q, want 303 back to the page as Bob", resp.Status, resp.Header.Get("Location"))
	}
	if n := r.tg.PendingUpdates(); n != 1 {
		t.Fatalf("press queued %d updates, want one callback query", n)
	}
	// A button the message does not have is not pressed: a real client
	// could not.
	r.post(t, "/press", url.Values{"as": {"12"}, "message": {itoa(id)}, "data": {"pick:forged"}})
	if n := r.tg.PendingUpdates(); n != 1 {
		t.Fatalf("a forged press queued an update (%d pending)", n)
	}
	act := strings.Join(r.view.Activity(), "\n")
	if !strings.Contains(act, "Bob pressed “A”") || !strings.Contains(act, "could not press") {
		t.Errorf("activity:\n%s", act)
	}

	r.post(t, "/reply", url.Values{"as": {"11"}, "reply_to": {itoa(id)}, "text": {"line one\r\nline two"}})
	r.post(t, "/reply", url.Values{"as": {"11"}, "reply_to": {"0"}, "text": {"/status"}})
	var mine []telegramtest.Message
	for _, m := range r.tg.History(chatID) {
		if !m.FromBot {
			mine = append(mine, m)
		}
	}
	if len(mine) != 2 || mine[0].ReplyTo != id || mine[0].PlainText != "line one\nline two" || mine[0].From.ID != ann.ID ||
		mine[1].ReplyTo != 0 || mine[1].PlainText != "/status" {
		t.Fatalf("the users' messages are %+v", mine)
	}
	if n := r.tg.PendingUpdates(); n != 3 {
		t.Fatalf("%d updates pending, want the press and two messages", n)
	}

	for _, form := range []url.Values{
		{"as": {"99"}, "message": {itoa(id)}, "data": {"pick:a"}}, // nobody the page knows
		{"as": {"11"}, "message": {"x"}, "data": {"pick:a"}},
	} {
		if resp := r.post(t, "/press", form); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("press %v: %s, want 400", form, resp.Status)
		}
	}
}

// TestPageUnderAPrefix: served under a path prefix, every link and form
// of the page, and the redirect after a press, stay under it.
func TestPageUnderAPrefix(t *testing.T) {
	r := newRig(t)
	page := httptest.NewServer(http.StripPrefix("/p", r.view))
	t.Cleanup(page.Close)
	id := r.send(t, "Pick", map[string]any{"inline_keyboard": [][]map[string]string{{{"text": "A", "callback_data": "pick:a"}}}})
	prompt := r.send(t, "Reply", map[string]any{"force_reply": true})
	base, err := url.Parse(page.URL + "/p/?as=12")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := r.http.Get(base.String())
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %v", base, resp.Status, err)
	}
	refs := regexp.MustCompile(`(?:href|action)="([^"]*)"`).FindAllStringSubmatch(string(body), -1)
	if len(refs) < 6 { // two users, refresh, the button, the reply box, the composer
		t.Fatalf("the page has %d links and forms, want at least 6:\n%s", len(refs), body)
	}
	for _, ref := range refs {
		u, err := base.Parse(html.UnescapeString(ref[1]))
		if err != nil || !strings.HasPrefix(u.Path, "/p/") {
			t.Errorf("%q leads to %v (%v), out of the prefix", ref[1], u, err)
		}
	}
	post := func(path string, form url.Values) *url.URL {
		t.Helper()
		resp, err := r.http.PostForm(page.URL+path, form)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		loc, err := resp.Request.URL.Parse(resp.Header.Get("Location"))
		if resp.StatusCode != http.StatusSeeOther || err != nil {
			t.Fatalf("POST %s: %s to %q (%v)", path, resp.Status, resp.Header.Get("Location"), err)
		}
		return loc
	}
	if loc := post("/p/press", url.Values{"as": {"12"}, "message": {itoa(id)}, "data": {"pick:a"}}); loc.Path != "/p/" || loc.Query().Get("as") != "12" {
		t.Errorf("the press leads back to %s, want /p/?as=12", loc)
	}
	if loc := post("/p/reply", url.Values{"as": {"11"}, "reply_to": {itoa(prompt)}, "text": {"x"}}); loc.Path != "/p/" || loc.Query().Get("as") != "11" {
		t.Errorf("the reply leads back to %s, want /p/?as=11", loc)
	}
	if n := r.tg.PendingUpdates(); n != 2 {
		t.Errorf("%d updates pending, want the press and the reply", n)
	}
}

// TestPageSettlesOnTheBotsReaction: after a press, the page waits for the
// bot's answer, so the page shown next has the toast and the edit.
func TestPageSettlesOnTheBotsReaction(t *testing.T) {
	tg := telegramtest.NewServer(token)
	t.Cleanup(tg.Close)
	if err := tg.AddChat(chatID, telegramtest.ChatGroup); err != nil {
		t.Fatal(err)
	}
	v, err := webview.New(tg, chatID, webview.Options{Users: []webview.User{ann}, Settle: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{tg: tg, view: v, http: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}}
	id := r.send(t, "Pick", map[string]any{"inline_keyboard": [][]map[string]string{{{"text": "A", "callback_data": "a"}}}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	botDone := make(chan struct{})
	go func() {
		defer close(botDone)
		// The bot: edit the message, then answer the press. (In this
		// order the page's wait for the edit after the answer has nothing
		// left to wait for, whatever the machine's speed.)
		if err := tg.Wait(ctx, func() bool { return len(tg.UnansweredCallbacks()) > 0 }); err != nil {
			return
		}
		cb := tg.UnansweredCallbacks()[0]
		r.api(t, "editMessageText", url.Values{"chat_id": {"-100777"}, "message_id": {itoa(id)}, "text": {"Picked A"}})
		r.api(t, "answerCallbackQuery", url.Values{"callback_query_id": {cb}, "text": {"Got it"}})
	}()
	defer func() { <-botDone }()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/press", strings.NewReader(url.Values{"as": {"11"}, "message": {itoa(id)}, "data": {"a"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	v.ServeHTTP(rec, req)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("press: %d", rec.Code)
	}
	if m, _ := tg.Message(chatID, id); m.PlainText != "Picked A" {
		t.Errorf("the press returned before the bot's edit: the message reads %q", m.PlainText)
	}
	if act := strings.Join(v.Activity(), "\n"); !strings.Contains(act, "Telegram shows Ann: “Got it”") {
		t.Errorf("the toast is not in the activity:\n%s", act)
	}
}

func (r *rig) api(t *testing.T, method string, form url.Values) {
	resp, err := r.http.PostForm(r.tg.URL+"/bot"+token+"/"+method, form)
	if err != nil {
		t.Error(err)
		return
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("%s: %s", method, resp.Status)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
