package telegram

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"
)

// hostileProject makes a project folder with a file, a sub-folder, an
// empty file, a FIFO and links in and out, beside a secret outside it.
func hostileProject(t *testing.T) (project, secret string) {
	t.Helper()
	base := t.TempDir()
	project = filepath.Join(base, "proj")
	secret = filepath.Join(base, "secret")
	write := func(path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(project, name)); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(project, "notes.txt"), "hello")
	write(filepath.Join(project, "sub", "a.go"), "package a")
	write(filepath.Join(project, "empty"), "")
	write(secret, "top secret")
	write(filepath.Join(base, "outdir", "x"), "outside too")
	link(secret, "out")                          // straight out
	link("hop2", "hop1")                         // a chain: hop1 → hop2 → ../secret
	link("../secret", "hop2")                    //
	link("sub/a.go", "in1")                      // a chain that stays in:
	link("in1", "in2")                           // in2 → in1 → sub/a.go
	link(filepath.Join(base, "outdir"), "odir")  // a folder out
	link("/dev/null", "null")                    // a device, out
	link(filepath.Join(project, "sub"), "subln") // a folder in, by absolute path
	if err := syscall.Mkfifo(filepath.Join(project, "pipe"), 0o600); err != nil {
		t.Fatal(err)
	}
	return project, secret
}

// TestProjectFileRefusesHostilePaths: /file reads regular files inside
// the project only, whatever the path or the links say, and a FIFO does
// not block it.
func TestProjectFileRefusesHostilePaths(t *testing.T) {
	project, secret := hostileProject(t)
	for _, tc := range []struct {
		path string
		want error  // nil: read
		rel  string // its path in the project, when read
	}{
		{"notes.txt", nil, "notes.txt"},
		{"sub/a.go", nil, "sub/a.go"},
		{"./sub/../notes.txt", nil, "notes.txt"},
		{filepath.Join(project, "notes.txt"), nil, "notes.txt"},
		{"in2", nil, "sub/a.go"},
		{"subln/a.go", nil, "sub/a.go"},
		{"../secret", errOutside, ""},
		{"sub/../../secret", errOutside, ""},
		{secret, errOutside, ""},
		{"/etc/passwd", errOutside, ""},
		{"out", errOutside, ""},
		{"hop1", errOutside, ""},
		{"odir/x", errOutside, ""},
		{"null", errOutside, ""},
		{"pipe", errKind, ""},
		{"sub", errKind, ""},
		{".", errKind, ""},
		{"empty", errEmpty, ""},
		{"missing.txt", errMissing, ""},
		{"notes.txt\x00../secret", errNoPath, ""},
		{"", errNoPath, ""},
	} {
		rel, data, err := projectFile(project, tc.path, 1<<20)
		switch {
		case tc.want == nil && err != nil:
			t.Errorf("%q: %v, want it read", tc.path, err)
		case tc.want == nil && rel != tc.rel:
			t.Errorf("%q: read as %q, want %q", tc.path, rel, tc.rel)
		case tc.want != nil && !errors.Is(err, tc.want):
			t.Errorf("%q: err %v (read %q), want %v", tc.path, err, data, tc.want)
		}
		if strings.Contains(string(data), "secret") || strings.Contains(string(data), "outside") {
			t.Errorf("%q: read %q from outside the project", tc.path, data)
		}
	}
	var big *tooBigError
	if _, _, err := projectFile(project, "notes.txt", 4); !errors.As(err, &big) || big.limit != 4 {
		t.Errorf("a 5-byte file under a 4-byte limit: %v", err)
	}
	if _, _, err := projectFile("/", "etc/passwd", 1<<20); !errors.Is(err, errOutside) {
		t.Errorf("a session at / read a file: %v", err)
	}
	if _, _, err := projectFile(filepath.Join(project, "gone"), "notes.txt", 1<<20); !errors.Is(err, errMissing) {
		t.Errorf("a project folder that is gone: %v", err)
	}
}

// linkTelegram gives every file the download link link.
type linkTelegram struct {
	Telegram
	link string
}

func (l linkTelegram) GetFile(_ context.Context, p *tgbot.GetFileParams) (*models.File, error) {
	return &models.File{FileID: p.FileID, FilePath: "photos/x.jpg"}, nil
}

func (l linkTelegram) FileDownloadLink(*models.File) string { return l.link }

// TestDownloadNeverShowsTheToken: a download that fails says so without
// the link's token, and one larger than the limit is cut off.
func TestDownloadNeverShowsTheToken(t *testing.T) {
	const secret = "123456:SECRET-token_value"
	f := New(Config{MaxUpload: 1 << 20}, linkTelegram{link: "http://127.0.0.1:1/file/bot" + secret + "/photos/x.jpg"}, nil, zerolog.Nop())
	_, err := f.download(context.Background(), fileRef{id: "f1", name: "x.jpg"}, 1<<20)
	if err == nil || !errors.Is(err, errFetch) {
		t.Fatalf("download from a closed port: %v, want errFetch", err)
	}
	if strings.Contains(err.Error(), "SECRET") || strings.Contains(err.Error(), "123456") {
		t.Errorf("the error shows the token: %v", err)
	}

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/file/bot"+secret+"/photos/x.jpg" {
			_, _ = w.Write([]byte(strings.Repeat("x", 100)))
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	f = New(Config{MaxUpload: 1 << 20}, linkTelegram{link: srv.URL + "/file/bot" + secret + "/photos/x.jpg"}, nil, zerolog.Nop())
	if data, err := f.download(context.Background(), fileRef{id: "f1"}, 100); err != nil || len(data) != 100 {
		t.Errorf("download of 100 bytes under 100: %d bytes, %v", len(data), err)
	}
	var big *tooBigError
	if _, err := f.download(context.Background(), fileRef{id: "f1"}, 99); !errors.As(err, &big) {
		t.Errorf("download of 100 bytes under 99: %v, want too big", err)
	}
	f = New(Config{MaxUpload: 1 << 20}, linkTelegram{link: srv.URL + "/file/bot" + secret + "/other"}, nil, zerolog.Nop())
	if _, err := f.download(context.Background(), fileRef{id: "f1"}, 100); !errors.Is(err, errFetch) || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("a 404: %v", err)
	}
}

func TestCommandArgs(t *testing.T) {
	for in, want := range map[string]string{
		"/file":                "",
		"/file  src/main.go ":  "src/main.go",
		"/file@bot a b.txt":    "a b.txt",
		"/new\nwrite a haiku":  "write a haiku",
		"  /new\twith a tab  ": "with a tab",
	} {
		if got := commandArgs(in); got != want {
			t.Errorf("commandArgs(%q) = %q, want %q", in, got, want)
		}
	}
}
