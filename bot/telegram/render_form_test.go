package telegram

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
)

func formEntry(qs ...frontend.Question) *frontend.View {
	e := entryWith(qs...)
	e.UID = strings.Repeat("Z", maxUIDLen) // the longest callback data
	e.RequestID = "frm_1"
	e.Form = &frontend.Form{Mode: "form", Title: "Deploy settings"}
	e.Generation = 2
	return e
}

func ip(n int) *int         { return &n }
func fp(f float64) *float64 { return &f }
func yesNo() []frontend.Option {
	return []frontend.Option{{Label: "Yes", Value: "true"}, {Label: "No", Value: "false"}}
}

// actionsOf lists the actions of kb's buttons, "url" for a link.
func actionsOf(t *testing.T, kb *models.InlineKeyboardMarkup) []string {
	t.Helper()
	var out []string
	for _, row := range kb.InlineKeyboard {
		for _, b := range row {
			if b.URL != "" {
				out = append(out, "url")
				continue
			}
			if len(b.CallbackData) > maxCallbackData {
				t.Errorf("callback data %q is %d bytes", b.CallbackData, len(b.CallbackData))
			}
			c, err := decodeCallback(b.CallbackData)
			if err != nil {
				t.Fatalf("button %q: %v", b.CallbackData, err)
			}
			out = append(out, string(c.Action))
		}
	}
	return out
}

func TestRenderFormFields(t *testing.T) {
	for _, tc := range []struct {
		name    string
		q       frontend.Question
		actions []string
		hint    []string
	}{
		{"options", frontend.Question{Key: "db", Type: "string", Required: true,
			Options: []frontend.Option{{Label: "Postgres", Value: "pg"}, {Label: "SQLite", Value: "lite"}}},
			[]string{"qopt", "qopt"}, nil},
		{"options and custom, optional", frontend.Question{Key: "db", Type: "string", Custom: true, Default: json.RawMessage(`"pg"`),
			Options: []frontend.Option{{Label: "Postgres", Value: "pg"}}},
			[]string{"qopt", "qcustom", "qskip"}, []string{"optional", "default: Postgres"}},
		{"email", frontend.Question{Key: "mail", Type: "string", Format: "email", Placeholder: "you@example.com", Default: json.RawMessage(`"a@b.c"`)},
			[]string{"qcustom", "qskip"}, []string{"an email address", "optional", "e.g. you@example.com", "default: a@b.c"}},
		{"text", frontend.Question{Key: "code", Type: "string", Required: true, MinLength: ip(2), MaxLength: ip(8), Pattern: "^[a-z]+$"},
			[]string{"qcustom"}, []string{"a text", "2–8 characters", "matching ^[a-z]+$"}},
		{"integer", frontend.Question{Key: "n", Type: "integer", Required: true, Minimum: fp(1), Maximum: fp(10)},
			[]string{"qcustom"}, []string{"a whole number from 1 to 10"}},
		{"number", frontend.Question{Key: "x", Type: "number", Required: true, Minimum: fp(0.5)},
			[]string{"qcustom"}, []string{"a number of at least 0.5"}},
		{"boolean", frontend.Question{Key: "ok", Type: "boolean", Options: yesNo(), Default: json.RawMessage(`true`)},
			[]string{"qopt", "qopt", "qskip"}, []string{"optional", "default: Yes"}},
		{"multiselect", frontend.Question{Key: "tags", Type: "multiselect", Multiple: true, Required: true, MinItems: ip(1), MaxItems: ip(2),
			Options: []frontend.Option{{Label: "A", Value: "a"}, {Label: "B", Value: "b"}, {Label: "C", Value: "c"}}},
			[]string{"qtog", "qtog", "qtog", "qsub"}, []string{"choose 1–2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.q.Header = "Field " + tc.q.Key
			e := formEntry(tc.q)
			text, kb := mustRender(t, e)
			if got := actionsOf(t, kb); !slices.Equal(got, tc.actions) {
				t.Errorf("buttons %q, want %q", got, tc.actions)
			}
			v := visible(text)
			for _, h := range append(tc.hint, "Deploy settings", "Field "+tc.q.Key) {
				if !strings.Contains(v, h) {
					t.Errorf("message does not say %q:\n%s", h, v)
				}
			}
			if strings.Contains(v, i18n.English.NoQuestionText) {
				t.Errorf("a field without description shows %q", i18n.English.NoQuestionText)
			}
			if tc.q.Required && strings.Contains(v, "optional") {
				t.Errorf("a required field says optional:\n%s", v)
			}
		})
	}
}

// A typed answer's prompt says what the field takes, and offers its
// placeholder in the reply field.
func TestRenderFormPrompt(t *testing.T) {
	e := formEntry(frontend.Question{Key: "n", Header: "Replicas", Type: "integer", Required: true, Minimum: fp(1), Maximum: fp(5), Placeholder: "3"})
	text, ph := renderPrompt(&i18n.Chinese, e, 0, userOf(&alice))
	if !strings.Contains(text, "一个整数，范围 1 到 5") || ph != "3" {
		t.Errorf("prompt %q, placeholder %q", text, ph)
	}
}

func TestRenderURLForm(t *testing.T) {
	e := formEntry()
	e.Form = &frontend.Form{Mode: frontend.FormModeURL, URL: "https://example.com/auth?x=<1>", Title: "Sign in"}
	text, kb := mustRender(t, e)
	if got := actionsOf(t, kb); !slices.Equal(got, []string{"url", "qsub", "qcancel"}) {
		t.Errorf("buttons %q, want link, Done and Cancel", got)
	}
	if u := kb.InlineKeyboard[0][0].URL; u != "https://example.com/auth?x=%3C1%3E" && u != "https://example.com/auth?x=<1>" {
		t.Errorf("link button opens %q", u)
	}
	if !strings.Contains(text, "Sign in") || !strings.Contains(text, "x=&lt;1&gt;") {
		t.Errorf("message:\n%s", text)
	}
	// A link a button may not open is shown, not linked.
	e.Form.URL = "javascript:alert(1)"
	text, kb = mustRender(t, e)
	if got := actionsOf(t, kb); !slices.Equal(got, []string{"qsub", "qcancel"}) || !strings.Contains(text, "javascript:alert(1)") {
		t.Errorf("buttons %q, text:\n%s", got, text)
	}

	f := New(Config{ChatID: testChat}, nil, nil, zerolog.Nop())
	r := frontend.Request{Key: e.UID, Members: []*frontend.View{e}}
	for o, want := range map[frontend.How]string{frontend.Answered: "Marked done by Alice", frontend.Cancelled: "Cancelled by Alice",
		frontend.Dismissed: "Cancelled in opencode"} {
		out := f.outcome(r, frontend.Outcome{How: o, By: userOf(&alice)})
		if err := checkMessageText(out); err != nil || !strings.Contains(out, want) {
			t.Errorf("outcome %d: %q (%v), want it to say %q", o, out, err, want)
		}
	}
}

// The outcome names every field answered, by option label, and the ones
// skipped.
func TestRenderFormOutcome(t *testing.T) {
	e := formEntry(frontend.Question{Key: "db", Header: "Database", Type: "string", Options: []frontend.Option{{Label: "SQLite", Value: "lite"}}},
		frontend.Question{Key: "note", Header: "Note", Type: "string"})
	out := visible(renderOutcome(&i18n.English, e, "✅", [][]string{{"SQLite"}, nil}, "Answered"))
	if !strings.Contains(out, "→ SQLite") || !strings.Contains(out, "→ (skipped)") || !strings.Contains(out, "Deploy settings") {
		t.Errorf("outcome:\n%s", out)
	}
}

func TestFormButtonData(t *testing.T) {
	for _, a := range []frontend.Action{frontend.Skip, frontend.Cancel} {
		s, err := ButtonData(a, "aB3dE6gH", 7, 0)
		if err != nil {
			t.Fatal(err)
		}
		c, err := decodeCallback(s)
		if err != nil || actions[c.Action] != a || c.Question != 7 || c.UID != "aB3dE6gH" {
			t.Errorf("%s: %q decodes as %+v, %v", a, s, c, err)
		}
	}
}

// /pending names a link form by its title and link, as it has no field.
func TestPendingLineLinkForm(t *testing.T) {
	e := &frontend.View{UID: "u1", Kind: frontend.KindQuestion, Directory: "/srv/demo", SessionID: "ses_1",
		Form: &frontend.Form{Mode: frontend.FormModeURL, Title: "Sign in", URL: "https://example.com/login"}}
	l := pendingLine(&i18n.English, e, time.Now())
	if !strings.Contains(l, "Sign in https://example.com/login") {
		t.Errorf("pending line %q does not name the link form", l)
	}
}
