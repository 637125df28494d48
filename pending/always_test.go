package pending_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/pending"
)

func TestRememberAlways(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pending.db")
	s := openMetaStore(t, path)
	if _, ok, err := s.AlwaysGiven("", "/a"); ok || err != nil {
		t.Fatalf("AlwaysGiven before any = %v, %v", ok, err)
	}
	if err := s.RememberAlways("", "/a", "edit"); err != nil {
		t.Fatal(err)
	}
	if err := s.RememberAlways("", "", "edit"); !errors.Is(err, pending.ErrInvalid) {
		t.Errorf("no directory: err = %v, want ErrInvalid", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openMetaStore(t, path)
	if v, ok, err := s.AlwaysGiven("", "/a"); !ok || err != nil || !strings.HasPrefix(v, "edit ") {
		t.Errorf("AlwaysGiven after reopen = %q, %v, %v; want edit", v, ok, err)
	}
	// Another server, or another directory, is another record.
	for _, k := range [][2]string{{"work", "/a"}, {"", "/a/b"}, {"", "/"}} {
		if _, ok, err := s.AlwaysGiven(k[0], k[1]); ok || err != nil {
			t.Errorf("AlwaysGiven(%q, %q) = %v, %v; want nothing", k[0], k[1], ok, err)
		}
	}
}

// An entry stored before Run existed reads with no Run; one with Run
// keeps it.
func TestPermissionRunJSON(t *testing.T) {
	var old pending.Entry
	if err := json.Unmarshal([]byte(`{"uid":"u","kind":"permission","permission":{"kind":"bash","patterns":["ls"]}}`), &old); err != nil {
		t.Fatal(err)
	}
	if old.Permission == nil || old.Permission.Run != nil {
		t.Fatalf("old entry's permission = %+v, want one without Run", old.Permission)
	}
	e := pending.Entry{UID: "u", Permission: &pending.Permission{Kind: "bash", Run: &pending.Run{Read: true, Workdir: "/p/.git", Elsewhere: true, Timeout: 5}}}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var back pending.Entry
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if *back.Permission.Run != *e.Permission.Run {
		t.Errorf("Run = %+v, want %+v", back.Permission.Run, e.Permission.Run)
	}
}
