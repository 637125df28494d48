package config_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/config"
)

// HERMES_LIVE_STATUS is off by default, takes on and off, and refuses
// anything else naming itself.
func TestLoadLiveStatus(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  bool
	}{{"", false}, {"on", true}, {"ON", true}, {"off", false}, {"1", true}} {
		e := minimal()
		if tc.value != "" {
			e["HERMES_LIVE_STATUS"] = tc.value
		}
		c, err := config.Load(config.Sources{Getenv: env(e)})
		if err != nil {
			t.Fatalf("%q: %v", tc.value, err)
		}
		if c.LiveStatus != tc.want {
			t.Errorf("%q: LiveStatus = %v, want %v", tc.value, c.LiveStatus, tc.want)
		}
	}
	e := minimal()
	e["HERMES_LIVE_STATUS"] = "sometimes"
	_, err := config.Load(config.Sources{Getenv: env(e)})
	if !errors.Is(err, config.ErrInvalid) {
		t.Fatalf("sometimes: %v, want ErrInvalid", err)
	}
	if want := "HERMES_LIVE_STATUS"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v does not name %s", err, want)
	}
}
