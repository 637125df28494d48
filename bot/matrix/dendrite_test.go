package matrix

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"maunium.net/go/mautrix/id"

	"github.com/hermes-bot/hermes-bot/bot/matrix/matrixtest"
)

// TestDendrite runs the transport's tests against one real Dendrite, each
// with accounts and a room of its own, in parallel.
func TestDendrite(t *testing.T) {
	s := &suite{hs: matrixtest.StartDendrite(t)}
	for name, test := range map[string]func(*testing.T, *suite){
		"PasswordLoginKeepsDevice":          testPasswordLoginKeepsDevice,
		"AccessTokenSettings":               testAccessTokenSettings,
		"JoinsOnlyItsRoom":                  testJoinsOnlyItsRoom,
		"RestartNeitherMissesNorReplays":    testRestartNeitherMissesNorReplays,
		"PollRoundTrip":                     testPollRoundTrip,
		"CheckReactionsAndReplies":          testCheckReactionsAndReplies,
		"TransactionIDsDedupe":              testTransactionIDsDedupe,
		"RunDropsOwnOtherRoomsAndMalformed": testRunDropsOwnOtherRoomsAndMalformed,
		"HandlerErrorRetries":               testHandlerErrorRetries,
		"EditAndReact":                      testEditAndReact,
		"WrongPasswordKeepsItSecret":        testWrongPasswordKeepsItSecret,
		"InvitedLater":                      testInvitedLater,
		"MovedToAnotherRoom":                testMovedToAnotherRoom,
		"FrontendQuestions":                 testFrontendQuestions,
		"FrontendPermissionsAndForms":       testFrontendPermissionsAndForms,
		"FrontendQuickReplies":              testFrontendQuickReplies,
		"FrontendChinese":                   testFrontendChinese,
		"SendRetriesCounted":                testSendRetriesCounted,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			test(t, s)
		})
	}
}

func testPasswordLoginKeepsDevice(t *testing.T, su *suite) {
	r, ctx := su.newRig(t)
	first := r.client(t, ctx)
	if first.DeviceID() == "" {
		t.Fatal("no device ID after logging in")
	}
	raw, ok, err := r.state.Get(keySession)
	if err != nil || !ok {
		t.Fatalf("no session stored: %v", err)
	}
	if strings.Contains(r.log.String(), r.settings.Password) || strings.Contains(r.log.String(), first.cli.AccessToken) {
		t.Errorf("the log holds a secret:\n%s", r.log.String())
	}

	again := r.client(t, ctx)
	if again.DeviceID() != first.DeviceID() || again.cli.AccessToken != first.cli.AccessToken {
		t.Errorf("restart used device %s, want %s with the same token", again.DeviceID(), first.DeviceID())
	}
	if strings.Count(r.log.String(), "logged in") != 1 {
		t.Errorf("want one login in the log:\n%s", r.log.String())
	}
	after, _, _ := r.state.Get(keySession)
	if string(after) != string(raw) {
		t.Error("a restart with a valid session changed it")
	}

	// A revoked token means logging in again, with the same device.
	if _, err := again.cli.Logout(ctx); err != nil {
		t.Fatal(err)
	}
	third := r.client(t, ctx)
	if third.DeviceID() != first.DeviceID() {
		t.Errorf("re-login made device %s, want %s", third.DeviceID(), first.DeviceID())
	}
	if third.cli.AccessToken == first.cli.AccessToken {
		t.Error("re-login kept the revoked token")
	}
}

func testAccessTokenSettings(t *testing.T, su *suite) {
	r, ctx := su.newRig(t)
	bot := r.client(t, ctx)
	s := r.settings
	s.Password, s.AccessToken = "", bot.cli.AccessToken
	c, err := New(ctx, s, r.state, bot.log)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.DeviceID() != bot.DeviceID() {
		t.Errorf("device %s, want %s", c.DeviceID(), bot.DeviceID())
	}
	s.UserID = r.alice.ID // the token is not alice's
	if _, err := New(ctx, s, r.state, bot.log); err == nil || strings.Contains(err.Error(), s.AccessToken) {
		t.Errorf("New with another account's token: %v", err)
	}
}

func testJoinsOnlyItsRoom(t *testing.T, su *suite) {
	r, ctx := su.newRig(t)
	other, err := r.mallory.CreateRoom(ctx, r.settings.UserID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.alice.SendText(ctx, r.room, "/pending before the bot came"); err != nil {
		t.Fatal(err)
	}
	_, rn := r.started(t, ctx)
	// A message handled means the batches with both invites are done.
	if _, err := r.alice.SendText(ctx, r.room, "hello"); err != nil {
		t.Fatal(err)
	}
	if ev := rn.next(t, ctx); ev.Text != "hello" || ev.Sender != r.alice.ID || ev.Room != r.room {
		t.Fatalf("got %+v, want alice's hello (and not the room's history)", ev)
	}
	members, err := r.mallory.Members(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(members, r.settings.UserID) {
		t.Errorf("the bot joined %s, which is not its room", other)
	}
	if !strings.Contains(r.log.String(), "not joining") {
		t.Errorf("no log line about the other invite:\n%s", r.log.String())
	}
}

// A restart after the room moved on by more than a sync returns hands
// over exactly what was missed, in order, and nothing handled before.
func testRestartNeitherMissesNorReplays(t *testing.T, su *suite) {
	r, ctx := su.newRig(t)
	_, rn := r.started(t, ctx)
	for _, s := range []string{"one", "two"} {
		if _, err := r.alice.SendText(ctx, r.room, s); err != nil {
			t.Fatal(err)
		}
	}
	if got := texts(rn.until(t, ctx, func(ev Event) bool { return ev.Text == "two" })); !slices.Equal(got, []string{"one", "two"}) {
		t.Fatalf("before the restart: %q", got)
	}
	rn.stop(t)

	var want []string
	for i := range 3 * r.settings.TimelineLimit {
		s := fmt.Sprintf("gap %d", i+1)
		if _, err := r.alice.SendText(ctx, r.room, s); err != nil {
			t.Fatal(err)
		}
		want = append(want, s)
	}
	restarted := r.client(t, ctx)
	restarted.gapPage = 4 // the gap takes several pages, the last one partly
	again := run(ctx, restarted)
	defer again.stop(t)
	if _, err := r.alice.SendText(ctx, r.room, "after"); err != nil {
		t.Fatal(err)
	}
	want = append(want, "after")
	got := again.until(t, ctx, func(ev Event) bool { return ev.Text == "after" })
	if !slices.Equal(texts(got), want) {
		t.Errorf("after the restart:\n got %q\nwant %q", texts(got), want)
	}
}

func testPollRoundTrip(t *testing.T, su *suite) {
	r, ctx := su.newRig(t)
	bot, rn := r.started(t, ctx)
	poll, err := bot.StartPoll(ctx, "q1-poll", Poll{Question: "Which colour?", MaxSelections: 1,
		Answers: []PollAnswer{{ID: "red", Text: "Red"}, {ID: "blue", Text: "Blue"}}})
	if err != nil {
		t.Fatal(err)
	}
	start, err := r.alice.WaitFor(ctx, func(ev matrixtest.Event) bool { return ev.ID == poll })
	if err != nil {
		t.Fatal(err)
	}
	var content struct {
		Start struct {
			Kind          string `json:"kind"`
			MaxSelections int    `json:"max_selections"`
			Question      struct {
				Text string `json:"org.matrix.msc1767.text"`
			} `json:"question"`
			Answers []struct {
				ID   string `json:"id"`
				Text string `json:"org.matrix.msc1767.text"`
			} `json:"answers"`
		} `json:"org.matrix.msc3381.poll.start"`
		Fallback string `json:"org.matrix.msc1767.text"`
	}
	if err := start.Decode(&content); err != nil {
		t.Fatal(err)
	}
	if start.Type != "org.matrix.msc3381.poll.start" || content.Start.Kind != pollUndisclosed ||
		content.Start.MaxSelections != 1 || content.Start.Question.Text != "Which colour?" ||
		len(content.Start.Answers) != 2 || content.Start.Answers[1].ID != "blue" || content.Start.Answers[1].Text != "Blue" ||
		content.Fallback != "Which colour?\n1. Red\n2. Blue" {
		t.Errorf("poll start as sent: %s %s", start.Type, start.Content)
	}

	if _, err := r.alice.Vote(ctx, r.room, poll, "red"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.mallory.Vote(ctx, r.room, poll, "blue"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.alice.VoteStable(ctx, r.room, poll, "blue"); err != nil {
		t.Fatal(err)
	}
	votes := rn.until(t, ctx, func(ev Event) bool { return len(ev.Answers) == 1 && ev.Sender == r.alice.ID && ev.Answers[0] == "blue" })
	var got []string
	for _, v := range votes {
		if v.Kind != KindVote || v.Poll != poll || v.Time.IsZero() {
			t.Fatalf("not a vote on the poll: %+v", v)
		}
		got = append(got, v.Sender+"="+strings.Join(v.Answers, ","))
	}
	if want := []string{r.alice.ID + "=red", r.mallory.ID + "=blue", r.alice.ID + "=blue"}; !slices.Equal(got, want) {
		t.Errorf("votes %q, want %q", got, want)
	}

	endID, err := bot.EndPoll(ctx, "q1-end", poll, "Answered: Blue")
	if err != nil {
		t.Fatal(err)
	}
	end, err := r.alice.WaitFor(ctx, func(ev matrixtest.Event) bool { return ev.ID == endID })
	if err != nil {
		t.Fatal(err)
	}
	var endContent struct {
		RelatesTo struct {
			RelType string `json:"rel_type"`
			EventID string `json:"event_id"`
		} `json:"m.relates_to"`
		Fallback string `json:"org.matrix.msc1767.text"`
	}
	if err := end.Decode(&endContent); err != nil {
		t.Fatal(err)
	}
	if end.Type != "org.matrix.msc3381.poll.end" || endContent.RelatesTo.RelType != "m.reference" ||
		endContent.RelatesTo.EventID != poll || endContent.Fallback != "Answered: Blue" {
		t.Errorf("poll end as sent: %s %s", end.Type, end.Content)
	}
	if _, err := r.alice.Vote(ctx, r.room, poll, "red"); err != nil {
		t.Fatal(err)
	}
	// Frontend.vote drops a vote sent after the end by its origin time.
	if late := rn.next(t, ctx); late.Kind != KindVote || late.Time.UnixMilli() < end.TS {
		t.Errorf("a vote after the end is not later than it: %+v (end %d)", late, end.TS)
	}
}

func testCheckReactionsAndReplies(t *testing.T, su *suite) {
	r, ctx := su.newRig(t)
	bot, rn := r.started(t, ctx)
	poll, err := bot.StartPoll(ctx, "q2-poll", Poll{Question: "Which?", MaxSelections: 2, Disclosed: true,
		Answers: []PollAnswer{{ID: "a", Text: "A"}, {ID: "b", Text: "B"}}})
	if err != nil {
		t.Fatal(err)
	}
	var reactions Reactions
	for _, c := range []struct {
		u     *matrixtest.User
		key   string
		count bool
	}{
		{r.alice, "\u2705", true},
		{r.alice, "\u2705\uFE0F", false}, // the same ✅, spelt the other way
		{r.mallory, "\u2705\uFE0F", false},
	} {
		if _, err := c.u.React(ctx, r.room, poll, c.key); err != nil {
			t.Fatal(err)
		}
		ev := rn.next(t, ctx)
		if ev.Kind != KindReaction || ev.Target != poll || ev.Key != c.key || ev.Sender != c.u.ID || !IsCheck(ev.Key) {
			t.Fatalf("reaction %q handed over as %+v", c.key, ev)
		}
		if got := bot.allow.Allows(ev.Sender) && reactions.First(ev); got != c.count {
			t.Errorf("%s's %q counted: %v, want %v", ev.Sender, c.key, got, c.count)
		}
	}
	ask, err := bot.Send(ctx, "q3-ask", Message{Text: "What now?", HTML: "<b>What now?</b>"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.alice.Reply(ctx, r.room, ask, "What now?", "paint it blue\nthen stop"); err != nil {
		t.Fatal(err)
	}
	ev := rn.next(t, ctx)
	if ev.Kind != KindText || ev.ReplyTo != ask || ev.Text != "paint it blue\nthen stop" || ev.HTML != "paint it blue\nthen stop" {
		t.Errorf("reply handed over as %+v", ev)
	}
	if _, err := r.alice.SendText(ctx, r.room, "/pending  all"); err != nil {
		t.Fatal(err)
	}
	if ev := rn.next(t, ctx); ev.Kind != KindCommand || ev.Command != "pending" || ev.Args != "all" {
		t.Errorf("command handed over as %+v", ev)
	}
}

func testTransactionIDsDedupe(t *testing.T, su *suite) {
	r, ctx := su.newRig(t)
	bot, _ := r.started(t, ctx)
	first, err := bot.Send(ctx, TxnID("notice", "1"), Message{Text: "once", Notice: true})
	if err != nil {
		t.Fatal(err)
	}
	again, err := bot.Send(ctx, TxnID("notice", "1"), Message{Text: "once", Notice: true})
	if err != nil {
		t.Fatal(err)
	}
	restarted := r.client(t, ctx) // a new process with the stored session
	third, err := restarted.Send(ctx, TxnID("notice", "1"), Message{Text: "once", Notice: true})
	if err != nil {
		t.Fatal(err)
	}
	if again != first || third != first {
		t.Errorf("one transaction made events %s, %s, %s", first, again, third)
	}
	other, err := bot.Send(ctx, TxnID("notice", "2"), Message{Text: "once", Notice: true})
	if err != nil {
		t.Fatal(err)
	}
	if other == first {
		t.Error("another transaction ID gave the same event")
	}
	var seen []string
	if _, err := r.alice.WaitFor(ctx, func(ev matrixtest.Event) bool {
		if ev.Sender == r.settings.UserID && ev.Type == "m.room.message" {
			seen = append(seen, ev.ID)
		}
		return ev.ID == other
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seen, []string{first, other}) {
		t.Errorf("the room holds %q, want %q", seen, []string{first, other})
	}
}

func testRunDropsOwnOtherRoomsAndMalformed(t *testing.T, su *suite) {
	r, ctx := su.newRig(t)
	bot, rn := r.started(t, ctx)
	other, err := r.mallory.CreateRoom(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.mallory.Invite(ctx, other, bot.UserID()); err != nil {
		t.Fatal(err)
	}
	if _, err := bot.cli.JoinRoomByID(ctx, id.RoomID(other)); err != nil { // as if joined by hand
		t.Fatal(err)
	}
	if _, err := r.mallory.SendText(ctx, other, "/pending elsewhere"); err != nil {
		t.Fatal(err)
	}
	if _, err := bot.Send(ctx, "own-1", Message{Text: "/pending from the bot"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.alice.Send(ctx, r.room, "m.poll.response", map[string]any{
		"m.relates_to": map[string]string{"rel_type": "m.reference", "event_id": "$nothing"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.alice.SendText(ctx, r.room, "/status"); err != nil {
		t.Fatal(err)
	}
	if ev := rn.next(t, ctx); ev.Command != "status" || ev.Sender != r.alice.ID {
		t.Errorf("first event handed over: %+v, want alice's /status", ev)
	}
	if n := strings.Count(r.log.String(), "event not understood"); n != 1 {
		t.Errorf("%d log lines about the malformed vote, want 1:\n%s", n, r.log.String())
	}
}

// A handler that fails stops the batch; the event comes again, the ones
// handled before it do not.
// A failed batch is fetched again; LastSync, which /healthz watches,
// records the syncs that succeeded and not the failed one.
func testHandlerErrorRetries(t *testing.T, su *suite) {
	r, ctx := su.newRig(t)
	// synced[i] is LastSync when the i-th event was handed over, read in
	// Run's goroutine: the batch being handled has not counted yet.
	var (
		client atomic.Pointer[Client]
		mu     sync.Mutex
		synced []time.Time
		failed bool
	)
	c, rn := r.startedFailing(t, ctx, func(ev Event) error {
		mu.Lock()
		defer mu.Unlock()
		synced = append(synced, client.Load().LastSync())
		if ev.Text == "two" && !failed {
			failed = true
			return errors.New("store unavailable")
		}
		return nil
	})
	client.Store(c)
	for _, s := range []string{"one", "two", "three"} {
		if _, err := r.alice.SendText(ctx, r.room, s); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for len(got) == 0 || got[len(got)-1] != "three" {
		got = append(got, rn.next(t, ctx).Text)
	}
	if want := []string{"one", "two", "two", "three"}; !slices.Equal(got, want) {
		t.Fatalf("handed over %q, want %q", got, want)
	}
	mu.Lock()
	failedAt, retriedAt := synced[1], synced[2]
	mu.Unlock()
	if retriedAt.IsZero() || !retriedAt.Equal(failedAt) {
		t.Errorf("LastSync at the failed batch %v, at its retry %v: want the same, the failed batch not counted", failedAt, retriedAt)
	}
	for !c.LastSync().After(retriedAt) {
		select {
		case <-ctx.Done():
			t.Fatalf("LastSync stayed %v after the retry succeeded", c.LastSync())
		case <-time.After(10 * time.Millisecond):
		}
	}
	if !strings.Contains(r.log.String(), "store unavailable") {
		t.Errorf("the failure is not in the log:\n%s", r.log.String())
	}
}

func testEditAndReact(t *testing.T, su *suite) {
	r, ctx := su.newRig(t)
	bot, _ := r.started(t, ctx)
	msg, err := bot.Send(ctx, "m-1", Message{Text: "working", HTML: "<i>working</i>", Notice: true})
	if err != nil {
		t.Fatal(err)
	}
	edit, err := bot.Edit(ctx, "m-1-edit", msg, Message{Text: "done", HTML: "<b>done</b>", Notice: true})
	if err != nil {
		t.Fatal(err)
	}
	question, err := r.alice.SendText(ctx, r.room, "anyone?")
	if err != nil {
		t.Fatal(err)
	}
	react, err := bot.React(ctx, "r-1", question, "\u2705")
	if err != nil {
		t.Fatal(err)
	}
	ev, err := r.alice.WaitFor(ctx, func(ev matrixtest.Event) bool { return ev.ID == edit })
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Body       string `json:"body"`
		NewContent struct {
			MsgType       string `json:"msgtype"`
			Body          string `json:"body"`
			FormattedBody string `json:"formatted_body"`
		} `json:"m.new_content"`
		RelatesTo struct {
			RelType string `json:"rel_type"`
			EventID string `json:"event_id"`
		} `json:"m.relates_to"`
	}
	if err := ev.Decode(&c); err != nil {
		t.Fatal(err)
	}
	if c.Body != "* done" || c.NewContent.Body != "done" || c.NewContent.FormattedBody != "<b>done</b>" ||
		c.NewContent.MsgType != "m.notice" || c.RelatesTo.RelType != "m.replace" || c.RelatesTo.EventID != msg {
		t.Errorf("edit as sent: %s", ev.Content)
	}
	ev, err = r.alice.WaitFor(ctx, func(ev matrixtest.Event) bool { return ev.ID == react })
	if err != nil {
		t.Fatal(err)
	}
	if ev.Type != "m.reaction" || !strings.Contains(string(ev.Content), `"event_id":"`+question+`"`) {
		t.Errorf("reaction as sent: %s %s", ev.Type, ev.Content)
	}
}

func testWrongPasswordKeepsItSecret(t *testing.T, su *suite) {
	r, ctx := su.newRig(t)
	s := r.settings
	s.Password = "not-the-password-42"
	_, err := New(ctx, s, r.state, zerolog.New(r.log))
	if err == nil || strings.Contains(err.Error(), s.Password) || strings.Contains(r.log.String(), s.Password) {
		t.Errorf("New with a wrong password: %v; log:\n%s", err, r.log.String())
	}
	if _, ok, _ := r.state.Get(keySession); ok {
		t.Error("a failed login stored a session")
	}
}

// A bot started before it is invited says so, and joins when invited.
func testInvitedLater(t *testing.T, su *suite) {
	r, ctx := su.newRig(t)
	room, err := r.alice.CreateRoom(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r.room, r.settings.RoomID = room, room
	rn := run(ctx, r.client(t, ctx))
	defer rn.stop(t)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !strings.Contains(r.log.String(), "not in its room") {
		select {
		case <-ctx.Done():
			t.Fatalf("no log line about the missing invite:\n%s", r.log.String())
		case <-tick.C:
		}
	}
	if err := r.alice.Invite(ctx, room, r.settings.UserID); err != nil {
		t.Fatal(err)
	}
	r.joined(t, ctx, r.alice)
	if _, err := r.alice.SendText(ctx, room, "welcome"); err != nil {
		t.Fatal(err)
	}
	if ev := rn.next(t, ctx); ev.Text != "welcome" {
		t.Errorf("got %+v, want alice's welcome", ev)
	}
}

// Moved to another room, the bot joins it on its pending invite and
// hands over nothing of its history.
func testMovedToAnotherRoom(t *testing.T, su *suite) {
	r, ctx := su.newRig(t)
	_, rn := r.started(t, ctx)
	next, err := r.alice.CreateRoom(ctx, r.settings.UserID) // ignored: not its room yet
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.alice.SendText(ctx, r.room, "last words here"); err != nil {
		t.Fatal(err)
	}
	if ev := rn.next(t, ctx); ev.Text != "last words here" {
		t.Fatalf("got %+v", ev)
	}
	rn.stop(t)
	if _, err := r.alice.SendText(ctx, next, "/pending old news"); err != nil {
		t.Fatal(err)
	}
	r.room, r.settings.RoomID = next, next
	again := run(ctx, r.client(t, ctx))
	defer again.stop(t)
	r.joined(t, ctx, r.alice)
	if _, err := r.alice.SendText(ctx, next, "first"); err != nil {
		t.Fatal(err)
	}
	if ev := again.next(t, ctx); ev.Text != "first" || ev.Room != next {
		t.Errorf("got %+v, want alice's first in the new room", ev)
	}
}

// counter is a Counter for tests.
type counter struct{ limited, retried atomic.Int64 }

func (c *counter) RateLimited() { c.limited.Add(1) }
func (c *counter) Retried()     { c.retried.Add(1) }

// testSendRetriesCounted: a send answered 429 and then 502 by the way to
// the homeserver is tried again, stays one event, and both are counted.
func testSendRetriesCounted(t *testing.T, su *suite) {
	r, ctx := su.newRig(t)
	target, err := url.Parse(su.hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	var sends atomic.Int64
	flaky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodPut && strings.Contains(req.URL.Path, "/send/") {
			switch sends.Add(1) {
			case 1:
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusTooManyRequests)
				io.WriteString(w, `{"errcode":"M_LIMIT_EXCEEDED","error":"slow down","retry_after_ms":10}`)
				return
			case 2:
				w.WriteHeader(http.StatusBadGateway)
				return
			}
		}
		proxy.ServeHTTP(w, req)
	}))
	defer flaky.Close()
	var m counter
	r.settings.HomeserverURL, r.settings.Metrics = flaky.URL, &m
	bot, _ := r.started(t, ctx)
	ev, err := bot.Send(ctx, TxnID("notice", "retried"), Message{Text: "through a flaky proxy", Notice: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := sends.Load(); got != 3 {
		t.Errorf("%d attempts reached the proxy, want 3", got)
	}
	if l, rt := m.limited.Load(), m.retried.Load(); l != 1 || rt != 1 {
		t.Errorf("counted %d rate-limited and %d retried, want 1 and 1", l, rt)
	}
	var seen []string
	if _, err := r.alice.WaitFor(ctx, func(e matrixtest.Event) bool {
		if e.Sender == r.settings.UserID && e.Type == "m.room.message" {
			seen = append(seen, e.ID)
		}
		return e.ID == ev
	}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 {
		t.Errorf("the room holds %q from the bot, want the one event %s", seen, ev)
	}
}
