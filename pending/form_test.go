package pending

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// An entry as 03d8d17, the last release before forms, writes it (no
// field attributes, no Form) reads, its place moved to the Telegram
// front-end's, and is written back byte for byte but for that.
func TestEntryBeforeFormsRoundTrips(t *testing.T) {
	const old = `{"uid":"abcd1234","kind":"question","directory":"/p","sessionID":"ses_1","callID":"call_1",` +
		`"toolMessageID":"msg_1","requestID":"que_1","questions":[{"text":"Which database?","header":"Database",` +
		`"options":[{"label":"Postgres","description":"relational"},{"label":"SQLite"}],"custom":true},` +
		`{"text":"Colours?","options":[{"label":"Red"},{"label":"Blue"}],"multiple":true,"custom":false}],` +
		`"place":{"chat":-5,"message":7},"current":1,"answers":[["SQLite"]],"selected":["Red"],` +
		`"createdAt":"2025-03-04T05:06:07Z","expiresAt":"2025-03-04T05:36:07Z"}`
	upgraded := string(upgradeRecord([]byte(old)))
	if !strings.Contains(upgraded, `"places":{"telegram":"{\"chat\":-5,\"message\":7}"}`) || strings.Contains(upgraded, `"place":`) {
		t.Errorf("upgraded to %s", upgraded)
	}
	var e Entry
	if err := json.Unmarshal([]byte(upgraded), &e); err != nil {
		t.Fatal(err)
	}
	if e.Form != nil || e.Generation != 0 || e.Questions[0].IsField() || e.Questions[1].IsField() ||
		e.Questions[0].Options[0].Value != "" || e.IsURLForm() {
		t.Errorf("an entry before forms reads as a form: %+v", e)
	}
	got, err := json.Marshal(&e)
	if err != nil {
		t.Fatal(err)
	}
	var gotM, wantM map[string]any
	if err := json.Unmarshal(got, &gotM); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(upgraded), &wantM); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotM, wantM) {
		t.Errorf("written back as\n%s\nwant\n%s", got, upgraded)
	}
}
