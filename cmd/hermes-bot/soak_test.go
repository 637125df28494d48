package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

var soakRequests = flag.Int("soak.requests", 0, "requests TestSoak makes (default 200, or $HERMES_SOAK)")

const (
	soakDefault = 200
	soakChatID  = int64(-1005550001)
	// soakTTL is short so the requests nobody answers expire within the
	// run; the others are answered long before it.
	soakTTL       = 6 * time.Second
	soakBatch     = 20
	soakDirs      = 6
	soakSessions  = 24
	btnAllowOnce  = "✅ Allow once"
	btnRejectPerm = "❌ Reject"
)

// soakCount is how many requests the soak makes: -soak.requests, else
// $HERMES_SOAK, else soakDefault.
func soakCount(t *testing.T) int {
	if *soakRequests > 0 {
		return *soakRequests
	}
	if v := os.Getenv("HERMES_SOAK"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("HERMES_SOAK=%q: want a positive number of requests", v)
		}
		return n
	}
	return soakDefault
}

// soakReq is one request of the soak and what the driver does with it.
type soakReq struct {
	n          int
	token      string // "soak-0042": in the message, so the message can be found
	id         string // the opencode request ID
	dir        string
	session    string
	permission bool
	leave      bool   // nobody presses it: it must expire
	choice     string // the button the driver presses
	double     bool   // pressed twice at once
	stranger   bool   // a user not allowed presses first
}

func soakPlan(n int) []*soakReq {
	reqs := make([]*soakReq, n)
	for i := range reqs {
		r := &soakReq{
			n:          i,
			token:      fmt.Sprintf("soak-%04d", i),
			session:    fmt.Sprintf("ses_soak%02d", i%soakSessions),
			permission: i%3 == 0,
			leave:      i%7 == 3,
			double:     i%10 == 4,
			stranger:   i%13 == 5,
		}
		// A session stays in one directory, as in opencode.
		r.dir = fmt.Sprintf("/soak/repo-%d", (i%soakSessions)%soakDirs)
		switch {
		case r.permission && i%2 == 0:
			r.id, r.choice = fmt.Sprintf("per_soak%04d", i), btnAllowOnce
		case r.permission:
			r.id, r.choice = fmt.Sprintf("per_soak%04d", i), btnRejectPerm
		case i%2 == 0:
			r.id, r.choice = fmt.Sprintf("que_soak%04d", i), "alpha"
		default:
			r.id, r.choice = fmt.Sprintf("que_soak%04d", i), "beta"
		}
		reqs[i] = r
	}
	return reqs
}

// ask makes r pending in the fake opencode and, when announce is set,
// sends its asked event; otherwise r is found by the listing after the
// next connect.
func (r *soakReq) ask(oc *opencodetest.Server, announce bool) {
	if r.permission {
		cmd := "echo " + r.token
		meta, _ := json.Marshal(map[string]string{"command": cmd, "description": "soak " + r.token})
		p := opencode.PermissionRequest{
			ID: r.id, SessionID: r.session, Permission: "bash",
			Patterns: []string{cmd}, Always: []string{"echo *"}, Metadata: meta,
			Tool: &opencode.ToolRef{MessageID: "msg_" + r.token, CallID: "call_" + r.token},
		}
		if announce {
			oc.AddPermission(r.dir, p)
		} else {
			oc.StorePermission(r.dir, p)
		}
		return
	}
	q := testQuestion(r.id, r.session, "Soak question "+r.token+": which one?")
	if announce {
		oc.AddQuestion(r.dir, q)
	} else {
		oc.StoreQuestion(r.dir, q)
	}
}

// soakDriver plays the people in the group: it presses the chosen button
// of every request message not left to expire, and presses again when
// the bot says the answer did not go through.
type soakDriver struct {
	tg      *telegramtest.Server
	byToken map[string]*soakReq
	// pressed maps a message to the notes replying to it when it was
	// last pressed: a newer note means "try again".
	pressed map[int]int

	presses, repeats, doubles, strangers, missed int
}

var soakTokenRE = regexp.MustCompile(`soak-\d{4}`)

// step presses what is due; it runs inside tg.Wait, after every change of
// the fake's state, from one goroutine.
func (d *soakDriver) step() {
	msgs := d.tg.Messages(soakChatID)
	notes := make(map[int]int)
	for _, m := range msgs {
		if m.FromBot && m.ReplyTo != 0 && m.ForceReply == nil {
			notes[m.ReplyTo]++
		}
	}
	for _, m := range msgs {
		if !isRequest(m) || len(m.Keyboard) == 0 {
			continue
		}
		r := d.byToken[soakTokenRE.FindString(m.PlainText)]
		if r == nil || r.leave {
			continue
		}
		last, seen := d.pressed[m.ID]
		if seen && notes[m.ID] <= last {
			continue
		}
		if seen {
			d.repeats++
		}
		d.pressed[m.ID] = notes[m.ID]
		if r.stranger && !seen {
			if _, err := d.tg.PressButtonText(soakChatID, m.ID, eve, r.choice); err == nil {
				d.strangers++
			}
		}
		if _, err := d.tg.PressButtonText(soakChatID, m.ID, dana, r.choice); err != nil {
			d.missed++ // the keyboard changed meanwhile
			continue
		}
		d.presses++
		if r.double {
			if _, err := d.tg.PressButtonText(soakChatID, m.ID, dana, r.choice); err == nil {
				d.doubles++
			}
		}
	}
}

// TestSoak sends many requests across many sessions and directories
// through hermes-bot while event streams are cut, Telegram answers 429s
// and 5xx, and hermes-bot restarts midway; then it checks that every
// request ended answered or expired, with exactly one message and one
// reply each. -soak.requests or HERMES_SOAK makes it longer (past about
// 2000 requests, raise go test's -timeout too).
func TestSoak(t *testing.T) {
	n := soakCount(t)
	if testing.Short() {
		n = min(n, 50)
	}
	began := time.Now()
	reqs := soakPlan(n)

	tg := telegramtest.NewServer(faultToken)
	t.Cleanup(tg.Close)
	if err := tg.AddChat(soakChatID, telegramtest.ChatSupergroup); err != nil {
		t.Fatal(err)
	}
	oc := opencodetest.NewServer(opencodetest.WithAuth("", faultPassword))
	t.Cleanup(oc.Close)
	var projects []opencode.Project
	for d := range soakDirs {
		dir := fmt.Sprintf("/soak/repo-%d", d)
		if d == soakDirs-1 {
			projects[0].Sandboxes = []string{dir} // a worktree of the first project
			continue
		}
		projects = append(projects, opencode.Project{ID: fmt.Sprintf("prj%d", d), Worktree: dir})
	}
	oc.SetProjects(projects)
	for s := range soakSessions {
		id := fmt.Sprintf("ses_soak%02d", s)
		oc.AddSession(opencode.Session{ID: id, Title: "Soak session " + strconv.Itoa(s), Directory: fmt.Sprintf("/soak/repo-%d", s%soakDirs)})
	}
	home := t.TempDir()
	env := map[string]string{
		"HOME":                      home,
		"TELEGRAM_BOT_TOKEN":        faultToken,
		"TELEGRAM_CHAT_ID":          fmt.Sprint(soakChatID),
		"TELEGRAM_ALLOWED_USER_IDS": fmt.Sprint(dana.ID),
		"TELEGRAM_API_URL":          tg.URL,
		"OPENCODE_URL":              oc.URL,
		"OPENCODE_SERVER_PASSWORD":  faultPassword,
		"HERMES_DB":                 filepath.Join(home, "state", "pending.db"),
		"HERMES_QUESTION_TTL":       soakTTL.String(),
		"HERMES_TELEGRAM_RATE":      "0",
		"HERMES_LOG_LEVEL":          "info",
		"HERMES_LOG_FORMAT":         "json",
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute+time.Duration(n)*300*time.Millisecond)
	defer cancel()

	d := &soakDriver{tg: tg, byToken: make(map[string]*soakReq), pressed: make(map[int]int)}
	for _, r := range reqs {
		d.byToken[r.token] = r
	}
	driverCtx, stopDriver := context.WithCancel(ctx)
	driverDone := make(chan struct{})
	go func() {
		defer close(driverDone)
		_ = tg.Wait(driverCtx, func() bool { d.step(); return false })
	}()
	defer func() { stopDriver(); <-driverDone }()

	// posted waits until each of rs has a message.
	posted := func(what string, rs []*soakReq) {
		t.Helper()
		err := tg.Wait(ctx, func() bool {
			have := make(map[string]bool)
			for _, m := range tg.Messages(soakChatID) {
				if isRequest(m) {
					have[soakTokenRE.FindString(m.PlainText)] = true
				}
			}
			for _, r := range rs {
				if !have[r.token] {
					return false
				}
			}
			return true
		})
		if err != nil {
			t.Fatalf("%s: not every request was posted: %v", what, err)
		}
	}

	var faults struct{ tooMany, serverErrors, drops, restarts int }
	// inject sets up the faults of a batch; what it returns runs once the
	// batch is asked.
	inject := func(batch int) (after func()) {
		after = func() {}
		switch batch % 5 {
		case 1:
			tg.FailNext("sendMessage", telegramtest.Fault{Code: 429, RetryAfter: 1})
			faults.tooMany++
		case 2:
			tg.FailNext("sendMessage", telegramtest.Fault{Code: 502, Body: "<html>502 Bad Gateway</html>"})
			tg.FailNext("getUpdates", telegramtest.Fault{Code: 500})
			faults.serverErrors += 2
		case 3:
			// Cut once the batch is asked, with its events in flight: the
			// listing after the reconnect must find what the cut stream
			// lost, and post nothing twice.
			after = oc.DropStreams
			faults.drops++
		case 4:
			tg.FailNext("editMessageText", telegramtest.Fault{Code: 500})
			tg.FailNext("editMessageText", telegramtest.Fault{Code: 429, RetryAfter: 1})
			faults.serverErrors++
			faults.tooMany++
		}
		return after
	}

	// The first batch is pending before hermes-bot starts; the others are
	// asked once the one before is posted, so after the listing of a
	// connect.
	// Midway, and every 300 requests in a longer soak.
	restartEvery := min(max(1, n/soakBatch/2), 300/soakBatch) * soakBatch
	for _, r := range reqs[:min(soakBatch, n)] {
		r.ask(oc, false)
	}
	bot := start(t, env)
	for lo := 0; lo < n; lo += soakBatch {
		batch := reqs[lo:min(lo+soakBatch, n)]
		after := inject(lo / soakBatch)
		if lo > 0 {
			for _, r := range batch {
				r.ask(oc, true)
			}
		}
		after()
		if lo == 0 || lo%restartEvery != 0 {
			posted(fmt.Sprintf("batch %d", lo/soakBatch), batch)
			continue
		}
		// Restart while this batch is on its way and presses are in
		// flight, and ask one more batch while nobody listens.
		posted("half the batch before the restart", batch[:len(batch)/2])
		if err := bot.stop(t); err != nil {
			t.Fatalf("first hermes-bot: %v", err)
		}
		faults.restarts++
		down := reqs[min(lo+soakBatch, n):min(lo+2*soakBatch, n)]
		for _, r := range down {
			r.ask(oc, true)
		}
		bot = start(t, env)
		posted("the batches around the restart", slices.Concat(batch, down))
		lo += len(down)
	}

	// Every request ends answered or expired: no longer pending in
	// opencode, its message without buttons, every press answered.
	err := tg.Wait(ctx, func() bool {
		replied := make(map[string]bool)
		for _, rep := range oc.Replies() {
			replied[rep.RequestID] = true
		}
		for _, r := range reqs {
			if !replied[r.id] {
				return false
			}
		}
		for _, m := range tg.Messages(soakChatID) {
			if isRequest(m) && len(m.Keyboard) > 0 {
				return false
			}
		}
		return len(tg.UnansweredCallbacks()) == 0
	})
	stopDriver()
	<-driverDone
	if err != nil {
		t.Errorf("the soak did not settle: %v", err)
	}
	if err := bot.stop(t); err != nil {
		t.Errorf("second hermes-bot: %v", err)
	}

	// Tally per request.
	replies := make(map[string][]opencodetest.Reply)
	for _, rep := range oc.Replies() {
		replies[rep.RequestID] = append(replies[rep.RequestID], rep)
	}
	posts := make(map[string][]telegramtest.Message)
	for _, m := range tg.Messages(soakChatID) {
		if isRequest(m) {
			tok := soakTokenRE.FindString(m.PlainText)
			posts[tok] = append(posts[tok], m)
		}
	}
	attempts := make(map[string]int)
	for _, rq := range oc.Requests() {
		if rq.Method == "POST" {
			attempts[strings.Split(strings.TrimPrefix(strings.TrimPrefix(rq.Path, "/question/"), "/permission/"), "/")[0]]++
		}
	}
	var answered, expired, expiredEarly, questions, permissions int
	for _, r := range reqs {
		if r.permission {
			permissions++
		} else {
			questions++
		}
		if ms := posts[r.token]; len(ms) != 1 {
			t.Errorf("%s (%s): %d messages, want exactly 1", r.token, r.id, len(ms))
		} else if len(ms[0].Keyboard) > 0 {
			t.Errorf("%s: its message still has buttons:\n%s", r.token, ms[0].PlainText)
		}
		if a := attempts[r.id]; a != 1 {
			t.Errorf("%s (%s): %d answers sent to opencode, want exactly 1", r.token, r.id, a)
		}
		reps := replies[r.id]
		if len(reps) != 1 {
			t.Errorf("%s (%s): %d replies accepted by opencode, want exactly 1: %+v", r.token, r.id, len(reps), reps)
			continue
		}
		rep := reps[0]
		isExpiry := rep.Kind == opencodetest.RejectQuestion || (rep.Kind == opencodetest.ReplyPermission && rep.Reply == "reject" && rep.Message != "")
		switch {
		case isExpiry:
			expired++
			if !r.leave {
				expiredEarly++ // the press came too late on a loaded machine: allowed
			}
			if ms := posts[r.token]; len(ms) == 1 && !strings.Contains(strings.ToLower(ms[0].PlainText), "expired") {
				t.Errorf("%s expired but its message does not say so:\n%s", r.token, ms[0].PlainText)
			}
		case r.leave:
			t.Errorf("%s was never pressed, yet opencode got %+v", r.token, rep)
		case !soakReplyMatches(r, rep):
			t.Errorf("%s: the driver pressed %q, opencode got %+v", r.token, r.choice, rep)
		default:
			answered++
		}
	}
	if answered == 0 {
		t.Errorf("no request was answered by a press")
	}
	if un := tg.UnansweredCallbacks(); len(un) > 0 {
		t.Errorf("%d callback queries left unanswered", len(un))
	}
	t.Logf("soak: %d requests (%d questions, %d permissions) in %d directories and %d sessions, in %s",
		n, questions, permissions, soakDirs, soakSessions, time.Since(began).Round(time.Millisecond))
	t.Logf("soak: %d answered, %d expired (%d left unanswered on purpose, %d whose press came too late)",
		answered, expired, expired-expiredEarly, expiredEarly)
	t.Logf("soak: %d presses, %d repeated after a failure, %d double taps, %d presses by a stranger, %d presses on a changed keyboard",
		d.presses, d.repeats, d.doubles, d.strangers, d.missed)
	t.Logf("soak: faults injected: %d Telegram 429s, %d Telegram 5xx, %d event streams cut, %d restarts",
		faults.tooMany, faults.serverErrors, faults.drops, faults.restarts)
	t.Logf("soak summary: requests=%d answered=%d expired=%d messages=%d replies=%d duration=%s",
		n, answered, expired, len(posts), len(replies), time.Since(began).Round(time.Second))
}

// soakReplyMatches reports whether rep is what pressing r.choice sends.
func soakReplyMatches(r *soakReq, rep opencodetest.Reply) bool {
	switch r.choice {
	case btnAllowOnce:
		return rep.Kind == opencodetest.ReplyPermission && rep.Reply == "once"
	case btnRejectPerm:
		return rep.Kind == opencodetest.ReplyPermission && rep.Reply == "reject" && rep.Message == ""
	default:
		return rep.Kind == opencodetest.ReplyQuestion && len(rep.Answers) == 1 &&
			len(rep.Answers[0]) == 1 && rep.Answers[0][0] == r.choice
	}
}
