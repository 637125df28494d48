package telegram

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/opencode"
)

// A request's message names its server when servers are named, and is
// as it always was for the single unnamed server.
func TestRenderNamesServer(t *testing.T) {
	e := entryWith(frontend.Question{Text: "Which database?", Options: []frontend.Option{{Label: "Postgres"}}})
	text, _ := mustRender(t, e)
	if want := "❓ <b>demo</b> · session <code>"; !strings.HasPrefix(text, want) {
		t.Errorf("unnamed server's question starts %q, want %q", firstLine(text), want)
	}
	e.Server = "ci"
	text, _ = mustRender(t, e)
	if want := "❓ 🖥 <code>ci</code> · <b>demo</b> · session <code>"; !strings.HasPrefix(text, want) {
		t.Errorf("ci's question starts %q, want %q", firstLine(text), want)
	}
	if out := renderOutcome(&i18n.English, e, "✅", [][]string{{"Postgres"}}, "Answered"); !strings.Contains(firstLine(out), "<code>ci</code>") {
		t.Errorf("ci's outcome starts %q, want it named", firstLine(out))
	}

	p := &frontend.View{UID: "aB3dE6gH", Kind: frontend.KindPermission, Server: "laptop", Directory: "/home/user/projects/demo",
		SessionID: "ses_1", RequestID: "per_1", Permission: &frontend.Permission{Kind: "bash", Patterns: []string{"make"}}}
	text, _, err := renderPermission(&i18n.English, p.UID, []*frontend.View{p}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(text, "🔐 🖥 <code>laptop</code> · <b>demo</b>") {
		t.Errorf("laptop's permission starts %q", firstLine(text))
	}
	if n := renderNotice(&i18n.English, "🏁", "laptop", "/p/demo", "ses_1", "", "finished", "", 0); !strings.Contains(firstLine(n), "<code>laptop</code>") {
		t.Errorf("laptop's notice starts %q", firstLine(n))
	}

	now := time.Now()
	e.CreatedAt, e.ExpiresAt = now, now.Add(time.Hour)
	if l := pendingLine(&i18n.English, e, now); !strings.Contains(l, "<code>ci</code> · <b>demo</b>") {
		t.Errorf("/pending line of ci's request = %q, want it named", l)
	}
	e.Server = ""
	if l := pendingLine(&i18n.English, e, now); strings.Contains(l, "🖥") {
		t.Errorf("/pending line of the unnamed server's request = %q, want no server", l)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

type fixedStatus opencode.WatchState

func (s fixedStatus) State() opencode.WatchState { return opencode.WatchState(s) }

type noOpen struct{ frontend.Core }

func (noOpen) Open(context.Context, bool) ([]*frontend.View, error) { return nil, nil }

// /status says how each named server is, one line each.
func TestStatusPerServer(t *testing.T) {
	now := time.Now()
	f := New(Config{ChatID: testChat, Now: func() time.Time { return now }, Servers: []ServerStatus{
		{Name: "laptop", Status: fixedStatus{Connected: true, Since: now.Add(-5 * time.Minute), Version: "1.18.33", Generation: 1}},
		{Name: "box", Status: fixedStatus{Connected: true, Since: now.Add(-time.Minute), Version: "2.0.1", Generation: 2}},
		{Name: "ci", Status: fixedStatus{Since: now.Add(-2 * time.Minute), LastError: "connection refused", LastErrorAt: now.Add(-time.Minute)}},
	}}, nil, nil, zerolog.Nop())
	got := f.renderStatus(context.Background(), noOpen{})
	lines := strings.Split(got, "\n")
	var laptop, ci, box string
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "opencode <code>box</code>: "):
			box = l
		case strings.HasPrefix(l, "opencode <code>laptop</code>: "):
			laptop = l
		case strings.HasPrefix(l, "opencode <code>ci</code>: "):
			ci = l
		}
	}
	if !strings.Contains(box, "OpenCode 2, version 2.0.1") {
		t.Errorf("box's line = %q, want its generation and version\n%s", box, got)
	}
	if !strings.Contains(laptop, "connected") || !strings.Contains(laptop, "opencode 1.x, version 1.18.33") {
		t.Errorf("laptop's line = %q, want connected with its version\n%s", laptop, got)
	}
	if ci == "" || strings.Contains(ci, "1.18.33") || !strings.Contains(got, "Last error: ") {
		t.Errorf("ci's line = %q, want it not connected, with its error\n%s", ci, got)
	}
	if strings.Contains(got, "\nopencode: ") {
		t.Errorf("/status has an unnamed opencode line besides the servers'\n%s", got)
	}
}
