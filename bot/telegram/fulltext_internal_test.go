package telegram

import (
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
)

func TestQuestionsCutNamesEachCutQuestion(t *testing.T) {
	long := strings.Repeat("长的问题 <b>&</b> ", 600)
	e := &frontend.View{UID: "uid12345", Kind: frontend.KindQuestion, Directory: "/p", SessionID: "ses_1",
		Questions: []frontend.Question{
			{Text: "Short one?", Header: "First", Options: []frontend.Option{{Label: "A"}}},
			{Text: long, Header: "Second", Options: []frontend.Option{{Label: "B"}}},
		}}
	tx := i18n.For("zh")
	got := questionsCut(tx, e)
	if len(got) != 1 || got[0].name != "question-2.txt" || got[0].content != long || got[0].caption != tx.FullQuestion+": Second" {
		t.Fatalf("files = %+v, want the second question whole as question-2.txt", got)
	}
	// The message of each question says so only when it is cut, in the
	// chat's language.
	for qi, want := range []bool{false, true} {
		x := *e
		x.Current = qi
		text, _, cut, err := renderQuestionCut(tx, &x)
		if err != nil {
			t.Fatal(err)
		}
		if cut != want || strings.Contains(text, tx.CutNote) != want || u16len(text) > maxMessageLen {
			t.Errorf("question %d: cut %v, note shown %v, %d units; want cut and note %v within a message",
				qi+1, cut, strings.Contains(text, tx.CutNote), u16len(text), want)
		}
	}
}

func TestDiffFileName(t *testing.T) {
	for in, want := range map[string]string{
		"/home/u/p/src/main.go": "main.go.diff",
		`C:\p\src\a b.go`:       "a_b.go.diff",
		"a.go, b.go":            "changes.diff",
		"":                      "changes.diff",
		"/p/..":                 "changes.diff",
		"/p/.env":               "env.diff",
	} {
		if got := diffFileName(in); got != want {
			t.Errorf("diffFileName(%q) = %q, want %q", in, got, want)
		}
	}
}
