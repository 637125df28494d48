package matrix

import (
	"strings"
	"testing"
)

func TestSettingsCheck(t *testing.T) {
	ok := Settings{HomeserverURL: "http://127.0.0.1:1", UserID: "@bot:x", Password: "p", RoomID: "!r:x"}
	if err := ok.check(); err != nil {
		t.Errorf("valid settings: %v", err)
	}
	for name, c := range map[string]struct {
		change func(*Settings)
		says   string
	}{
		"no URL":       {func(s *Settings) { s.HomeserverURL = "" }, "homeserver URL"},
		"no secret":    {func(s *Settings) { s.Password = "" }, "access token or password"},
		"bad user":     {func(s *Settings) { s.UserID = "bot" }, "@name:server"},
		"bad room":     {func(s *Settings) { s.RoomID = "#room:x" }, "!id:server"},
		"several gone": {func(s *Settings) { s.UserID, s.RoomID = "", "" }, "user ID, room ID"},
	} {
		s := ok
		c.change(&s)
		if err := s.check(); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want it to say %q", name, err, c.says)
		}
	}
}
