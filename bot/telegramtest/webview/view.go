package webview

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
)

// User is someone the page lets a person act as.
type User struct {
	telegramtest.User
	// Note says who this is, such as "on the allow-list".
	Note string
}

// Panel is a box of plain lines shown above the chat, such as what the
// other end of the bot received.
type Panel struct {
	Title string
	Lines []string
}

// Options configure a View.
type Options struct {
	// Title heads the page.
	Title string
	// Users are who the page may act as; the first is the default. There
	// must be at least one.
	Users []User
	// Panels, if set, is called on every page view.
	Panels func() []Panel
	// Settle bounds how long a press or a reply waits for the bot to
	// react before the page is shown again (default 3 s); the page shows
	// whatever the bot did by then, and a reload shows the rest.
	Settle time.Duration
}

// View is the page: an http.Handler serving
//
//	GET  /         the chat; ?as=<user ID> picks who acts
//	POST /press    form fields as, message, data: press that button
//	POST /reply    form fields as, reply_to (0: none), text
//
// A POST answers 303 See Other back to the page, so reloading does not
// repeat the action. Its links, forms and redirects are relative, so it
// also works under a path prefix (http.StripPrefix), such as a secret one.
type View struct {
	tg     *telegramtest.Server
	chatID int64
	opts   Options
	mux    *http.ServeMux
	page   *template.Template

	mu       sync.Mutex
	activity []string // newest last
}

// maxActivity bounds the activity log the page shows.
const maxActivity = 30

// New returns a View of chat chatID of tg.
func New(tg *telegramtest.Server, chatID int64, opts Options) (*View, error) {
	if len(opts.Users) == 0 {
		return nil, errors.New("webview: no users to act as")
	}
	if opts.Settle <= 0 {
		opts.Settle = 3 * time.Second
	}
	if opts.Title == "" {
		opts.Title = "Telegram chat"
	}
	v := &View{tg: tg, chatID: chatID, opts: opts, mux: http.NewServeMux(), page: parsePage()}
	v.mux.HandleFunc("GET /{$}", v.handlePage)
	v.mux.HandleFunc("POST /press", v.handlePress)
	v.mux.HandleFunc("POST /reply", v.handleReply)
	return v, nil
}

func (v *View) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The page never needs to be framed or to run a script.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	v.mux.ServeHTTP(w, r)
}

// Activity returns the activity log, oldest first.
func (v *View) Activity() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]string(nil), v.activity...)
}

func (v *View) logf(format string, args ...any) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.activity = append(v.activity, fmt.Sprintf(format, args...))
	if len(v.activity) > maxActivity {
		v.activity = v.activity[len(v.activity)-maxActivity:]
	}
}

// user returns the user whose ID is in the as field or query parameter;
// none given picks the first.
func (v *View) user(as string) (User, bool) {
	if as == "" {
		return v.opts.Users[0], true
	}
	id, err := strconv.ParseInt(as, 10, 64)
	if err != nil {
		return User{}, false
	}
	for _, u := range v.opts.Users {
		if u.ID == id {
			return u, true
		}
	}
	return User{}, false
}

func (v *View) back(w http.ResponseWriter, u User, anchor string) {
	to := "./?as=" + url.QueryEscape(strconv.FormatInt(u.ID, 10))
	if anchor != "" {
		to += "#" + anchor
	}
	// Not http.Redirect: it would resolve "./" against the path a prefix
	// was stripped from; the browser resolves it against the one it asked.
	w.Header().Set("Location", to)
	w.WriteHeader(http.StatusSeeOther)
}

func (v *View) handlePress(w http.ResponseWriter, r *http.Request) {
	u, ok := v.user(r.FormValue("as"))
	msgID, err := strconv.Atoi(r.FormValue("message"))
	if !ok || err != nil {
		http.Error(w, "press: want the fields as (a user of the page), message and data", http.StatusBadRequest)
		return
	}
	data := r.FormValue("data")
	label := data
	if m, found := v.tg.Message(v.chatID, msgID); found {
		for _, row := range m.Keyboard {
			for _, b := range row {
				if b.CallbackData == data {
					label = b.Text
				}
			}
		}
	}
	before := v.version()
	cb, err := v.tg.PressButton(v.chatID, msgID, u.User, data)
	if err != nil {
		// A button the bot has removed meanwhile: a real client would no
		// longer show it.
		v.logf("%s could not press “%s”: %v", u.FirstName, label, err)
		v.back(w, u, "m"+strconv.Itoa(msgID))
		return
	}
	v.logf("%s pressed “%s” on message #%d", u.FirstName, label, msgID)
	ctx, cancel := context.WithTimeout(r.Context(), v.opts.Settle)
	defer cancel()
	if ans, err := v.tg.WaitAnswer(ctx, cb); err == nil && ans.Text != "" {
		v.logf("Telegram shows %s: “%s”", u.FirstName, ans.Text)
	}
	// A refused press changes nothing: wait less for a change after the
	// answer than for the answer.
	ctx, cancel = context.WithTimeout(ctx, time.Second)
	defer cancel()
	v.settle(ctx, before)
	v.back(w, u, "m"+strconv.Itoa(msgID))
}

func (v *View) handleReply(w http.ResponseWriter, r *http.Request) {
	u, ok := v.user(r.FormValue("as"))
	replyTo, err := strconv.Atoi(r.FormValue("reply_to"))
	if r.FormValue("reply_to") == "" {
		replyTo, err = 0, nil
	}
	if !ok || err != nil {
		http.Error(w, "reply: want the fields as (a user of the page), reply_to and text", http.StatusBadRequest)
		return
	}
	text := strings.ReplaceAll(r.FormValue("text"), "\r\n", "\n")
	before := v.version()
	var id int
	if replyTo != 0 {
		id, err = v.tg.Reply(v.chatID, replyTo, u.User, text)
	} else {
		id, err = v.tg.SendText(v.chatID, u.User, text)
	}
	if err != nil {
		v.logf("%s could not send: %v", u.FirstName, err)
		v.back(w, u, "compose")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), v.opts.Settle)
	defer cancel()
	v.settle(ctx, before+1) // +1: the user's own message
	v.back(w, u, "m"+strconv.Itoa(id))
}

// version sums what changes when the bot acts in the chat: messages,
// their edits and its reactions.
func (v *View) version() int {
	n := 0
	for _, m := range v.tg.History(v.chatID) {
		n += 1 + m.Edits + len(m.Reaction)
	}
	return n
}

// settle waits until the chat has changed since version before, or ctx
// ends, so the page shown after an action usually shows the bot's
// reaction. It is a courtesy to the person, not a guarantee.
func (v *View) settle(ctx context.Context, before int) {
	_ = v.tg.Wait(ctx, func() bool { return v.version() > before })
}
