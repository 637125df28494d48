package bot

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"

	"github.com/go-telegram/bot/models"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

func wantIn(t *testing.T, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("message lacks %q:\n%s", w, text)
		}
	}
}

func TestPermissionPosted(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	ev := permEvent("per_1", "rm -rf build && make")
	ev.PermissionAsked.Patterns = []string{"rm -rf build", "make"}
	ev.PermissionAsked.Always = []string{"rm *", "make *"}
	e := h.askPerm(ev)

	sent := h.tg.Sent()
	if len(sent) != 1 {
		t.Fatalf("sent %d messages, want 1", len(sent))
	}
	m := sent[0]
	if m.P.ParseMode != models.ParseModeHTML || m.P.ChatID != testChat {
		t.Errorf("sent to %v in %q", m.P.ChatID, m.P.ParseMode)
	}
	wantIn(t, m.P.Text,
		"<b>demo</b>", "Qeppn49", "Permission: bash",
		"<pre>rm -rf build &amp;&amp; make</pre>",
		"Patterns: <code>rm -rf build</code>, <code>make</code>",
		"allows <code>rm *</code>, <code>make *</code> in this project, in every session, until opencode restarts",
		"🔴 <b>high risk</b>", "rm -rf")
	want := [][2]string{
		{i18n.English.BtnAllowOnce, "ponce:" + e.UID},
		{i18n.English.BtnAllowAlways, "palways:" + e.UID},
		{i18n.English.BtnReject, "preject:" + e.UID},
		{i18n.English.BtnRejectReason, "preason:" + e.UID},
	}
	if got := buttons(t, m.P.ReplyMarkup); !reflect.DeepEqual(got, want) {
		t.Errorf("buttons = %q, want %q", got, want)
	}
	if e.Kind != pending.KindPermission || msgID(e) != m.ID || e.CallID != "call_per_1" || e.ToolMessageID != "msg_1" ||
		e.Permission == nil || e.Permission.Kind != "bash" || !reflect.DeepEqual(e.Permission.Always, []string{"rm *", "make *"}) ||
		e.ExpiresAt.Sub(e.CreatedAt) != DefaultTTL {
		t.Errorf("entry = %+v (permission %+v)", e, e.Permission)
	}

	// Seen again (a reconnect's list): nothing new.
	ev.Listed = true
	h.b.HandleEvent(context.Background(), ev)
	if n := len(h.tg.Sent()); n != 1 {
		t.Errorf("sent %d messages after the request was listed again", n)
	}
}

func TestPermissionRiskLevelsShown(t *testing.T) {
	for cmd, want := range map[string]string{
		"ls -la":                "🟢 <b>low risk</b>",
		"make test":             "🟡 <b>medium risk</b>",
		"echo hi; sudo rm -r /": "🔴 <b>high risk</b>",
	} {
		h := newHarness(t, harnessConfig{})
		h.askPerm(h.permIn(project(t), "per_1", cmd))
		wantIn(t, h.lastSent().P.Text, want)
	}
}

func TestPermissionEditShowsFileAndDiff(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	diff := "Index: /home/user/projects/demo/src/app.go\n" +
		"===================================================================\n" +
		"--- /home/user/projects/demo/src/app.go\n+++ /home/user/projects/demo/src/app.go\n" +
		"@@ -1,3 +1,3 @@\n package app\n-const x = 1 // <old>\n+const x = 2 // <new>\n"
	meta, _ := json.Marshal(map[string]string{"filepath": "/home/user/projects/demo/src/app.go", "diff": diff})
	h.askPerm(opencode.Event{
		Directory: "/home/user/projects/demo", Type: opencode.TypePermissionAsked,
		PermissionAsked: &opencode.PermissionRequest{
			ID: "per_e", SessionID: testSession, Permission: "edit",
			Patterns: []string{"src/app.go"}, Always: []string{"*"}, Metadata: meta,
		},
	})
	text := h.lastSent().P.Text
	wantIn(t, text, "Permission: edit", "File: <code>/home/user/projects/demo/src/app.go</code>",
		"-const x = 1 // &lt;old&gt;", "+const x = 2 // &lt;new&gt;", "Patterns: <code>src/app.go</code>",
		"<code>*</code> — that is, every edit request", "🟡 <b>medium risk</b>")
	if strings.Contains(text, "=====") || strings.Contains(text, "Index:") {
		t.Errorf("diff headers shown:\n%s", text)
	}
}

func TestPermissionUnknownMetadataShowsPatterns(t *testing.T) {
	for _, meta := range []string{`[1,2]`, `{"weird":{"x":1},"command":7}`, `"text"`, ``} {
		h := newHarness(t, harnessConfig{})
		h.askPerm(opencode.Event{
			Directory: "/p/demo", Type: opencode.TypePermissionAsked,
			PermissionAsked: &opencode.PermissionRequest{
				ID: "per_x", SessionID: testSession, Permission: "mystery_tool",
				Patterns: []string{"thing-<1>"}, Metadata: json.RawMessage(meta),
			},
		})
		wantIn(t, h.lastSent().P.Text, "Permission: mystery_tool", "<code>thing-&lt;1&gt;</code>",
			"🟡 <b>medium risk</b>", "opencode named no patterns")
	}
}

func TestPermissionButtons(t *testing.T) {
	for _, tc := range []struct {
		act    frontend.Action
		reply  string
		footer []string
	}{
		{frontend.AllowOnce, "once", []string{"✅ <b>Allowed once</b> by Alice (@alice)"}},
		{frontend.AllowAlways, "always", []string{"♾️ <b>Always allowed</b> by Alice (@alice)", "also allowed: <code>git *</code>"}},
		{frontend.Reject, "reject", []string{"❌ <b>Rejected</b> by Alice (@alice)"}},
	} {
		t.Run(tc.reply, func(t *testing.T) {
			h := newHarness(t, harnessConfig{AllowedUserIDs: []int64{alice.ID}})
			e := h.askPerm(permEvent("per_1", "git push origin main"))
			id := h.press(alice, permData(t, tc.act, e.UID), e)
			if got := h.toast(id); got != i18n.ToastSending {
				t.Errorf("toast = %q", got)
			}
			want := []permCall{{Dir: "/home/user/projects/demo", SessionID: testSession, RequestID: "per_1", Reply: tc.reply}}
			if got := h.oc.PermReplies(); !reflect.DeepEqual(got, want) {
				t.Fatalf("replies = %+v, want %+v", got, want)
			}
			ed := h.lastEdit()
			if ed.MessageID != msgID(e) || ed.ReplyMarkup != nil {
				t.Errorf("edit of message %d keeps markup %v", ed.MessageID, ed.ReplyMarkup)
			}
			wantIn(t, ed.Text, append(tc.footer, "<pre>git push origin main</pre>", "<b>demo</b>")...)
			if strings.Contains(ed.Text, "until opencode restarts") {
				t.Errorf("closed message still offers always:\n%s", ed.Text)
			}
			h.gone(e.UID)

			// A second tap, and our own reply's echo, change nothing.
			if id := h.press(alice, permData(t, frontend.AllowOnce, e.UID), e); h.toast(id) != i18n.ToastAnswered {
				t.Errorf("second tap toast = %q", h.toast(id))
			}
			edits := len(h.tg.Edits())
			h.b.HandleEvent(context.Background(), opencode.Event{Type: opencode.TypePermissionReplied,
				PermissionReplied: &opencode.PermissionReplied{SessionID: testSession, RequestID: "per_1", Reply: tc.reply}})
			if len(h.tg.Edits()) != edits || len(h.oc.PermReplies()) != 1 {
				t.Error("second tap or echo changed something")
			}
		})
	}
}

func TestPermissionRejectWithReason(t *testing.T) {
	h := newHarness(t, harnessConfig{BotID: 123})
	e := h.askPerm(permEvent("per_1", "npm publish"))

	id := h.press(bob, permData(t, frontend.RejectWithReason, e.UID), e)
	if got := h.toast(id); got != i18n.ToastTypeAnswer {
		t.Errorf("toast = %q", got)
	}
	prompt := h.lastSent()
	fr, ok := prompt.P.ReplyMarkup.(*models.ForceReply)
	if !ok || !fr.ForceReply || !fr.Selective || fr.InputFieldPlaceholder == "" {
		t.Fatalf("prompt markup = %#v", prompt.P.ReplyMarkup)
	}
	wantIn(t, prompt.P.Text, `<a href="tg://user?id=22">Bob</a>`, "why you reject <b>bash</b> <code>npm publish</code>")
	if rp := prompt.P.ReplyParameters; rp == nil || rp.MessageID != msgID(e) {
		t.Errorf("prompt replies to %+v", rp)
	}
	if got := h.entry(e.UID); !got.AwaitingText || h.promptOf(e.UID) != prompt.ID {
		t.Fatalf("entry after reason press = %+v", got)
	}
	if n := len(h.oc.PermReplies()); n != 0 {
		t.Fatal("asking for a reason answered")
	}

	h.text(bob, "  not before the review <3  ", prompt.ID)

	want := []permCall{{Dir: "/home/user/projects/demo", SessionID: testSession, RequestID: "per_1", Reply: "reject", Message: "not before the review <3"}}
	if got := h.oc.PermReplies(); !reflect.DeepEqual(got, want) {
		t.Fatalf("replies = %+v, want %+v", got, want)
	}
	ed := h.lastEdit()
	wantIn(t, ed.Text, "❌ <b>Rejected</b> by Bob", "Reason: <i>not before the review &lt;3</i>")
	if ed.ReplyMarkup != nil {
		t.Error("keyboard kept")
	}
	h.gone(e.UID)
}

func TestPermissionReasonFallbackWithoutReply(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e := h.askPerm(permEvent("per_1", "make deploy"))
	h.press(alice, permData(t, frontend.RejectWithReason, e.UID), e)
	h.text(alice, "use staging", 0)
	if r := h.oc.PermReplies(); len(r) != 1 || r[0].Message != "use staging" || r[0].Reply != "reject" {
		t.Fatalf("replies = %+v", r)
	}
}

func TestPermissionFailureClasses(t *testing.T) {
	for _, tc := range []struct {
		name     string
		err      error
		kept     bool
		toPerson string
	}{
		{name: "not found", err: opencode.ErrNotFound},
		{name: "not accepted", err: opencode.ErrNotAccepted, kept: true, toPerson: "did not accept"},
		{name: "transient", err: opencode.ErrTransient, kept: true, toPerson: "Could not reach opencode"},
		{name: "unauthorized", err: opencode.ErrUnauthorized, kept: true, toPerson: "Could not reach opencode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, harnessConfig{})
			e := h.askPerm(permEvent("per_1", "make"))
			before := h.entry(e.UID)
			h.oc.permErrs = map[string][]error{"per_1": {tc.err}}
			id := h.press(alice, permData(t, frontend.AllowOnce, e.UID), e)
			if got := h.toast(id); got != i18n.ToastSending {
				t.Errorf("toast = %q", got)
			}
			if !tc.kept {
				h.gone(e.UID)
				if ed := h.lastEdit(); !strings.Contains(ed.Text, "No longer pending") || ed.ReplyMarkup != nil {
					t.Errorf("edit = %q", ed.Text)
				}
				if id := h.press(alice, permData(t, frontend.AllowOnce, e.UID), e); h.toast(id) != i18n.ToastGone {
					t.Errorf("press after close: %q", h.toast(id))
				}
				return
			}
			if after := h.entry(e.UID); !reflect.DeepEqual(before, after) {
				t.Errorf("entry changed:\n%+v\n%+v", before, after)
			}
			if len(h.tg.Edits()) != 0 {
				t.Errorf("message edited: %q", h.lastEdit().Text)
			}
			note := h.lastSent()
			wantIn(t, note.P.Text, tc.toPerson, "tg://user?id=11")
			if rp := note.P.ReplyParameters; rp == nil || rp.MessageID != msgID(e) {
				t.Errorf("note replies to %+v", rp)
			}
			// The person can decide again.
			h.press(alice, permData(t, frontend.Reject, e.UID), e)
			if r := h.oc.PermReplies(); len(r) != 2 || r[1].Reply != "reject" {
				t.Fatalf("replies = %+v", r)
			}
			h.gone(e.UID)
		})
	}
}

func TestPermissionUnauthorised(t *testing.T) {
	h := newHarness(t, harnessConfig{AllowedUserIDs: []int64{alice.ID}})
	e := h.askPerm(permEvent("per_1", "make"))
	before := h.entry(e.UID)
	for _, a := range []frontend.Action{frontend.AllowOnce, frontend.AllowAlways, frontend.Reject, frontend.RejectWithReason} {
		if id := h.press(mallory, permData(t, a, e.UID), e); h.toast(id) != i18n.ToastNotAllowed {
			t.Errorf("%s: toast %q", a, h.toast(id))
		}
	}
	if id := h.pressIn(-999, alice, permData(t, frontend.AllowOnce, e.UID), msgID(e)); h.toast(id) != i18n.ToastNotAllowed {
		t.Errorf("other chat: toast %q", h.toast(id))
	}
	// A reason prompt asked by Alice cannot be answered by Mallory.
	h.press(alice, permData(t, frontend.RejectWithReason, e.UID), e)
	h.text(mallory, "sneaky", h.promptOf(e.UID))
	if n := len(h.oc.PermReplies()); n != 0 {
		t.Fatalf("users not allowed reached opencode %d times", n)
	}
	after := h.entry(e.UID)
	after.AwaitingText, after.AwaitingReason = false, false
	if !reflect.DeepEqual(before, after) {
		t.Errorf("entry changed:\n%+v\n%+v", before, after)
	}
}

func TestPermissionBusyWhileSending(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e := h.askPerm(permEvent("per_1", "make"))
	unlock, err := h.b.locks.lock(context.Background(), e.UID)
	if err != nil {
		t.Fatal(err)
	}
	id := h.press(alice, permData(t, frontend.AllowOnce, e.UID), e)
	unlock()
	if got := h.toast(id); got != i18n.ToastBusy {
		t.Errorf("toast = %q, want %q", got, i18n.ToastBusy)
	}
	if n := len(h.oc.PermReplies()); n != 0 {
		t.Fatalf("busy press replied %d times", n)
	}
}

func TestPermissionRepliedElsewhere(t *testing.T) {
	for reply, want := range map[string]string{
		"once":   "Approved in opencode (once)",
		"always": "Approved in opencode (always)",
		"reject": "Rejected in opencode",
	} {
		t.Run(reply, func(t *testing.T) {
			h := newHarness(t, harnessConfig{})
			e := h.askPerm(permEvent("per_1", "make"))
			h.b.HandleEvent(context.Background(), opencode.Event{Type: opencode.TypePermissionReplied,
				PermissionReplied: &opencode.PermissionReplied{SessionID: testSession, RequestID: "per_1", Reply: reply}})
			h.gone(e.UID)
			ed := h.lastEdit()
			if ed.MessageID != msgID(e) || ed.ReplyMarkup != nil {
				t.Errorf("edit = %+v", ed)
			}
			wantIn(t, ed.Text, want, "<pre>make</pre>")
			if id := h.press(alice, permData(t, frontend.AllowOnce, e.UID), e); h.toast(id) != i18n.ToastAnsweredElsewhere {
				t.Errorf("press after: %q", h.toast(id))
			}
			if n := len(h.oc.PermReplies()); n != 0 {
				t.Errorf("replied %d times", n)
			}
		})
	}
}

// clock is a settable time for the bridge.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func expiryHarness(t *testing.T) (*harness, *clock) {
	h := newHarness(t, harnessConfig{TTL: time.Minute})
	c := &clock{t: time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)}
	h.b.now = c.now
	return h, c
}

func TestExpirePermission(t *testing.T) {
	h, c := expiryHarness(t)
	e := h.askPerm(permEvent("per_1", "make"))
	c.t = c.t.Add(time.Minute)
	if err := h.b.ExpireDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []permCall{{Dir: e.Directory, SessionID: testSession, RequestID: "per_1", Reply: "reject", Message: expiredReason}}
	if got := h.oc.PermReplies(); !reflect.DeepEqual(got, want) {
		t.Fatalf("replies = %+v, want %+v", got, want)
	}
	if !strings.Contains(expiredReason, "in time") || !strings.Contains(expiredReason, "continue") {
		t.Errorf("the agent is told %q", expiredReason)
	}
	h.gone(e.UID)
	ed := h.lastEdit()
	if ed.ReplyMarkup != nil {
		t.Error("expired message keeps its keyboard")
	}
	wantIn(t, ed.Text, "Expired", "within 1m", "<pre>make</pre>")
	if id := h.press(alice, permData(t, frontend.AllowOnce, e.UID), e); h.toast(id) != i18n.ToastExpired {
		t.Errorf("press on expired: %q", h.toast(id))
	}
}

func TestExpireRetriesThenGivesUp(t *testing.T) {
	h, c := expiryHarness(t)
	h.b.expireRetryFor = 5 * time.Minute
	e := h.askPerm(permEvent("per_1", "make"))
	q := h.ask("que_1", dbQuestion())
	h.oc.permErrs = map[string][]error{"per_1": {opencode.ErrTransient, opencode.ErrUnauthorized, opencode.ErrTransient, opencode.ErrTransient}}
	h.oc.rejectErrs = []error{opencode.ErrTransient, nil}
	ctx := context.Background()

	c.t = c.t.Add(time.Minute)
	if err := h.b.ExpireDue(ctx); err != nil {
		t.Fatal(err)
	}
	pe, qe := h.entry(e.UID), h.entry(q.UID)
	if !pe.ExpiredNotified || !qe.ExpiredNotified {
		t.Fatalf("entries kept without the expired mark: %+v %+v", pe, qe)
	}
	edits := h.tg.Edits()
	if len(edits) != 2 {
		t.Fatalf("%d edits after the first sweep, want one per message", len(edits))
	}
	for _, ed := range edits {
		if ed.ReplyMarkup != nil || !strings.Contains(ed.Text, "Expired") || !strings.Contains(ed.Text, "keeps trying") {
			t.Errorf("edit = %+v", ed)
		}
	}
	// Presses and typed reasons are refused meanwhile.
	if id := h.press(alice, permData(t, frontend.AllowOnce, e.UID), e); h.toast(id) != i18n.ToastExpired {
		t.Errorf("press on expired permission: %q", h.toast(id))
	}
	if id := h.press(alice, data(t, frontend.Pick, q.UID, 0, 0), q); h.toast(id) != i18n.ToastExpired {
		t.Errorf("press on expired question: %q", h.toast(id))
	}
	if len(h.oc.Replies()) != 0 {
		t.Fatal("a press answered an expired question")
	}

	// The next sweep retries: the question's reject goes through, the
	// permission's still fails; the message is not edited again.
	c.t = c.t.Add(30 * time.Second)
	if err := h.b.ExpireDue(ctx); err != nil {
		t.Fatal(err)
	}
	h.gone(q.UID)
	h.entry(e.UID)
	if got := len(h.tg.Edits()); got != 2 {
		t.Errorf("%d edits, want no more", got)
	}
	if got := h.oc.rejects; len(got) != 2 {
		t.Errorf("question rejects = %q, want a retry", got)
	}

	// Still failing within the bound: kept; past it: given up.
	c.t = c.t.Add(4 * time.Minute)
	if err := h.b.ExpireDue(ctx); err != nil {
		t.Fatal(err)
	}
	h.entry(e.UID)
	c.t = c.t.Add(time.Minute)
	if err := h.b.ExpireDue(ctx); err != nil {
		t.Fatal(err)
	}
	h.gone(e.UID)
	if n := len(h.oc.PermReplies()); n != 4 {
		t.Errorf("%d permission rejects, want 4", n)
	}
	if !strings.Contains(h.logs.String(), "giving up") {
		t.Error("giving up was not logged")
	}
}

func TestExpireNotFoundDeletes(t *testing.T) {
	h, c := expiryHarness(t)
	e := h.askPerm(permEvent("per_1", "make"))
	h.oc.permErrs = map[string][]error{"per_1": {opencode.ErrNotFound}}
	c.t = c.t.Add(2 * time.Minute)
	if err := h.b.ExpireDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.gone(e.UID)
}

func TestSessionContextShown(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	h.oc.sessions = map[string]opencode.Session{
		testSession:      {ID: testSession, Title: "Refactor <auth>", ParentID: "ses_parent0001"},
		"ses_parent0001": {ID: "ses_parent0001", Title: "Ship v2"},
	}
	q := h.ask("que_1", dbQuestion())
	wantIn(t, h.lastSent().P.Text, "<i>Refactor &lt;auth&gt;</i>", "Qeppn49", "subagent of <i>Ship v2</i>")
	p := h.askPerm(permEvent("per_1", "make"))
	wantIn(t, h.lastSent().P.Text, "<i>Refactor &lt;auth&gt;</i>", "subagent of <i>Ship v2</i>")
	if got := h.entry(p.UID); got.SessionTitle != "Refactor <auth>" || got.ParentSessionID != "ses_parent0001" || got.ParentTitle != "Ship v2" {
		t.Errorf("entry context = %q %q %q", got.SessionTitle, got.ParentSessionID, got.ParentTitle)
	}
	// Looked up once each, though two requests were posted.
	if calls := h.oc.SessionCalls(); len(calls) != 2 {
		t.Errorf("GetSession calls = %q, want one per session", calls)
	}
	// Outcomes keep the context.
	h.press(alice, data(t, frontend.Pick, q.UID, 0, 0), q)
	wantIn(t, h.lastEdit().Text, "<i>Refactor &lt;auth&gt;</i>", "subagent of")
	h.press(alice, permData(t, frontend.AllowOnce, p.UID), p)
	wantIn(t, h.lastEdit().Text, "<i>Refactor &lt;auth&gt;</i>", "subagent of <i>Ship v2</i>")
}

func TestSessionLookupFailureFallsBack(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	h.oc.sessionErr = opencode.ErrTransient
	h.askPerm(permEvent("per_1", "make"))
	text := h.lastSent().P.Text
	wantIn(t, text, "session <code>…rQeppn49</code>")
	if strings.Contains(text, "subagent") {
		t.Error("subagent shown without a parent")
	}

	// A look-up that hangs is cut off, and the message still goes out.
	h2 := newHarness(t, harnessConfig{})
	h2.oc.sessionBlock = true
	h2.b.sessionTimeout = 20 * time.Millisecond
	h2.ask("que_1", dbQuestion())
	wantIn(t, h2.lastSent().P.Text, "session <code>…rQeppn49</code>")

	// A failure is remembered briefly, then tried again.
	c := &clock{t: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	h3 := newHarness(t, harnessConfig{})
	h3.b.now = c.now
	h3.oc.sessionErr = opencode.ErrTransient
	h3.ask("que_1", dbQuestion())
	h3.ask("que_2", dbQuestion())
	if n := len(h3.oc.SessionCalls()); n != 1 {
		t.Errorf("%d look-ups within the retry pause, want 1", n)
	}
	h3.oc.sessionErr = nil
	h3.oc.sessions = map[string]opencode.Session{testSession: {ID: testSession, Title: "Back"}}
	c.t = c.t.Add(sessionRetryAfter)
	h3.ask("que_3", dbQuestion())
	wantIn(t, h3.lastSent().P.Text, "<i>Back</i>")
}

func TestSessionCacheBounded(t *testing.T) {
	c := newSessionCache()
	now := time.Now()
	for i := range maxCachedSessions + 10 {
		c.put(sessionKey{"d", string(rune('a'+i%26)) + strings.Repeat("x", i/26), ""}, cachedSession{})
	}
	if n := c.m.Len(); n != maxCachedSessions {
		t.Fatalf("cache holds %d, want %d", n, maxCachedSessions)
	}
	if _, ok := c.get(sessionKey{"d", "a", ""}, now); ok {
		t.Error("the oldest entry was kept")
	}
}

func TestDuplicatePermissionsShareMessage(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	p := h.askPerm(permEvent("per_1", "go test ./..."))
	s := h.askPerm(permEvent("per_2", "go test ./..."))
	other := h.askPerm(permEvent("per_3", "go vet ./..."))
	ev := permEvent("per_4", "go test ./...")
	ev.PermissionAsked.SessionID = "ses_other"
	elsewhere := h.askPerm(ev)

	if n := len(h.tg.Sent()); n != 3 {
		t.Fatalf("sent %d messages, want 3 (the duplicate shares one)", n)
	}
	if s.SharedWith != p.UID || msgID(s) != msgID(p) || other.SharedWith != "" || elsewhere.SharedWith != "" {
		t.Fatalf("shared = %q/%d, want %q/%d; others %q %q", s.SharedWith, msgID(s), p.UID, msgID(p), other.SharedWith, elsewhere.SharedWith)
	}
	var shared string
	for _, ed := range h.tg.Edits() {
		if ed.MessageID == msgID(p) {
			shared = ed.Text
			if got := buttons(t, ed.ReplyMarkup); got[0][1] != "ponce:"+p.UID {
				t.Errorf("buttons = %q", got)
			}
		}
	}
	wantIn(t, shared, "×2", "2 identical requests")

	h.press(alice, permData(t, frontend.AllowAlways, p.UID), p)
	got := h.oc.PermReplies()
	if len(got) != 2 || got[0].RequestID != "per_1" || got[1].RequestID != "per_2" || got[0].Reply != "always" || got[1].Reply != "always" {
		t.Fatalf("replies = %+v, want both requests answered always", got)
	}
	h.gone(p.UID)
	h.gone(s.UID)
	h.entry(other.UID)
	ed := h.lastEdit()
	if ed.MessageID != msgID(p) || ed.ReplyMarkup != nil {
		t.Errorf("edit = %+v", ed)
	}
	wantIn(t, ed.Text, "×2", "Always allowed")
}

func TestDuplicateRejectWithReasonAnswersAll(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	p := h.askPerm(permEvent("per_1", "make"))
	h.askPerm(permEvent("per_2", "make"))
	h.press(alice, permData(t, frontend.RejectWithReason, p.UID), p)
	h.text(alice, "no", h.lastSent().ID)
	got := h.oc.PermReplies()
	if len(got) != 2 || got[0].Message != "no" || got[1].Message != "no" {
		t.Fatalf("replies = %+v", got)
	}
	if list, _ := h.store.List(); len(list) != 0 {
		t.Fatalf("entries left: %+v", list)
	}
}

func TestDuplicatePartialFailure(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	p := h.askPerm(permEvent("per_1", "make"))
	s := h.askPerm(permEvent("per_2", "make"))
	h.oc.permErrs = map[string][]error{"per_2": {opencode.ErrTransient}}
	h.press(alice, permData(t, frontend.AllowOnce, p.UID), p)
	h.gone(p.UID)
	h.entry(s.UID)
	ed := h.lastEdit()
	if ed.ReplyMarkup == nil || strings.Contains(ed.Text, "×2") {
		t.Errorf("message after a partial failure = %q (markup %v), want it open for the one left", ed.Text, ed.ReplyMarkup)
	}
	wantIn(t, h.lastSent().P.Text, "1 of 2", "Could not reach opencode")
	// The same button answers the one left.
	h.press(alice, permData(t, frontend.AllowOnce, p.UID), p)
	h.gone(s.UID)
	if r := h.oc.PermReplies(); len(r) != 3 || r[2].RequestID != "per_2" {
		t.Fatalf("replies = %+v", r)
	}
}

func TestDuplicateFirstAnsweredElsewhere(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	p := h.askPerm(permEvent("per_1", "make"))
	s := h.askPerm(permEvent("per_2", "make"))
	h.b.HandleEvent(context.Background(), opencode.Event{Type: opencode.TypePermissionReplied,
		PermissionReplied: &opencode.PermissionReplied{SessionID: testSession, RequestID: "per_1", Reply: "once"}})
	h.gone(p.UID)
	h.entry(s.UID)
	ed := h.lastEdit()
	if ed.MessageID != msgID(p) || ed.ReplyMarkup == nil || strings.Contains(ed.Text, "×2") {
		t.Fatalf("message after the first was answered elsewhere = %q (markup %v)", ed.Text, ed.ReplyMarkup)
	}
	// Its buttons still carry the first UID, and answer the second.
	if id := h.press(alice, permData(t, frontend.Reject, p.UID), p); h.toast(id) != i18n.ToastSending {
		t.Errorf("toast = %q", h.toast(id))
	}
	if r := h.oc.PermReplies(); len(r) != 1 || r[0].RequestID != "per_2" || r[0].Reply != "reject" {
		t.Fatalf("replies = %+v", r)
	}
	h.gone(s.UID)
	wantIn(t, h.lastEdit().Text, "Rejected")
}

func TestDuplicateLaterClosedByOthersKeepsMessageOpen(t *testing.T) {
	// What bot/sync.go does for a request gone from opencode: lock its
	// UID, delete it, edit its message with renderOutcome.
	h := newHarness(t, harnessConfig{})
	p := h.askPerm(permEvent("per_1", "make"))
	s := h.askPerm(permEvent("per_2", "make"))
	ctx := context.Background()
	unlock, err := h.b.locks.lock(ctx, s.UID)
	if err != nil {
		t.Fatal(err)
	}
	e := h.entry(s.UID)
	log := h.b.entryLog(e)
	h.b.deleteEntry(log, e, i18n.ToastGone)
	h.b.closeMessage(ctx, log, e, h.b.outcome(requestOf(e), frontend.Outcome{How: frontend.Gone}), nil)
	unlock()
	ed := h.lastEdit()
	if ed.ReplyMarkup == nil || strings.Contains(ed.Text, "No longer pending") {
		t.Fatalf("closing the second closed the shared message: %q", ed.Text)
	}
	h.press(alice, permData(t, frontend.AllowOnce, p.UID), p)
	if r := h.oc.PermReplies(); len(r) != 1 || r[0].RequestID != "per_1" {
		t.Fatalf("replies = %+v", r)
	}
}

func TestDuplicateExpiresTogether(t *testing.T) {
	h, c := expiryHarness(t)
	p := h.askPerm(permEvent("per_1", "make"))
	c.t = c.t.Add(30 * time.Second)
	s := h.askPerm(permEvent("per_2", "make"))
	c.t = c.t.Add(30 * time.Second) // the first is due, the second not yet
	if err := h.b.ExpireDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := h.oc.PermReplies()
	if len(got) != 2 || got[0].Message != expiredReason || got[1].Message != expiredReason {
		t.Fatalf("replies = %+v", got)
	}
	h.gone(p.UID)
	h.gone(s.UID)
	wantIn(t, h.lastEdit().Text, "Expired", "×2")
}

func TestDuplicateUnsentPostedOnce(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	h.tg.sendErrs = []error{context.DeadlineExceeded, context.DeadlineExceeded}
	p := h.askPerm(permEvent("per_1", "make"))
	s := h.askPerm(permEvent("per_2", "make"))
	if msgID(p) != 0 || msgID(s) != 0 || s.SharedWith != p.UID {
		t.Fatalf("entries = %+v %+v", p, s)
	}
	if err := h.b.SendUnsent(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := h.b.SendUnsent(context.Background()); err != nil {
		t.Fatal(err)
	}
	sent := h.tg.Sent()
	if len(sent) != 1 {
		t.Fatalf("sent %d messages, want 1", len(sent))
	}
	wantIn(t, sent[0].P.Text, "×2")
	if a, b := msgID(h.entry(p.UID)), msgID(h.entry(s.UID)); a != sent[0].ID || b != sent[0].ID {
		t.Errorf("message IDs %d, %d, want %d", a, b, sent[0].ID)
	}
}

func TestPermissionAndQuestionButtonsDoNotMix(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	q := h.ask("que_1", dbQuestion())
	p := h.askPerm(permEvent("per_1", "make"))
	if id := h.press(alice, permData(t, frontend.AllowOnce, q.UID), q); h.toast(id) != i18n.ToastUnknown {
		t.Errorf("permission button on a question: %q", h.toast(id))
	}
	if id := h.press(alice, data(t, frontend.Pick, p.UID, 0, 0), p); h.toast(id) != i18n.ToastUnknown {
		t.Errorf("question button on a permission: %q", h.toast(id))
	}
	if id := h.press(alice, permData(t, frontend.AllowOnce, "zzzzzzzz"), p); h.toast(id) != i18n.ToastGone {
		t.Errorf("permission button of an unknown request: %q", h.toast(id))
	}
	if len(h.oc.PermReplies()) != 0 || len(h.oc.Replies()) != 0 {
		t.Fatal("mixed buttons reached opencode")
	}
	h.entry(q.UID)
	h.entry(p.UID)
}

// group, findTwin and waitingIn read one session's requests (or one
// message's): requests of other sessions asking the same thing in the
// same directory must not leak in.
func TestLookupsIgnoreOtherSessions(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	p1 := h.askPerm(permEvent("per_1", "make"))
	p2 := h.askPerm(permEvent("per_2", "make"))
	ev := permEvent("per_3", "make")
	ev.PermissionAsked.SessionID = "ses_other"
	o1 := h.askPerm(ev)
	q := askedEvent("que_1", dbQuestion())
	q.QuestionAsked.SessionID = "ses_other"
	h.b.HandleEvent(context.Background(), q)
	if p2.SharedWith != p1.UID || o1.SharedWith != "" {
		t.Fatalf("shared with %q and %q, want %q and none", p2.SharedWith, o1.SharedWith, p1.UID)
	}

	probe := func(session string) *pending.Entry {
		perm := *p1.Permission // the same request, asked in session
		return &pending.Entry{Kind: pending.KindPermission, Directory: p1.Directory, SessionID: session, Permission: &perm}
	}
	for _, tc := range []struct {
		session, key string
		ok           bool
	}{{testSession, p1.UID, true}, {"ses_other", o1.UID, true}, {"ses_third", "", false}} {
		if key, ok := h.b.findTwin(probe(tc.session)); key != tc.key || ok != tc.ok {
			t.Errorf("findTwin in %s = %q, %v; want %q, %v", tc.session, key, ok, tc.key, tc.ok)
		}
	}

	wantGroup := func(step, key string, want ...string) {
		t.Helper()
		members, err := h.b.group(key)
		if err != nil {
			t.Fatalf("%s: group(%s): %v", step, key, err)
		}
		var got []string
		for _, m := range members {
			got = append(got, m.UID)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: group(%s) = %v, want %v", step, key, got, want)
		}
	}
	wantGroup("open", p1.UID, p1.UID, p2.UID)
	wantGroup("open", o1.UID, o1.UID)
	if err := h.store.Delete(p1.UID); err != nil {
		t.Fatal(err)
	}
	wantGroup("first closed", p1.UID, p2.UID)

	for session, want := range map[string]bool{testSession: true, "ses_other": true, "ses_third": false} {
		if got, err := h.b.waitingIn(session); err != nil || got != want {
			t.Errorf("waitingIn(%s) = %v, %v; want %v", session, got, err, want)
		}
	}
	if err := h.store.Delete(p2.UID); err != nil {
		t.Fatal(err)
	}
	if got, err := h.b.waitingIn(testSession); err != nil || got {
		t.Errorf("waitingIn(%s) with only other sessions' requests = %v, %v; want false", testSession, got, err)
	}
}

// TestSamePatternsDifferentWorkNotShared asks twice with the same kind and
// patterns but different work: a command whose cd opencode's patterns
// leave out, and two writes of one file with different contents. Each gets
// its own message, and one tap answers only the request its message showed.
func TestSamePatternsDifferentWorkNotShared(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	a := permEvent("per_1", "cd a && rm notes.txt")
	a.PermissionAsked.Patterns = []string{"rm notes.txt"}
	b := permEvent("per_2", "cd b && rm notes.txt")
	b.PermissionAsked.Patterns = []string{"rm notes.txt"}
	edit := func(id, diff string) opencode.Event {
		ev := permEvent(id, "x")
		meta, _ := json.Marshal(map[string]string{"filepath": "/home/user/projects/demo/main.go", "diff": diff})
		ev.PermissionAsked.Permission, ev.PermissionAsked.Patterns, ev.PermissionAsked.Always = "edit", []string{"main.go"}, []string{"*"}
		ev.PermissionAsked.Metadata = meta
		return ev
	}
	c := edit("per_3", "+// harmless\n")
	d := edit("per_4", "+os.RemoveAll(home)\n")
	ea, eb, ec, ed := h.askPerm(a), h.askPerm(b), h.askPerm(c), h.askPerm(d)
	if n := len(h.tg.Sent()); n != 4 {
		t.Fatalf("sent %d messages, want 4 (nothing shared)", n)
	}
	for _, e := range []*pending.Entry{ea, eb, ec, ed} {
		if e.SharedWith != "" {
			t.Fatalf("%s shares %s's message", e.RequestID, e.SharedWith)
		}
	}
	for i, want := range []string{"cd a &amp;&amp; rm", "cd b &amp;&amp; rm", "harmless", "RemoveAll"} {
		if got := h.tg.Sent()[i].P.Text; !strings.Contains(got, want) || strings.Contains(got, "×2") {
			t.Errorf("message %d does not show its own request alone (%q):\n%s", i, want, got)
		}
	}
	h.press(alice, permData(t, frontend.AllowOnce, ec.UID), ec)
	if got := h.oc.PermReplies(); len(got) != 1 || got[0].RequestID != "per_3" {
		t.Fatalf("replies = %+v, want per_3 alone", got)
	}
	h.entry(ed.UID)
	h.entry(ea.UID)
	h.entry(eb.UID)
}
