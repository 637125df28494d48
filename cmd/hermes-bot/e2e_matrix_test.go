package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/bot/matrix/matrixtest"
	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// These tests run the built hermes-bot against a real Dendrite and the
// fake opencode: people vote, react and reply in the room as Element
// would, and the answers must reach opencode.

const (
	mxDir      = "/srv/projects/mx"
	mxPassword = "mx-oc-password"
	mxBotPass  = "mx-bot-password-SECRET"
)

// mxRig is a Dendrite with a room of Alice (allowed), Mallory (not) and the
// bot's account, a fake opencode, and the environment of a hermes-bot
// bridging them.
type mxRig struct {
	hs             *matrixtest.Homeserver
	alice, mallory *matrixtest.User
	botID, room    string
	oc             *fakeOC
	env            []string
}

// newMxRig makes the rig; with inviteBot the room's invite to the bot is
// sent now, else the test sends it (inviteBot).
func newMxRig(t *testing.T, ctx context.Context, inviteBot bool) *mxRig {
	t.Helper()
	hs := matrixtest.StartDendrite(t)
	r := &mxRig{hs: hs, oc: fakeOpencode(t)}
	var err error
	if r.alice, err = hs.Register(ctx, "alice", ""); err != nil {
		t.Fatal(err)
	}
	if r.mallory, err = hs.Register(ctx, "mallory", ""); err != nil {
		t.Fatal(err)
	}
	if _, err = hs.Register(ctx, "hermes", mxBotPass); err != nil {
		t.Fatal(err)
	}
	r.botID = hs.UserID("hermes")
	invite := []string{r.mallory.ID}
	if inviteBot {
		invite = append(invite, r.botID)
	}
	if r.room, err = r.alice.CreateRoom(ctx, invite...); err != nil {
		t.Fatal(err)
	}
	if err := r.mallory.Join(ctx, r.room); err != nil {
		t.Fatal(err)
	}
	r.env = []string{
		"HOME=" + t.TempDir(),
		"PATH=" + os.Getenv("PATH"),
		"MATRIX_HOMESERVER_URL=" + hs.URL,
		"MATRIX_USER_ID=" + r.botID,
		"MATRIX_PASSWORD=" + mxBotPass,
		"MATRIX_ROOM_ID=" + r.room,
		"MATRIX_ALLOWED_USER_IDS=" + r.alice.ID,
		"HERMES_NOTIFY=idle",
		"OPENCODE_URL=" + r.oc.url(),
		"OPENCODE_SERVER_PASSWORD=" + mxPassword,
		"HERMES_DB=" + filepath.Join(t.TempDir(), "state", "pending.db"),
		"HERMES_LOG_LEVEL=debug",
		"HERMES_LOG_FORMAT=json",
	}
	return r
}

// fakeOC is the fake opencode of these tests, with one project. It and
// fakeOC2 are the one place they use package opencodetest, so a change
// of its fakes is met here.
type fakeOC struct{ s *opencodetest.Server }

// answer is an answer opencode accepted: a question's labels, or a
// permission's reply.
type answer struct {
	RequestID string
	Answers   [][]string
	Reply     string
}

func fakeOpencode(t *testing.T) *fakeOC {
	t.Helper()
	oc := opencodetest.NewServer(opencodetest.WithAuth("", mxPassword))
	t.Cleanup(oc.Close)
	oc.SetProjects([]opencode.Project{{ID: "mx", Worktree: mxDir}})
	return &fakeOC{s: oc}
}

func (f *fakeOC) url() string { return f.s.URL }

// question asks question id, text, with options (none: a typed answer).
func (f *fakeOC) question(id, text string, multiple bool, options ...string) {
	q := opencode.Question{Question: text, Header: "Pick", Multiple: multiple}
	for _, o := range options {
		q.Options = append(q.Options, opencode.Option{Label: o})
	}
	if len(options) == 0 {
		yes := true
		q.Custom = &yes
	}
	f.s.AddQuestion(mxDir, opencode.QuestionRequest{ID: id, SessionID: "ses_" + id, Questions: []opencode.Question{q},
		Tool: &opencode.ToolRef{MessageID: "msg_" + id, CallID: "call_" + id}})
}

// permission asks permission id to run command.
func (f *fakeOC) permission(id, command string) {
	meta, _ := json.Marshal(map[string]string{"command": command})
	f.s.AddPermission(mxDir, opencode.PermissionRequest{ID: id, SessionID: "ses_" + id, Permission: "bash",
		Patterns: []string{command}, Metadata: meta, Tool: &opencode.ToolRef{MessageID: "msg_" + id, CallID: "call_" + id}})
}

// answerElsewhere answers question id as the TUI would; false when it
// was not pending.
func (f *fakeOC) answerElsewhere(id string, answers [][]string) bool {
	return f.s.AnswerQuestion(mxDir, id, answers)
}

// idle makes session id, titled title, finish its turn.
func (f *fakeOC) idle(id, title string) {
	f.s.AddSession(opencode.Session{ID: id, Title: title, Directory: mxDir})
	f.s.SendEvent(mxDir, opencode.TypeSessionIdle, opencode.SessionIdle{SessionID: id})
}

// prompts are the bodies of the prompts session id was sent.
func (f *fakeOC) prompts(id string) []string {
	var out []string
	for _, q := range f.s.Requests() {
		if q.Method == "POST" && strings.HasPrefix(q.Path, "/session/"+id+"/") {
			out = append(out, q.Body)
		}
	}
	return out
}

// answers are the answers accepted so far.
func (f *fakeOC) answers() []answer {
	var out []answer
	for _, r := range f.s.Replies() {
		out = append(out, answer{RequestID: r.RequestID, Answers: r.Answers, Reply: r.Reply})
	}
	return out
}

// waitAnswer waits for the nth answer and returns it.
func (f *fakeOC) waitAnswer(ctx context.Context, t *testing.T, n int) answer {
	t.Helper()
	if reps, err := f.s.WaitReplies(ctx, n); err != nil {
		t.Fatalf("opencode got %d answers, want %d: %v", len(reps), n, err)
	}
	return f.answers()[n-1]
}

// fakeOC2 is the fake OpenCode 2 of the forms test, found through the
// OpenCode service file it writes under the bot's HOME.
type fakeOC2 struct{ s *opencodetest.Server }

// fakeOpencode2 starts it and points env at it: a HOME holding its
// service file, and no OPENCODE_URL (auto).
func fakeOpencode2(t *testing.T, env []string) (*fakeOC2, []string) {
	t.Helper()
	oc := opencodetest.NewServer(opencodetest.WithOpencode2())
	t.Cleanup(oc.Close)
	home := t.TempDir()
	dir := filepath.Join(home, ".local", "state", "opencode")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := oc.WriteServiceFile(dir); err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "OPENCODE_") && !strings.HasPrefix(kv, "HOME=") {
			kept = append(kept, kv)
		}
	}
	return &fakeOC2{s: oc}, append(kept, "HOME="+home)
}

// releaseForm asks a form of four fields: a choice, an optional whole
// number, a yes/no, an optional text.
func (f *fakeOC2) releaseForm(sid string) {
	one, ten := 1.0, 10.0
	f.s.AddForm(sid, opencodetest.Form{Title: "Release", Fields: []opencodetest.FormField{
		{Key: "target", Title: "Where to?", Type: "string", Required: true,
			Options: []opencodetest.FormOption{{Value: "staging", Label: "Staging"}, {Value: "prod", Label: "Production"}}},
		{Key: "replicas", Title: "How many replicas?", Type: "integer", Minimum: &one, Maximum: &ten},
		{Key: "notify", Title: "Notify people?", Type: "boolean", Required: true},
		{Key: "note", Title: "Anything to add?", Type: "string"},
	}})
}

// linkForm asks a form that is a link to open.
func (f *fakeOC2) linkForm(sid string) {
	f.s.AddForm(sid, opencodetest.Form{Title: "Sign in", Mode: "url", URL: "https://example.org/auth"})
}

// waitForm waits for the nth answer to a form: its kind ("reply" or
// "cancel") and the answer.
func (f *fakeOC2) waitForm(ctx context.Context, t *testing.T, n int) (kind string, answer map[string]any) {
	t.Helper()
	rs, err := f.s.WaitReplies(ctx, n)
	if err != nil {
		t.Fatalf("opencode got %d answers, want %d: %v", len(rs), n, err)
	}
	switch rs[n-1].Kind {
	case opencodetest.ReplyForm:
		kind = "reply"
	case opencodetest.CancelForm:
		kind = "cancel"
	default:
		kind = rs[n-1].Kind
	}
	return kind, rs[n-1].Answer
}

// content decodes ev's content, failing the test when it cannot.
func content(t *testing.T, ev matrixtest.Event) map[string]any {
	t.Helper()
	var c map[string]any
	if err := ev.Decode(&c); err != nil {
		t.Fatal(err)
	}
	return c
}

// waitPoll waits, as u, for the poll whose question holds text and
// returns it and the request message it replies to.
func waitPoll(ctx context.Context, t *testing.T, u *matrixtest.User, text string) (poll, msg string) {
	t.Helper()
	ev, err := u.WaitFor(ctx, func(ev matrixtest.Event) bool {
		return ev.Type == "org.matrix.msc3381.poll.start" && strings.Contains(string(ev.Content), text)
	})
	if err != nil {
		t.Fatalf("no poll asking %q: %v", text, err)
	}
	var c struct {
		Rel struct {
			Reply struct {
				ID string `json:"event_id"`
			} `json:"m.in_reply_to"`
		} `json:"m.relates_to"`
	}
	if err := ev.Decode(&c); err != nil {
		t.Fatal(err)
	}
	return ev.ID, c.Rel.Reply.ID
}

// waitMessage waits, as u, for a message of the bot holding text.
func waitMessage(ctx context.Context, t *testing.T, u *matrixtest.User, bot, text string) matrixtest.Event {
	t.Helper()
	ev, err := u.WaitFor(ctx, func(ev matrixtest.Event) bool {
		return ev.Type == "m.room.message" && ev.Sender == bot && strings.Contains(string(ev.Content), text)
	})
	if err != nil {
		t.Fatalf("no message with %q: %v", text, err)
	}
	return ev
}

// waitEnd waits, as u, for the end of poll and the edit of its message
// that follows, which must hold want.
func waitEnd(ctx context.Context, t *testing.T, u *matrixtest.User, poll, msg, want string) {
	t.Helper()
	if _, err := u.WaitFor(ctx, func(ev matrixtest.Event) bool {
		return ev.Type == "org.matrix.msc3381.poll.end" && strings.Contains(string(ev.Content), poll)
	}); err != nil {
		t.Fatalf("poll %s not ended: %v", poll, err)
	}
	ev, err := u.WaitFor(ctx, func(ev matrixtest.Event) bool {
		return ev.Type == "m.room.message" && strings.Contains(string(ev.Content), `"m.new_content"`) &&
			strings.Contains(string(ev.Content), msg)
	})
	if err != nil {
		t.Fatalf("message %s not edited: %v", msg, err)
	}
	if !strings.Contains(string(ev.Content), want) {
		t.Fatalf("message %s edited to %s; want %q in it", msg, ev.Content, want)
	}
}

func (r *mxRig) checkSecrets(t *testing.T, p *botProcess) {
	t.Helper()
	if out := p.out.String(); strings.Contains(out, mxBotPass) || strings.Contains(out, mxPassword) {
		t.Errorf("hermes-bot output contains a secret")
	}
}

// TestE2EMatrix answers requests in a Matrix room: by poll, a multiple
// choice with ✅, a typed reply, permissions allowed once and rejected,
// while a stranger's votes and ✅ change nothing; one answered in opencode
// ends its poll; a session's notice, a reply to which prompts the session;
// commands; a restart re-attaches the one pending without posting it
// again; the bot joined the room it was invited to.
func TestE2EMatrix(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*stepTimeout)
	defer cancel()
	r := newMxRig(t, ctx, false)
	bot := startBot(t, r.env)

	// Invited once it runs (its first sync found it in no room), it joins,
	// and posts what it could not post before.
	bot.waitLog(ctx, t, 1, "the bot is not in its room; invite it")
	r.oc.question("que_0", "Asked before the invite?", false, "yes", "no")
	bot.waitLog(ctx, t, 1, "could not post", "que_0")
	if err := r.alice.Invite(ctx, r.room, r.botID); err != nil {
		t.Fatal(err)
	}
	if _, err := r.alice.WaitFor(ctx, func(ev matrixtest.Event) bool {
		return ev.Type == "m.room.member" && strings.Contains(string(ev.Content), `"join"`) && ev.Sender == r.botID
	}); err != nil {
		t.Fatalf("the bot did not join: %v", err)
	}

	poll0, _ := waitPoll(ctx, t, r.alice, "Asked before the invite?")
	if _, err := r.alice.Vote(ctx, r.room, poll0, "o0"); err != nil {
		t.Fatal(err)
	}
	if rep := r.oc.waitAnswer(ctx, t, 1); rep.RequestID != "que_0" {
		t.Fatalf("answer %+v; want que_0", rep)
	}

	// A question answered by poll; Mallory's vote first changes nothing.
	r.oc.question("que_1", "Which colour?", false, "red", "blue")
	poll, msg := waitPoll(ctx, t, r.alice, "Which colour?")
	if _, err := r.mallory.Vote(ctx, r.room, poll, "o0"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.alice.Vote(ctx, r.room, poll, "o1"); err != nil {
		t.Fatal(err)
	}
	if rep := r.oc.waitAnswer(ctx, t, 2); rep.RequestID != "que_1" || fmt.Sprint(rep.Answers) != "[[blue]]" {
		t.Fatalf("answer %+v; want que_1 [[blue]] (Mallory's vote ignored)", rep)
	}
	waitEnd(ctx, t, r.alice, poll, msg, "Answered")

	// A multiple choice: votes, then ✅; Mallory's vote and ✅ change nothing.
	r.oc.question("que_2", "Which sizes?", true, "S", "M", "L")
	poll, msg = waitPoll(ctx, t, r.alice, "Which sizes?")
	if _, err := r.alice.Vote(ctx, r.room, poll, "o0", "o2"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.mallory.Vote(ctx, r.room, poll, "o1"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.mallory.React(ctx, r.room, poll, "✅"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.alice.React(ctx, r.room, poll, "✅\uFE0F"); err != nil {
		t.Fatal(err)
	}
	if rep := r.oc.waitAnswer(ctx, t, 3); rep.RequestID != "que_2" || fmt.Sprint(rep.Answers) != "[[S L]]" {
		t.Fatalf("answer %+v; want que_2 [[S L]]", rep)
	}
	waitEnd(ctx, t, r.alice, poll, msg, "Answered")

	// A typed answer: a reply to the request's message, quoted fallback
	// and all; Mallory's reply first is no answer.
	r.oc.question("que_3", "Name the branch", false)
	ev := waitMessage(ctx, t, r.alice, r.botID, "Name the branch")
	if _, err := r.mallory.Reply(ctx, r.room, ev.ID, "", "evil"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.alice.Reply(ctx, r.room, ev.ID, "Name the branch", "feature/mx"); err != nil {
		t.Fatal(err)
	}
	if rep := r.oc.waitAnswer(ctx, t, 4); rep.RequestID != "que_3" || fmt.Sprint(rep.Answers) != "[[feature/mx]]" {
		t.Fatalf("answer %+v; want que_3 [[feature/mx]]", rep)
	}

	// A permission allowed once, its command in full in a code block.
	r.oc.permission("per_1", "git status --short")
	poll, msg = waitPoll(ctx, t, r.alice, "git status --short")
	m, err := r.alice.Event(ctx, r.room, msg)
	if err != nil {
		t.Fatal(err)
	}
	if html, _ := content(t, m)["formatted_body"].(string); !strings.Contains(html, "<pre><code>git status --short</code></pre>") ||
		!strings.Contains(html, " risk</b>") {
		t.Fatalf("permission message %s; want the command in a code block and the risk", html)
	}
	if _, err := r.mallory.Vote(ctx, r.room, poll, "reject"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.alice.Vote(ctx, r.room, poll, "once"); err != nil {
		t.Fatal(err)
	}
	if rep := r.oc.waitAnswer(ctx, t, 5); rep.RequestID != "per_1" || rep.Reply != "once" {
		t.Fatalf("answer %+v; want per_1 once", rep)
	}
	waitEnd(ctx, t, r.alice, poll, msg, "Allowed once")

	// A permission rejected; a vote after the end changes nothing.
	r.oc.permission("per_2", "rm -rf build")
	poll, msg = waitPoll(ctx, t, r.alice, "rm -rf build")
	if _, err := r.alice.Vote(ctx, r.room, poll, "reject"); err != nil {
		t.Fatal(err)
	}
	if rep := r.oc.waitAnswer(ctx, t, 6); rep.RequestID != "per_2" || rep.Reply != "reject" {
		t.Fatalf("answer %+v; want per_2 reject", rep)
	}
	waitEnd(ctx, t, r.alice, poll, msg, "Rejected")
	if _, err := r.alice.Vote(ctx, r.room, poll, "once"); err != nil {
		t.Fatal(err)
	}

	// Answered in opencode: the poll ends and the message says so.
	r.oc.question("que_4", "Deploy now?", false, "yes", "no")
	poll, msg = waitPoll(ctx, t, r.alice, "Deploy now?")
	if !r.oc.answerElsewhere("que_4", [][]string{{"no"}}) {
		t.Fatal("que_4 was not pending")
	}
	waitEnd(ctx, t, r.alice, poll, msg, "Answered in opencode")

	// A session's notice; a reply to it goes to the session as a prompt.
	r.oc.idle("ses_n", "Fix the widget")
	notice := waitMessage(ctx, t, r.alice, r.botID, "finished")
	if _, err := r.mallory.Reply(ctx, r.room, notice.ID, "", "rm -rf /"); err != nil {
		t.Fatal(err)
	}
	reply, err := r.alice.Reply(ctx, r.room, notice.ID, "Fix the widget — finished", "now run the tests")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.alice.WaitFor(ctx, func(ev matrixtest.Event) bool {
		return ev.Sender == r.botID && strings.Contains(string(ev.Content), reply)
	}); err != nil {
		t.Fatalf("no answer to the reply to the notice: %v", err)
	}
	if prompts := r.oc.prompts("ses_n"); len(prompts) != 1 || !strings.Contains(prompts[0], "now run the tests") {
		t.Fatalf("prompts to the session %q; want Alice's reply only", prompts)
	}

	// /pending and !status answer in the room.
	if _, err := r.alice.SendText(ctx, r.room, "!status"); err != nil {
		t.Fatal(err)
	}
	waitMessage(ctx, t, r.alice, r.botID, "Waiting for you: 0")

	// A restart after a crash with one request pending re-attaches it:
	// the same poll takes the vote.
	r.oc.question("que_5", "Merge it?", false, "merge", "wait")
	poll, msg = waitPoll(ctx, t, r.alice, "Merge it?")
	bot.waitLog(ctx, t, 1, "question posted", "que_5")
	bot.kill(t) // a crash
	r.checkSecrets(t, bot)
	bot = startBot(t, r.env)
	if _, err := r.alice.SendText(ctx, r.room, "/pending"); err != nil {
		t.Fatal(err)
	}
	waitMessage(ctx, t, r.alice, r.botID, "Waiting for you: 1")
	if _, err := r.alice.Vote(ctx, r.room, poll, "o0"); err != nil {
		t.Fatal(err)
	}
	if rep := r.oc.waitAnswer(ctx, t, 7); rep.RequestID != "que_5" || fmt.Sprint(rep.Answers) != "[[merge]]" {
		t.Fatalf("answer %+v; want que_5 [[merge]]", rep)
	}
	waitEnd(ctx, t, r.alice, poll, msg, "Answered")
	if err := bot.stop(t); err != nil {
		t.Fatalf("hermes-bot exited with %v after SIGTERM, want 0", err)
	}
	r.checkSecrets(t, bot)

	// Every request was posted once, and the stranger's acts and the late
	// vote reached opencode never.
	if reps := r.oc.answers(); len(reps) != 7 {
		t.Errorf("opencode got %d answers, want 7: %+v", len(reps), reps)
	}
	polls := countEvents(ctx, t, r.hs, r.mallory, r.room, "org.matrix.msc3381.poll.start")
	if want := 7; polls != want {
		t.Errorf("%d polls posted, want %d (one per request with choices)", polls, want)
	}
}

// countEvents counts the events of type typ in room, read back as u
// from the room's history.
func countEvents(ctx context.Context, t *testing.T, hs *matrixtest.Homeserver, u *matrixtest.User, room, typ string) int {
	t.Helper()
	q := url.Values{"dir": {"b"}, "limit": {"1000"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet,
		hs.URL+"/_matrix/client/v3/rooms/"+url.PathEscape(room)+"/messages?"+q.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+u.AccessToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var page struct {
		Chunk []matrixtest.Event `json:"chunk"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("room history: %s, %v", resp.Status, err)
	}
	n := 0
	for _, ev := range page.Chunk {
		if ev.Type == typ {
			n++
		}
	}
	return n
}

// TestE2EMatrixAndTelegram shows each request in a Telegram group and a
// Matrix room at once: answered in one, it closes in the other, both ways.
func TestE2EMatrixAndTelegram(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*stepTimeout)
	defer cancel()
	r := newMxRig(t, ctx, true) // invited before its first start
	tg := telegramtest.NewServer(e2eToken)
	t.Cleanup(tg.Close)
	if err := tg.AddChat(e2eChatID, telegramtest.ChatSupergroup); err != nil {
		t.Fatal(err)
	}
	env := append(slices.Clone(r.env),
		"TELEGRAM_BOT_TOKEN="+e2eToken,
		"TELEGRAM_CHAT_ID="+fmt.Sprint(e2eChatID),
		"TELEGRAM_ALLOWED_USER_IDS="+fmt.Sprint(alice.ID),
		"TELEGRAM_API_URL="+tg.URL,
		"HERMES_TELEGRAM_RATE=0")
	bot := startBot(t, env)
	openIn := func(text string) telegramtest.Message {
		t.Helper()
		m, err := tg.WaitMessage(ctx, e2eChatID, func(m telegramtest.Message) bool {
			return m.FromBot && len(m.Keyboard) > 0 && strings.Contains(m.PlainText, text)
		})
		if err != nil {
			t.Fatalf("no Telegram message asking %q: %v", text, err)
		}
		return m
	}
	closedIn := func(id int, want string) {
		t.Helper()
		if _, err := tg.WaitMessage(ctx, e2eChatID, func(m telegramtest.Message) bool {
			return m.ID == id && len(m.Keyboard) == 0 && strings.Contains(m.PlainText, want)
		}); err != nil {
			t.Fatalf("Telegram message %d not closed with %q: %v", id, want, err)
		}
	}

	// Answered in Telegram: the Matrix poll ends, the message says who.
	r.oc.question("que_tg", "Tea or coffee?", false, "tea", "coffee")
	m := openIn("Tea or coffee?")
	poll, msg := waitPoll(ctx, t, r.alice, "Tea or coffee?")
	if _, err := tg.PressButtonText(e2eChatID, m.ID, alice, "coffee"); err != nil {
		t.Fatalf("press coffee: %v (buttons %v)", err, buttonTexts(m))
	}
	if rep := r.oc.waitAnswer(ctx, t, 1); rep.RequestID != "que_tg" || fmt.Sprint(rep.Answers) != "[[coffee]]" {
		t.Fatalf("answer %+v; want que_tg [[coffee]]", rep)
	}
	waitEnd(ctx, t, r.alice, poll, msg, "Answered")
	closedIn(m.ID, "coffee")
	// A vote on the ended poll changes nothing.
	if _, err := r.alice.Vote(ctx, r.room, poll, "o0"); err != nil {
		t.Fatal(err)
	}

	// Answered in Matrix: the Telegram message loses its buttons.
	r.oc.permission("per_mx", "make test")
	m = openIn("make test")
	poll, msg = waitPoll(ctx, t, r.alice, "make test")
	if _, err := r.alice.Vote(ctx, r.room, poll, "once"); err != nil {
		t.Fatal(err)
	}
	if rep := r.oc.waitAnswer(ctx, t, 2); rep.RequestID != "per_mx" || rep.Reply != "once" {
		t.Fatalf("answer %+v; want per_mx once", rep)
	}
	closedIn(m.ID, r.alice.ID)
	waitEnd(ctx, t, r.alice, poll, msg, "Allowed once")

	if err := bot.stop(t); err != nil {
		t.Errorf("hermes-bot exited with %v after SIGTERM, want 0", err)
	}
	r.checkSecrets(t, bot)
	if reps := r.oc.answers(); len(reps) != 2 {
		t.Errorf("opencode got %d answers, want 2: %+v", len(reps), reps)
	}
	if un := tg.UnansweredCallbacks(); len(un) > 0 {
		t.Errorf("callback queries left unanswered: %v", un)
	}
}

// TestE2EMatrixForms answers OpenCode 2 forms in a Matrix room: a choice,
// a whole number typed as a reply (a wrong one explained and asked
// again), a yes/no, an optional field skipped; a link cancelled.
func TestE2EMatrixForms(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*stepTimeout)
	defer cancel()
	r := newMxRig(t, ctx, true)
	oc, env := fakeOpencode2(t, r.env)
	bot := startBot(t, env)

	oc.releaseForm("ses_rel")
	poll, msg := waitPoll(ctx, t, r.alice, "Where to?")
	if _, err := r.alice.Vote(ctx, r.room, poll, "o1"); err != nil {
		t.Fatal(err)
	}
	poll, _ = waitPoll(ctx, t, r.alice, "How many replicas?")
	if _, err := r.alice.Reply(ctx, r.room, poll, "", "2.5"); err != nil {
		t.Fatal(err)
	}
	waitMessage(ctx, t, r.alice, r.botID, "not a whole number")
	if _, err := r.alice.Reply(ctx, r.room, msg, "", "3"); err != nil {
		t.Fatal(err)
	}
	poll, _ = waitPoll(ctx, t, r.alice, "Notify people?")
	if _, err := r.alice.Vote(ctx, r.room, poll, "o0"); err != nil {
		t.Fatal(err)
	}
	poll, _ = waitPoll(ctx, t, r.alice, "Anything to add?")
	if _, err := r.alice.Vote(ctx, r.room, poll, "skip"); err != nil {
		t.Fatal(err)
	}
	if kind, answer := oc.waitForm(ctx, t, 1); kind != "reply" || fmt.Sprint(answer) != "map[notify:true replicas:3 target:prod]" {
		t.Fatalf("form answered %s %v; want target prod, replicas 3, notify true, no note", kind, answer)
	}
	waitEnd(ctx, t, r.alice, poll, msg, "Answered")

	oc.linkForm("ses_link")
	poll, msg = waitPoll(ctx, t, r.alice, "Done with the link?")
	m, err := r.alice.Event(ctx, r.room, msg)
	if err != nil {
		t.Fatal(err)
	}
	if html, _ := content(t, m)["formatted_body"].(string); !strings.Contains(html, `<a href="https://example.org/auth">`) {
		t.Fatalf("link form's message %s; want the link", html)
	}
	if _, err := r.alice.Vote(ctx, r.room, poll, "cancel"); err != nil {
		t.Fatal(err)
	}
	if kind, _ := oc.waitForm(ctx, t, 2); kind != "cancel" {
		t.Fatalf("link form answered %s, want cancelled", kind)
	}
	waitEnd(ctx, t, r.alice, poll, msg, "Cancelled")
	if err := bot.stop(t); err != nil {
		t.Errorf("hermes-bot exited with %v after SIGTERM, want 0", err)
	}
	r.checkSecrets(t, bot)
}

// TestE2EMatrixExpiry: a request nobody answers in time ends its poll,
// the message saying it expired, and opencode is told.
func TestE2EMatrixExpiry(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*stepTimeout)
	defer cancel()
	r := newMxRig(t, ctx, true)
	bot := startBot(t, append(slices.Clone(r.env), "HERMES_QUESTION_TTL=2s"))
	r.oc.permission("per_x", "make deploy")
	poll, msg := waitPoll(ctx, t, r.alice, "make deploy")
	waitEnd(ctx, t, r.alice, poll, msg, "Expired")
	if rep := r.oc.waitAnswer(ctx, t, 1); rep.RequestID != "per_x" || rep.Reply != "reject" {
		t.Fatalf("answer %+v; want per_x rejected at expiry", rep)
	}
	if err := bot.stop(t); err != nil {
		t.Errorf("hermes-bot exited with %v after SIGTERM, want 0", err)
	}
}
