package matrix

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
)

// testFrontendChinese: with Lang "zh" a permission's message, its poll,
// its outcome and !status reach the room in Chinese; votes and commands
// are read as in English.
func testFrontendChinese(t *testing.T, su *suite) {
	r, ctx := su.newRig(t)
	core := newFakeCore()
	fe, _ := r.servedWith(t, ctx, core, FrontendConfig{Version: "v-test", Lang: "zh"})
	r.joined(t, ctx, r.alice)
	bot, zh := r.settings.UserID, &i18n.Chinese

	meta, _ := json.Marshal(map[string]string{"command": "rm -rf build"})
	perm := frontend.Request{Key: "per_z", Members: []*frontend.View{{UID: "per_z", Kind: frontend.KindPermission,
		Directory: "/srv/shop", SessionID: "ses_z", Permission: &frontend.Permission{Kind: "bash", Metadata: meta}}}}
	at, err := fe.Post(ctx, perm)
	if err != nil {
		t.Fatal(err)
	}
	botSays(t, ctx, r.alice, bot, zh.Matrix.HowPermission)
	poll, answers := pollOf(t, ctx, r.alice, "rm -rf build")
	if want := fmt.Sprintf("[once=%s always=%s reject=%s]", zh.BtnAllowOnce, zh.BtnAllowAlways, zh.BtnReject); fmt.Sprint(answers) != want {
		t.Fatalf("answers %v, want %s", answers, want)
	}
	if _, err := r.alice.Vote(ctx, r.room, poll, "once"); err != nil {
		t.Fatal(err)
	}
	core.wait(t, ctx, "the vote", func() bool { return core.pressCount(frontend.AllowOnce) == 1 })
	if err := fe.Close(ctx, at, frontend.Closing{Request: perm, Outcome: frontend.Outcome{How: frontend.Decided,
		Reply: frontend.ReplyOnce, By: userOf(r.alice.ID)}}); err != nil {
		t.Fatal(err)
	}
	botSays(t, ctx, r.alice, bot, "<b>"+zh.AllowedOnce+"</b>"+zh.By(r.alice.ID))
	if _, err := r.alice.SendText(ctx, r.room, "!status"); err != nil {
		t.Fatal(err)
	}
	botSays(t, ctx, r.alice, bot, zh.WaitingCount(0))
}
