package config_test

import (
	"reflect"
	"testing"

	"github.com/hermes-bot/hermes-bot/config"
)

func TestUnknownKeys(t *testing.T) {
	file := map[string]string{
		"HERMES_LANGG":        "zh", // one letter too many
		"TELEGRAM_CHATID":     "-100",
		"OPENCODE_PASSWORD":   "x", // a common mistake: named
		"hermes_lang":         "zh",
		"HERMES_LANG":         "zh", // a setting
		"HTTPS_PROXY":         "http://proxy:3128",
		"TELEGRAM_BOT_TOKEN":  "1:x",
		"HERMES_AUTOAPPROVE":  "low",
		"OPENCODE_SERVER_URL": "http://127.0.0.1:4096",
		"MATRIX_ROOMID":       "!r:x",
	}
	environ := []string{
		"HERMES_LOG_LEVL=debug",
		"HERMES_LANGG=zh",                  // also in the env-file: once
		"OPENCODE_CONFIG=/x/opencode.json", // opencode's own, not ours to judge
		"TELEGRAM_TOKEN=other-tool",
		"HERMES_E2E=1", // the tests'
		"PATH=/usr/bin",
		"HERMES_DB=/tmp/x.db",
		"OPENCODE_USERNAME=me", // a mistake opencode does not read either
	}
	got := config.UnknownKeys(file, environ)
	want := []config.Unknown{
		{Key: "HERMES_AUTOAPPROVE", From: "env-file", Suggest: "HERMES_AUTO_APPROVE"},
		{Key: "HERMES_LANGG", From: "env-file", Suggest: "HERMES_LANG"},
		{Key: "HERMES_LOG_LEVL", From: "environment", Suggest: "HERMES_LOG_LEVEL"},
		{Key: "MATRIX_ROOMID", From: "env-file", Suggest: "MATRIX_ROOM_ID"},
		{Key: "OPENCODE_PASSWORD", From: "env-file", Suggest: "OPENCODE_SERVER_PASSWORD"},
		{Key: "OPENCODE_SERVER_URL", From: "env-file"}, // too far from OPENCODE_URL to guess
		{Key: "OPENCODE_USERNAME", From: "environment", Suggest: "OPENCODE_SERVER_USERNAME"},
		{Key: "TELEGRAM_CHATID", From: "env-file", Suggest: "TELEGRAM_CHAT_ID"},
		{Key: "hermes_lang", From: "env-file", Suggest: "HERMES_LANG"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("UnknownKeys =\n%v\nwant\n%v", got, want)
	}
	if s := got[1].String(); s != "HERMES_LANGG in the env-file is not a setting, so it is ignored; did you mean HERMES_LANG?" {
		t.Errorf("String() = %q", s)
	}
	if s := got[4].String(); s != "OPENCODE_PASSWORD in the env-file is not a setting, so it is ignored; did you mean OPENCODE_SERVER_PASSWORD?" {
		t.Errorf("String() = %q", s)
	}
	if got := config.UnknownKeys(map[string]string{"TELEGRAM_CHAT_ID": "-1"}, []string{"HOME=/h"}); len(got) != 0 {
		t.Errorf("settings reported as unknown: %v", got)
	}
}
