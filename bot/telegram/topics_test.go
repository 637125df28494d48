package telegram

import (
	"strings"
	"testing"
)

func TestTopicName(t *testing.T) {
	long := strings.Repeat("é", 200)
	for dir, want := range map[string]string{
		"/home/me/demo":  "demo",
		"/home/me/demo/": "demo",
		"/":              "/",
		"/x/" + long:     strings.Repeat("é", maxTopicName),
	} {
		if got := topicName(dir); got != want {
			t.Errorf("topicName(%q) = %q, want %q", dir, got, want)
		}
	}
}
