package matrixtest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestAdjustConfig(t *testing.T) {
	bin := DendriteDir(t)
	dir := t.TempDir()
	hs := &Homeserver{ServerName: "localhost", Dir: dir, secret: "s3cret"}
	if err := hs.configure(bin); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "dendrite.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	yaml := string(b)
	for _, want := range []string{"disable_federation: true", `registration_shared_secret: "s3cret"`,
		"key_perspectives: []", "trusted_third_party_id_servers: []", "file:" + dir + "/dendrite_syncapi.db"} {
		if !strings.Contains(yaml, want) {
			t.Errorf("dendrite.yaml lacks %q", want)
		}
	}
	if strings.Contains(yaml, "server_name: matrix.org") || strings.Contains(yaml, "- matrix.org") ||
		!strings.Contains(yaml, "report_stats:\n    enabled: false") {
		t.Error("dendrite.yaml still has it ask matrix.org for keys, or report stats")
	}
	if _, err := adjustConfig(strings.Replace(yaml, "disable_federation: true", "disable_federation: maybe", 1), "x"); err == nil {
		t.Error("a template without the line to change was taken")
	}
}

// The harness's own round trip: accounts, a room, an invite, a message
// and a reply seen by the other user.
func TestDendrite(t *testing.T) {
	hs := StartDendrite(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	alice, err := hs.Register(ctx, "alice", "")
	if err != nil {
		t.Fatal(err)
	}
	bob, err := hs.Register(ctx, "bob", "")
	if err != nil {
		t.Fatal(err)
	}
	if alice.ID != hs.UserID("alice") || alice.AccessToken == "" {
		t.Fatalf("registered %+v", alice)
	}
	if _, err := hs.Register(ctx, "alice", ""); err == nil {
		t.Error("registered alice twice")
	}
	room, err := alice.CreateRoom(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := alice.Invite(ctx, room, bob.ID); err != nil {
		t.Fatal(err)
	}
	if err := bob.Join(ctx, room); err != nil {
		t.Fatal(err)
	}
	members, err := alice.Members(ctx, room)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(members)
	if !slices.Equal(members, []string{alice.ID, bob.ID}) {
		t.Errorf("members %q", members)
	}
	first, err := alice.SendText(ctx, room, "hello")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := alice.Reply(ctx, room, first, "hello", "again"); err != nil {
		t.Fatal(err)
	}
	ev, err := bob.WaitFor(ctx, func(ev Event) bool {
		return ev.Type == "m.room.message" && ev.Sender == alice.ID && ev.ID != first
	})
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Body          string `json:"body"`
		FormattedBody string `json:"formatted_body"`
		RelatesTo     struct {
			InReplyTo struct {
				EventID string `json:"event_id"`
			} `json:"m.in_reply_to"`
		} `json:"m.relates_to"`
	}
	if err := json.Unmarshal(ev.Content, &c); err != nil {
		t.Fatal(err)
	}
	if ev.Room != room || c.RelatesTo.InReplyTo.EventID != first || c.Body != "> <"+alice.ID+"> hello\n\nagain" ||
		!strings.HasPrefix(c.FormattedBody, "<mx-reply>") {
		t.Errorf("reply as bob saw it: %s", ev.Content)
	}
	got, err := bob.Event(ctx, room, first)
	if err != nil || got.ID != first || got.Sender != alice.ID {
		t.Errorf("Event: %+v, %v", got, err)
	}
}

// CI installs the binaries before the tests, in .ci/run: the same version.
func TestCIInstallsThisVersion(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "\ndendrite_version="+DendriteVersion+"\n") {
		t.Errorf(".ci/run does not install Dendrite %s", DendriteVersion)
	}
}
