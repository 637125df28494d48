package telegram

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
)

// Revoke data names a server by its key and a rule by its ID, within
// 64 bytes, and decodes exactly what encodes.
func TestRevokeData(t *testing.T) {
	for _, server := range []string{"", "laptop", strings.Repeat("é", 100)} {
		id := "psv_" + strings.Repeat("a", maxRuleID-4)
		data, ok := encodeRevoke(server, id)
		if !ok || len(data) > maxCallbackData {
			t.Fatalf("encodeRevoke(%q, %q) = %q, %v", server, id, data, ok)
		}
		key, got, ok := decodeRevoke(data)
		if !ok || key != serverKey(server) || got != id {
			t.Errorf("decodeRevoke(%q) = %q, %q, %v", data, key, got, ok)
		}
		if _, err := decodeCallback(data); err == nil {
			t.Errorf("%q also decodes as a request's button", data)
		}
		if _, ok := decodeSteer(data); ok {
			t.Errorf("%q also decodes as a steering button", data)
		}
	}
	if _, ok := encodeRevoke("", "psv_"+strings.Repeat("a", maxRuleID)); ok {
		t.Error("an ID too long for a button was encoded")
	}
	for _, bad := range []string{"rrev:psv_1", "rrev:0000000:psv_1", "rrev:0000000g:psv_1", "rrev:00000000:psv 1",
		"rrev:00000000:", "rrev:00000000:a:b", "xrev:00000000:psv_1", "rrev:00000000:" + strings.Repeat("a", 60)} {
		if k, id, ok := decodeRevoke(bad); ok {
			t.Errorf("decodeRevoke(%q) = %q, %q", bad, k, id)
		}
	}
}

// A held reply is taken once, and not after heldFor; the oldest goes
// when too many are held.
func TestHeldPrompts(t *testing.T) {
	var h heldPrompts
	now := time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)
	a := h.put(heldPrompt{text: "a", at: now})
	if p, ok := h.take(a, now); !ok || p.text != "a" {
		t.Fatalf("take = %+v, %v", p, ok)
	}
	if _, ok := h.take(a, now); ok {
		t.Error("taken twice")
	}
	b := h.put(heldPrompt{text: "b", at: now})
	if _, ok := h.take(b, now.Add(heldFor+1)); ok {
		t.Error("taken after heldFor")
	}
	first := h.put(heldPrompt{text: "first", at: now})
	for i := range maxHeld {
		h.put(heldPrompt{at: now.Add(time.Duration(i+1) * time.Second)})
	}
	if _, ok := h.take(first, now); ok {
		t.Error("the oldest held reply was kept beyond maxHeld")
	}
}

// /rules' reply fits a message however many rules there are and however
// long they are, in every language, with a button per listed rule.
func TestRulesRenderFitsTelegram(t *testing.T) {
	long := strings.Repeat("é<&>𝕏", 80)
	var rules []frontend.Rule
	for i := range 60 {
		rules = append(rules, frontend.Rule{ID: fmt.Sprintf("psv_%d", i), Project: long, Action: long, Resource: long})
	}
	rs := []frontend.SavedRules{{Server: long, Generation: 2, Rules: rules}, {Server: "old", Generation: 1},
		{Server: "new"}, {Server: "down", Generation: 2, Err: errors.New("unreachable")}}
	for _, lang := range []string{"en", "zh"} {
		f := New(Config{ChatID: testChat, Lang: lang}, nil, nil, zerolog.Nop())
		text, kb := f.renderRules(rs, f.text.Rules.RevokedBy(esc(long, 30), esc(long, 100), "Ann"))
		if err := checkMessageText(text); err != nil {
			t.Fatalf("%s: %v\n%s", lang, err, text)
		}
		if err := checkKeyboard(kb); err != nil {
			t.Fatalf("%s: keyboard: %v", lang, err)
		}
		if n := len(kb.InlineKeyboard); n == 0 || n > maxRulesListed || !strings.Contains(text, f.text.MoreN(len(rules)-n)) {
			t.Errorf("%s: %d buttons; the reply does not say how many are left out:\n%s", lang, n, text)
		}
		for _, want := range []string{f.text.Rules.Memory, f.text.Rules.NotReached, f.text.Rules.Unlisted} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: the reply lacks %q", lang, want)
			}
		}
	}
}

// On OpenCode 2 the Always button and the closed message say the answer
// saves a rule for the project, and how to revoke it; on 1.x they do not.
func TestAlwaysOnOpenCode2SavesRule(t *testing.T) {
	f := New(Config{ChatID: testChat}, nil, nil, zerolog.Nop())
	v := &frontend.View{UID: "abcDEF12", Kind: frontend.KindPermission, Directory: "/home/u/p", SessionID: "ses_1",
		Permission: &frontend.Permission{Kind: "bash", Patterns: []string{"git push origin main"}, Always: []string{"git push *"},
			Metadata: json.RawMessage(`{"command":"git push origin main"}`)}}
	for _, gen := range []int{1, 2} {
		r := frontend.Request{Key: v.UID, Members: []*frontend.View{v}, Generation: gen}
		text, kb, err := f.render(r)
		if err != nil || kb == nil {
			t.Fatalf("gen %d: render: %v, keyboard %v", gen, err, kb)
		}
		always := kb.InlineKeyboard[0][1].Text
		saysRule := strings.Contains(text, "saves a rule for this project")
		if (gen == 2) != (always == "♾️ Always: save a rule") || (gen == 2) != saysRule {
			t.Errorf("gen %d: Always button %q, text says a rule is saved: %v\n%s", gen, always, saysRule, text)
		}
		closed := f.outcome(r, frontend.Outcome{How: frontend.Decided, Reply: frontend.ReplyAlways, By: frontend.User{ID: "1", Name: "Alice"}})
		if (gen == 2) != strings.Contains(closed, "Saved as a rule for the project; /rules revokes it.") {
			t.Errorf("gen %d: closed message:\n%s", gen, closed)
		}
		if !strings.Contains(closed, "♾️ <b>Always allowed</b> by Alice") {
			t.Errorf("gen %d: closed message lacks the decision:\n%s", gen, closed)
		}
	}
}
