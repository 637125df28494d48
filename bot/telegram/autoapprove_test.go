package telegram

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/pending"
)

// /autoapprove's reply and the pause notice fit a message however many
// pauses there are and however long their names, in every language; each
// listed pause has a button whose data names it by a short key.
func TestAutoApprovalRenderFitsTelegram(t *testing.T) {
	now := time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)
	long := strings.Repeat("é<&>𝕏", 80)
	var paused []pending.Always
	for i := range 40 {
		paused = append(paused, pending.Always{
			Server:    fmt.Sprintf("%s-%d", long, i),
			Directory: "/home/user/" + long + fmt.Sprint(i),
			Kind:      long,
			At:        now.Add(-time.Duration(i) * time.Hour),
		})
	}
	paused = append(paused, pending.Always{Directory: "/srv/demo", Kind: "edit"}) // no time known
	for _, lang := range []string{"en", "zh"} {
		f := New(Config{ChatID: testChat, Lang: lang, Now: func() time.Time { return now }}, nil, nil, zerolog.Nop())
		note := f.text.Pause.ResumedBy(esc(long, 90), who(userOf(&alice)))
		for _, n := range []int{1, 2, maxPausedListed, len(paused)} {
			for _, policy := range []string{"low", "off"} {
				text, kb := f.renderAutoApproval(frontend.AutoApproval{Policy: policy, Paused: paused[len(paused)-n:]}, note)
				if err := checkMessageText(text); err != nil {
					t.Fatalf("%s, %d pauses: %v\n%s", lang, n, err, text)
				}
				if err := checkKeyboard(kb); err != nil {
					t.Fatalf("%s, %d pauses: keyboard: %v", lang, n, err)
				}
				if want := min(n, maxPausedListed); len(kb.InlineKeyboard) != want {
					t.Errorf("%s, %d pauses: %d buttons, want %d", lang, n, len(kb.InlineKeyboard), want)
				}
				if n > maxPausedListed && !strings.Contains(text, f.text.MoreN(n-maxPausedListed)) {
					t.Errorf("%s, %d pauses: the reply does not say how many are left out", lang, n)
				}
				for i, row := range kb.InlineKeyboard {
					a := paused[len(paused)-n+i]
					d, err := decodeCallback(row[0].CallbackData)
					if err != nil || d.Action != actResume || d.UID != pauseKey(a.Server, a.Directory) {
						t.Errorf("button %d data %q = %+v, %v; want Resume of its pause", i, row[0].CallbackData, d, err)
					}
					if u16len(row[0].Text) > 64 {
						t.Errorf("button %q is long", row[0].Text)
					}
				}
			}
		}
		text, kb := f.renderAutoApproval(frontend.AutoApproval{Policy: "low"}, note)
		if err := checkMessageText(text); err != nil || kb != nil || !strings.Contains(text, f.text.Pause.NothingPaused) {
			t.Errorf("%s, nothing paused: %q, %v, keyboard %+v", lang, text, err, kb)
		}
		notice := f.text.Pause.Notice(esc(f.pauseLabel(paused[0]), 90), esc(oneLine(paused[0].Kind), 40))
		if err := checkMessageText(notice); err != nil {
			t.Errorf("%s notice: %v\n%s", lang, err, notice)
		}
	}
}

// A pause's key is short, valid callback data, and different for another
// server or directory.
func TestPauseKey(t *testing.T) {
	keys := map[string]bool{}
	for _, p := range [][2]string{{"", "/a"}, {"ci", "/a"}, {"", "/a/b"}, {"", "/b"}, {"a", ""}, {"", "a"}} {
		k := pauseKey(p[0], p[1])
		if !validPauseKey(k) || keys[k] {
			t.Errorf("pauseKey(%q, %q) = %q: invalid or seen before", p[0], p[1], k)
		}
		keys[k] = true
		if k != pauseKey(p[0], p[1]) {
			t.Errorf("pauseKey(%q, %q) changes", p[0], p[1])
		}
	}
}

// fakePauses is a Core that only knows pauses.
type fakePauses struct {
	frontend.Core
	paused  []pending.Always
	resumed []string
}

func (c *fakePauses) AutoApproval(context.Context) (frontend.AutoApproval, error) {
	return frontend.AutoApproval{Policy: "low", Paused: append([]pending.Always(nil), c.paused...)}, nil
}

func (c *fakePauses) ResumeAutoApproval(_ context.Context, _ zerolog.Logger, server, dir string, _ frontend.User) (bool, error) {
	for i, a := range c.paused {
		if a.Server == server && a.Directory == dir {
			c.paused = append(c.paused[:i:i], c.paused[i+1:]...)
			c.resumed = append(c.resumed, server+" "+dir)
			return true, nil
		}
	}
	return false, nil
}

// With several servers, a pause names its server, and Resume resumes the
// pause of the server pressed, not the same folder on another.
func TestResumeNamesServer(t *testing.T) {
	core := &fakePauses{paused: []pending.Always{{Server: "laptop", Directory: "/p/demo", Kind: "edit"}, {Server: "ci", Directory: "/p/demo", Kind: "edit"}}}
	f := New(Config{ChatID: testChat}, nil, nil, zerolog.Nop())
	text, kb := f.renderAutoApproval(frontend.AutoApproval{Policy: "low", Paused: core.paused}, "")
	for _, want := range []string{"<b>laptop: demo</b>", "<b>ci: demo</b>"} {
		if !strings.Contains(text, want) {
			t.Errorf("reply %q lacks %q", text, want)
		}
	}
	if kb.InlineKeyboard[1][0].Text != "▶️ Resume 2. ci: demo" {
		t.Errorf("second button = %q", kb.InlineKeyboard[1][0].Text)
	}
	d, err := decodeCallback(kb.InlineKeyboard[1][0].CallbackData)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range core.paused {
		if (pauseKey(a.Server, a.Directory) == d.UID) != (a.Server == "ci") {
			t.Errorf("the key of ci's pause %q matches %+v", d.UID, a)
		}
	}

	tg := newOutboxFake()
	f = New(Config{ChatID: testChat}, tg, nil, zerolog.Nop())
	f.HandleUpdate(context.Background(), core, &models.Update{CallbackQuery: &models.CallbackQuery{
		ID: "cb1", From: alice, Data: kb.InlineKeyboard[1][0].CallbackData,
		Message: models.MaybeInaccessibleMessage{Type: models.MaybeInaccessibleMessageTypeMessage,
			Message: &models.Message{ID: 5, Chat: models.Chat{ID: testChat, Type: "supergroup"}}},
	}})
	if len(core.resumed) != 1 || core.resumed[0] != "ci /p/demo" {
		t.Fatalf("resumed %q, want ci's /p/demo only", core.resumed)
	}
	calls := tg.Calls()
	if len(calls) != 1 || calls[0].Method != "editMessageText" || calls[0].MessageID != 5 ||
		!strings.Contains(calls[0].Text, "resumed in <b>ci: demo</b> by Alice") || !strings.Contains(calls[0].Text, "<b>laptop: demo</b>") {
		t.Errorf("calls = %+v, want the reply edited to say who resumed ci's, laptop's still listed", calls)
	}
}
