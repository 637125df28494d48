package bot

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// asAPI turns an event of the original surface into the /api surface's,
// as the reader decodes question.v2.asked and permission.v2.asked.
func asAPI(ev opencode.Event) opencode.Event {
	switch ev.Type {
	case opencode.TypeQuestionAsked:
		ev.Type = opencode.TypeQuestionV2Asked
		ev.QuestionAsked.Surface = opencode.SurfaceAPI
	case opencode.TypePermissionAsked:
		ev.Type = opencode.TypePermissionV2Asked
		ev.PermissionAsked.Surface = opencode.SurfaceAPI
	}
	ev.Surface = opencode.SurfaceAPI
	return ev
}

// A request of the /api surface is posted like any other, remembers its
// surface, and is answered through it.
func TestAPISurfaceAnsweredThroughIt(t *testing.T) {
	c := newCore(t, Config{})
	c.b.HandleEvent(context.Background(), asAPI(askedEvent("que_api", dbQuestion())))
	e := c.held("que_api")
	if e.Surface != "api" || msgID(e) == 0 {
		t.Fatalf("entry %+v: want surface api and a message", e)
	}
	c.tap(ann, frontend.Pick, e.UID, e, 0, 1)
	if r := c.oc.Replies(); len(r) != 1 || r[0].Surface != "api" || r[0].Answers[0][0] != "SQLite" {
		t.Fatalf("replies %+v: want SQLite through the api surface", r)
	}

	p := c.askPerm(asAPI(permEvent("per_api", "make test")))
	if p.Surface != "api" {
		t.Fatalf("permission entry surface %q", p.Surface)
	}
	c.tap(ann, frontend.AllowOnce, p.UID, p, 0, 0)
	if r := c.oc.PermReplies(); len(r) != 1 || r[0].Surface != "api" || r[0].Reply != "once" {
		t.Fatalf("permission replies %+v: want once through the api surface", r)
	}

	// The original surface is untouched.
	q := c.asked("que_old", dbQuestion())
	c.tap(ann, frontend.Pick, q.UID, q, 0, 0)
	if r := c.oc.Replies(); len(r) != 2 || r[1].Surface != "" {
		t.Fatalf("replies %+v: want the second through the original surface", r)
	}
}

// A connect whose /api lists were not taken proves nothing about a held
// /api request: it stays open. One whose /api lists were taken and lack
// it closes it.
func TestAPISurfaceGoneOnlyWhenListed(t *testing.T) {
	c := newCore(t, Config{})
	c.b.HandleEvent(context.Background(), asAPI(askedEvent("que_api", dbQuestion())))
	dir := "/home/user/projects/demo"
	later := c.now.Add(time.Minute)
	c.b.HandleSnapshot(context.Background(), opencode.Snapshot{Directory: dir, QuestionsListed: true, PermissionsListed: true, Taken: later})
	if _, err := c.store.ByRequestID("", "que_api"); err != nil {
		t.Fatalf("an /api question was closed by a listing of the original surface only: %v", err)
	}
	c.b.HandleSnapshot(context.Background(), opencode.Snapshot{Directory: dir, QuestionsListed: true, PermissionsListed: true,
		APIQuestionsListed: true, APIPermissionsListed: true, Taken: later})
	if _, err := c.store.ByRequestID("", "que_api"); !errors.Is(err, pending.ErrNotFound) {
		t.Fatalf("an /api question missing from the /api list is still held: %v", err)
	}
}

// An answer given in the chat is told in opencode's terminal, by whom; a
// terminal that cannot be told changes nothing of the answer.
func TestAnswerToldInTerminal(t *testing.T) {
	c := newCore(t, Config{})
	e := c.asked("que_1", dbQuestion())
	c.tap(ann, frontend.Pick, e.UID, e, 0, 1)
	p := c.askPerm(permEvent("per_1", "make test"))
	c.tap(ann, frontend.Reject, p.UID, p, 0, 0)
	if err := c.b.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	dir := "/home/user/projects/demo: "
	// The zero frontendtest is named "test": the toast names the chat answered in.
	want := []string{dir + "Answered from Test by Ann", dir + "Rejected from Test by Ann"}
	if got := c.oc.Toasts(); !slices.Equal(got, want) {
		t.Errorf("terminal toasts %q, want %q", got, want)
	}

	c = newCore(t, Config{})
	c.oc.toastErr = opencode.ErrTransient
	e = c.asked("que_2", dbQuestion())
	c.tap(ann, frontend.Pick, e.UID, e, 0, 0)
	if r := c.oc.Replies(); len(r) != 1 {
		t.Fatalf("replies %+v: the answer must not depend on the toast", r)
	}
}
