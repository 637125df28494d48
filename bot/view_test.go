package bot

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/pending"
)

// Every field of the view a front-end gets is filled from the entry: a
// field added to View and not copied would show empty.
func TestViewOfCopiesEveryField(t *testing.T) {
	one, two := 1, 2.0
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	e := &pending.Entry{UID: "abc12345", Kind: pending.KindPermission, RequestID: "per_1", Server: "ci", Directory: "/p",
		SessionID: "ses_1", SessionTitle: "Fix", ParentSessionID: "ses_0", ParentTitle: "Plan", Generation: 2,
		Questions: []pending.Question{{Text: "?", Header: "H", Options: []pending.Option{{Label: "a", Description: "d", Value: "v"}},
			Multiple: true, Custom: true, Key: "k", Type: pending.TypeString, Required: true, Format: "email", Pattern: "^a",
			Placeholder: "p", MinLength: &one, MaxLength: &one, Minimum: &two, Maximum: &two, MinItems: &one, MaxItems: &one,
			Default: json.RawMessage(`"a"`)}},
		Permission: &pending.Permission{Kind: "bash", Patterns: []string{"ls"}, Always: []string{"ls *"}, Metadata: json.RawMessage(`{}`),
			Run: &pending.Run{Read: true, Workdir: "/w", Elsewhere: true, Timeout: 5, Root: "/", Agent: "build"}},
		Form:    &pending.Form{Mode: "url", URL: "https://example.com", Title: "T"},
		Current: 1, Answers: [][]string{{"a"}}, Selected: []string{"a"}, ExpiredNotified: true,
		Context: []pending.ContextLine{{Tool: "read", Text: "/a"}},
		Places:  map[string]pending.Place{"test": "1"}, CreatedAt: at, ExpiresAt: at}
	v := viewOf(e)
	for _, x := range []reflect.Value{reflect.ValueOf(*v), reflect.ValueOf(v.Questions[0]), reflect.ValueOf(v.Questions[0].Options[0]),
		reflect.ValueOf(*v.Permission), reflect.ValueOf(*v.Permission.Run), reflect.ValueOf(*v.Form), reflect.ValueOf(v.Context[0])} {
		for i := range x.NumField() {
			if x.Field(i).IsZero() {
				t.Errorf("%s.%s is not filled from the entry", x.Type().Name(), x.Type().Field(i).Name)
			}
		}
	}
	v.Selected[0] = "changed"
	if e.Selected[0] != "a" {
		t.Error("the view shares the entry's selection")
	}
}
