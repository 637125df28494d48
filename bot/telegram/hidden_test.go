package telegram

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
)

func TestSpellHidden(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"ls -la", "ls -la"},
		{"cat a\nb\tc", "cat a\nb\tc"},
		{"echo 'é 中文 😀'", "echo 'é 中文 😀'"},
		// Trojan Source: the right-to-left override makes "rm" read as its mirror.
		{"echo \u202Efr- mr\u202C", "echo <U+202E>fr- mr<U+202C>"},
		{"ls\u2066 \u2069x", "ls<U+2066> <U+2069>x"},
		{"cat a\u200Bb", "cat a<U+200B>b"},
		{"rm\u00A0-rf", "rm<U+00A0>-rf"},
		{"x\r\x1b[2Ky", "x<U+000D><U+001B>[2Ky"},
		{"a\u2028b", "a<U+2028>b"},
		{"tag\U000E0041", "tag<U+E0041>"},
		{"\u3164", "<U+3164>"},
	} {
		if got := spellHidden(c.in); got != c.want {
			t.Errorf("spellHidden(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestPermissionShowsHiddenCharacters renders a permission whose command,
// file, diff and patterns hold bidirectional and zero-width characters:
// every one is spelled out in the message and in the whole-text file.
func TestPermissionShowsHiddenCharacters(t *testing.T) {
	cmd := "cat notes\u202E.txt" + strings.Repeat(" x", 2000)
	meta, _ := json.Marshal(map[string]string{"command": cmd, "filepath": "a\u200Db.go", "diff": "+ok \u2067evil\u2069\n"})
	e := &frontend.View{
		UID: "abcDEF12", Kind: frontend.KindPermission, Directory: "/home/u/p", SessionID: "ses_1",
		Permission: &frontend.Permission{Kind: "bash", Patterns: []string{"cat\u2060 *"}, Always: []string{"cat \u202D*"}, Metadata: meta},
	}
	text, _, cut, err := renderPermissionCut(&i18n.English, e.UID, []*frontend.View{e}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"notes&lt;U+202E&gt;.txt", "a&lt;U+200D&gt;b.go", "&lt;U+2067&gt;evil&lt;U+2069&gt;", "cat&lt;U+2060&gt; *", "cat &lt;U+202D&gt;*"} {
		if !strings.Contains(text, want) {
			t.Errorf("message lacks %q:\n%s", want, text)
		}
	}
	for _, r := range text {
		if unicode.Is(unicode.Cf, r) {
			t.Errorf("message holds %U raw", r)
		}
	}
	if len(cut) == 0 || !strings.Contains(cut[0].content, "notes<U+202E>.txt") || strings.ContainsRune(cut[0].content, '\u202E') {
		t.Errorf("the whole command's file does not spell out U+202E: %+v", cut)
	}
}

// TestGroupShowsRiskiestLevel renders a message shared by a low and a high
// request (as a store written before requests were grouped by what they
// run may hold): the label is the high one, whichever comes first.
func TestGroupShowsRiskiestLevel(t *testing.T) {
	perm := func(uid, cmd string) *frontend.View {
		meta, _ := json.Marshal(map[string]string{"command": cmd})
		return &frontend.View{UID: uid, Kind: frontend.KindPermission, Directory: t.TempDir(), SessionID: "ses_1",
			Permission: &frontend.Permission{Kind: "bash", Patterns: []string{"ls"}, Metadata: meta}}
	}
	low, high := perm("lowlow12", "ls"), perm("highhi12", "rm -rf /")
	for _, es := range [][]*frontend.View{{low, high}, {high, low}} {
		text, _, err := renderPermission(&i18n.English, es[0].UID, es, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text, "🔴") || strings.Contains(text, "🟢") {
			t.Errorf("group of %s, %s is not labelled high:\n%s", es[0].UID, es[1].UID, text)
		}
	}
	if text, _, _ := renderPermission(&i18n.English, low.UID, []*frontend.View{low}, 0); !strings.Contains(text, "🟢") {
		t.Errorf("ls alone is not labelled low:\n%s", text)
	}
}
