package opencode_test

import (
	"encoding/base64"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/opencode"
)

// png1 is a 1×1 PNG.
var png1, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")

func TestNewFile(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		mime string
	}{
		{"photo.jpg", png1, "image/png"}, // the content decides, not the name
		{"shot", []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"), "image/gif"},
		{"notes.md", []byte("# Notes\nnaïve ✓\n"), "text/plain"},
		{"empty.txt", nil, "text/plain"},
	} {
		f, err := opencode.NewFile(tc.name, tc.data)
		if err != nil || f.MIME != tc.mime || f.Name != tc.name || f.IsImage() != strings.HasPrefix(tc.mime, "image/") {
			t.Errorf("NewFile(%q) = %+v, %v; want %s", tc.name, f, err, tc.mime)
		}
	}
	for name, data := range map[string][]byte{
		"doc.pdf":   []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"),
		"a.bin":     {0x00, 0x01, 0x02},
		"latin1.tx": []byte("caf\xe9"),
	} {
		if _, err := opencode.NewFile(name, data); !errors.Is(err, opencode.ErrNotAccepted) || !strings.Contains(err.Error(), name) {
			t.Errorf("NewFile(%q): err = %v, want ErrNotAccepted naming it", name, err)
		}
	}
}

func TestPromptFiles(t *testing.T) {
	s := newScripted2(t, map[string]func() (int, string){"POST /session/ses_1/prompt_async": answer(204, "")})
	c := client2(t, s.URL, "pw", 0)
	img, _ := opencode.NewFile("photo.png", png1)
	txt, _ := opencode.NewFile("notes.txt", []byte("line one\n"))
	if err := c.PromptFiles(ctx2(t), "/p", "ses_1", "look", []opencode.File{img, txt}, 0); err != nil {
		t.Fatal(err)
	}
	reqs := s.requests()
	if len(reqs) != 1 || reqs[0].Query != "directory=%2Fp" {
		t.Fatalf("requests %+v", reqs)
	}
	want := []any{
		map[string]any{"type": "text", "text": "look"},
		map[string]any{"type": "file", "mime": "image/png", "filename": "photo.png", "url": "data:image/png;base64," + base64.StdEncoding.EncodeToString(png1)},
		map[string]any{"type": "file", "mime": "text/plain", "filename": "notes.txt", "url": "data:text/plain;base64,bGluZSBvbmUK"},
	}
	if got := reqs[0].Body["parts"]; !reflect.DeepEqual(got, want) {
		t.Errorf("parts = %v, want %v", got, want)
	}
}

// The cap counts the files together; past it nothing is sent.
func TestPromptFilesTooLarge(t *testing.T) {
	s := newScripted2(t, nil)
	c := client2(t, s.URL, "pw", 0)
	a := opencode.File{Name: "a.txt", MIME: "text/plain", Data: make([]byte, 600)}
	b := opencode.File{Name: "b.txt", MIME: "text/plain", Data: make([]byte, 500)}
	err := c.PromptFiles(ctx2(t), "/p", "ses_1", "x", []opencode.File{a, b}, 1000)
	var tl *opencode.FileTooLargeError
	if !errors.As(err, &tl) || *tl != (opencode.FileTooLargeError{Name: "b.txt", Size: 1100, Max: 1000}) || !errors.Is(err, opencode.ErrNotAccepted) {
		t.Errorf("err = %v (%+v), want b.txt too large, ErrNotAccepted", err, tl)
	}
	for _, bad := range [][]opencode.File{nil, {{Name: "x", Data: []byte("x")}}} {
		if err := c.PromptFiles(ctx2(t), "/p", "ses_1", " ", bad, 0); !errors.Is(err, opencode.ErrNotAccepted) {
			t.Errorf("files %v: err = %v, want ErrNotAccepted", bad, err)
		}
	}
	if n := len(s.requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

// OpenCode 2 takes the files as {uri, mime, name}, in both body shapes.
func TestPromptFiles2(t *testing.T) {
	s := newScripted2(t, map[string]func() (int, string){"POST /api/session/ses_1/prompt": answer(204, "")})
	c := client2(t, s.URL, "pw", 2)
	img, _ := opencode.NewFile("photo.png", png1)
	if err := c.PromptFiles(ctx2(t), "/p", "ses_1", "", []opencode.File{img}, 0); err != nil {
		t.Fatal(err)
	}
	files := []any{map[string]any{"uri": "data:image/png;base64," + base64.StdEncoding.EncodeToString(png1), "mime": "image/png", "name": "photo.png"}}
	want := map[string]any{"text": "", "files": files, "prompt": map[string]any{"text": "", "files": files}, "delivery": "queue"}
	if reqs := s.requests(); len(reqs) != 1 || !reflect.DeepEqual(reqs[0].Body, want) {
		t.Errorf("requests %+v, want body %v", reqs, want)
	}
}

// providers is GET /config/providers as 1.18.33 answers it, cut to two
// providers.
const providers = `{"providers":[
 {"id":"opencode","models":{"big":{"id":"big","name":"Big","capabilities":{"attachment":true,"input":{"text":true,"image":true}}}}},
 {"id":"mock","source":"config","models":{"mock-model":{"id":"mock-model","providerID":"mock","name":"Mock","capabilities":{"attachment":false,"input":{"text":true,"audio":false,"image":false}}}}}],
 "default":{"opencode":"big","mock":"mock-model"}}`

func TestSessionModel(t *testing.T) {
	s := newScripted2(t, map[string]func() (int, string){
		"GET /session/ses_1":     answer(200, `{"id":"ses_1","model":{"id":"big","providerID":"opencode","variant":"default"}}`),
		"GET /session/ses_2":     answer(200, `{"id":"ses_2"}`),
		"GET /config":            answer(200, `{"model":"mock/mock-model"}`),
		"GET /config/providers":  answer(200, providers),
		"GET /session/ses_other": answer(200, `{"id":"ses_other","model":{"id":"gone","providerID":"mock"}}`),
	})
	c := client2(t, s.URL, "pw", 0)
	ctx := ctx2(t)
	if m, err := c.SessionModel(ctx, "/p", "ses_1"); err != nil || m != (opencode.ModelInfo{ProviderID: "opencode", ID: "big", Name: "Big", Image: true}) {
		t.Errorf("ses_1: %+v, %v", m, err)
	}
	// No model of its own: the configured default.
	if m, err := c.SessionModel(ctx, "/p", "ses_2"); err != nil || m != (opencode.ModelInfo{ProviderID: "mock", ID: "mock-model", Name: "Mock"}) {
		t.Errorf("ses_2: %+v, %v", m, err)
	}
	if _, err := c.SessionModel(ctx, "/p", "ses_other"); !errors.Is(err, opencode.ErrNotFound) || !strings.Contains(err.Error(), "mock/gone") {
		t.Errorf("unknown model: err = %v", err)
	}
	for _, r := range s.requests() {
		if r.Query != "directory=%2Fp" {
			t.Errorf("%s %s?%s: no directory", r.Method, r.Path, r.Query)
		}
	}
}

func TestSessionModel2(t *testing.T) {
	s := newScripted2(t, map[string]func() (int, string){
		"GET /api/session/ses_1": answer(200, `{"data":{"id":"ses_1","model":{"id":"m","providerID":"p"}}}`),
		"GET /api/session/ses_2": answer(200, `{"data":{"id":"ses_2"}}`),
		"GET /api/model": answer(200, `{"location":{"directory":"/p"},"data":[
		  {"id":"m","modelID":"m","providerID":"q","name":"Other","capabilities":{"input":["text"]}},
		  {"id":"m","modelID":"m","providerID":"p","name":"M","capabilities":{"tools":true,"input":["text","image"],"output":["text"]}}]}`),
	})
	c := client2(t, s.URL, "pw", 2)
	if m, err := c.SessionModel(ctx2(t), "/p", "ses_1"); err != nil || m != (opencode.ModelInfo{ProviderID: "p", ID: "m", Name: "M", Image: true}) {
		t.Errorf("ses_1: %+v, %v", m, err)
	}
	if _, err := c.SessionModel(ctx2(t), "/p", "ses_2"); !errors.Is(err, opencode.ErrNotFound) {
		t.Errorf("no model: err = %v", err)
	}
	if reqs := s.requests(); len(reqs) < 2 || reqs[1].Query != "location%5Bdirectory%5D=%2Fp" {
		t.Errorf("requests %+v", reqs)
	}
}
