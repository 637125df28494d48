package telegram

import (
	"strings"
	"testing"
)

const testBotName = "hermes_test_bot"

func TestParseCommand(t *testing.T) {
	for _, tc := range []struct {
		text, want string
		ok         bool
	}{
		{"/pending", "pending", true},
		{"  /status  ", "status", true},
		{"/help me please", "help", true},
		{"/Status", "status", true},
		{"/pending@hermes_test_bot", "pending", true},
		{"/pending@Hermes_Test_Bot now", "pending", true},
		{"/pending@other_bot", "", false},
		{"/@hermes_test_bot", "", false},
		{"/", "", false},
		{"pending", "", false},
		{"/pending\nmore", "pending", true},
	} {
		got, ok := parseCommand(tc.text, testBotName)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseCommand(%q) = %q, %v; want %q, %v", tc.text, got, ok, tc.want, tc.ok)
		}
	}
	if _, ok := parseCommand("/pending@hermes_test_bot", ""); ok {
		t.Error("a command addressed to some bot is taken while the bot's own name is unknown")
	}
}

func TestCommandsRegistered(t *testing.T) {
	for _, lang := range []string{"en", "zh"} {
		seen := map[string]bool{}
		for _, c := range Commands(lang) {
			if seen[c.Command] || c.Command != strings.ToLower(c.Command) || c.Description == "" {
				t.Errorf("%s: bad command %+v", lang, c)
			}
			seen[c.Command] = true
		}
		for _, want := range []string{cmdPending, cmdStatus, cmdAutoApprove, cmdHelp} {
			if !seen[want] {
				t.Errorf("%s: %s not registered", lang, want)
			}
		}
	}
}
