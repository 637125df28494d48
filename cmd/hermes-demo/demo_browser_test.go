package main

import (
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// browserNames are the commands a Chromium goes by: Debian's package
// installs "chromium"; other systems have the others.
var browserNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// lookBrowser returns the path of a Chromium on PATH, or why there is
// none.
func lookBrowser() (string, string) {
	for _, name := range browserNames {
		if path, err := exec.LookPath(name); err == nil {
			return path, ""
		}
	}
	return "", fmt.Sprintf("no Chromium to drive: none of %s is on PATH (on Debian: apt-get install chromium)",
		strings.Join(browserNames, ", "))
}

// announceNoBrowser says, in a line go test shows without -v, that the
// browser test was skipped, as opencodetest.AnnounceUnavailable does for
// the end-to-end tests.
func announceNoBrowser() {
	if e2e := os.Getenv(opencodetest.EnvE2E); e2e == "0" || e2e == "1" {
		return // skipped as asked, or failed saying why
	}
	_, why := lookBrowser()
	if why == "" {
		return
	}
	var w io.Writer = os.Stderr
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		w = tty
	}
	fmt.Fprintf(w, "cmd/hermes-demo: browser test SKIPPED: %s\n", why)
}

// findBrowser returns the path of a Chromium, or skips the test saying
// why; with HERMES_E2E=1 a missing browser fails it instead, as a missing
// opencode does, and HERMES_E2E=0 skips it without looking.
func findBrowser(t *testing.T) string {
	t.Helper()
	e2e := os.Getenv(opencodetest.EnvE2E)
	if e2e == "0" {
		t.Skipf("%s=0: the browser test is skipped", opencodetest.EnvE2E)
	}
	path, why := lookBrowser()
	if path != "" {
		return path
	}
	if e2e == "1" {
		t.Fatalf("%s=1, but %s", opencodetest.EnvE2E, why)
	}
	t.Skip(why)
	return ""
}

// TestDemoInBrowser taps a button of the page in a real headless Chromium
// and sees the message change, as a person would. Before that, the same
// browser is refused the press from another site's page (one that knows
// even the secret), the page by a rebinding name, and the page without
// its secret, and the chat does not change.
func TestDemoInBrowser(t *testing.T) {
	browser := findBrowser(t)
	d := startTestDemo(t)
	first := waitBot(t, d, "the first question", func(m telegramtest.Message) bool {
		return strings.Contains(m.PlainText, "Which database") && len(m.Keyboard) > 0
	})
	own, err := url.Parse(d.URL)
	if err != nil {
		t.Fatal(err)
	}
	press := newPageClient(t).get(d.URL).byID(t, first.ID).button(t, "SQLite")
	pressURL, err := own.Parse(press.action)
	if err != nil {
		t.Fatal(err)
	}
	// Another site, on another loopback port, with the press's form.
	var inputs strings.Builder
	for k, vs := range press.fields {
		for _, v := range vs {
			fmt.Fprintf(&inputs, `<input type="hidden" name="%s" value="%s">`, html.EscapeString(k), html.EscapeString(v))
		}
	}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><form method="post" action="%s">%s<button id="go">Win a prize</button></form>`,
			html.EscapeString(pressURL.String()), inputs.String())
	}))
	t.Cleanup(other.Close)
	// A rebinding name: the browser resolves it to loopback, as an
	// attacker's DNS would after the page loaded.
	rebound := *own
	rebound.Host = "rebind.test:" + own.Port()
	noSecret := *own
	noSecret.Path = "/"
	chatBefore := d.tg.History(demoChatID)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Env("TMPDIR="+t.TempDir()), // its singleton socket's folder, removed with the test
		chromedp.NoSandbox,                  // as root in a container, Chromium's sandbox cannot start
		chromedp.DisableGPU,
		chromedp.Flag("headless", "new"),
		chromedp.Flag("disable-component-update", true),
		// Anything not on loopback goes to a closed port: the test
		// contacts nothing outside this machine, even by accident.
		chromedp.ProxyServer("http://127.0.0.1:9"),
		chromedp.Flag("proxy-bypass-list", "rebind.test"),
		chromedp.Flag("host-resolver-rules", "MAP rebind.test 127.0.0.1"),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(allocCtx)
	defer cancelBrowser()

	msg := chromedp.CSS(fmt.Sprintf("#m%d .text", first.ID))
	button := chromedp.Search(fmt.Sprintf(`//article[@id="m%d"]//button[contains(., "SQLite")]`, first.ID))
	// Marking the document lets a wait end on the next one, the page the
	// form's redirect leads to.
	mark := chromedp.Evaluate[any](`document.body.dataset.before = "1"`)
	next := chromedp.WaitNotPresent(chromedp.CSS(`body[data-before]`))

	refused := func(what string, want int, resp *network.Response, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s in %s: %v", what, browser, err)
		}
		body, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.body.innerText`))
		if resp.Status != int64(want) || err != nil || !strings.Contains(body, "Open the address hermes-demo printed") {
			t.Errorf("%s: %d %q (%v); want %d and where to go", what, resp.Status, body, err, want)
		}
	}
	if _, err := chromedp.Run(bctx, chromedp.NavigateResponse(other.URL)); err != nil {
		t.Fatalf("open the other site in %s: %v", browser, err)
	}
	resp, err := chromedp.RunResponse(bctx, chromedp.Click(chromedp.CSS("#go")))
	refused("the other site's press", http.StatusForbidden, resp, err)
	resp, err = chromedp.Run(bctx, chromedp.NavigateResponse(rebound.String()))
	refused("the page by a rebinding name", http.StatusMisdirectedRequest, resp, err)
	resp, err = chromedp.Run(bctx, chromedp.NavigateResponse(noSecret.String()))
	refused("the page without its secret", http.StatusForbidden, resp, err)
	if n := len(d.oc.Replies()); n != 0 || !reflect.DeepEqual(d.tg.History(demoChatID), chatBefore) || len(d.tg.UnansweredCallbacks()) != 0 {
		t.Fatalf("a refused request reached the bridge: opencode has %d answers, the chat %+v", n, d.tg.History(demoChatID))
	}

	if err := chromedp.Do(bctx, chromedp.Navigate(d.URL)); err != nil {
		t.Fatalf("open the page in %s: %v", browser, err)
	}
	before, err := chromedp.Run(bctx, chromedp.Text(msg))
	if err != nil {
		t.Fatalf("read the question in %s: %v", browser, err)
	}
	if !strings.Contains(before, "Which database") || strings.Contains(before, "Answered by") {
		t.Fatalf("before the tap the browser shows:\n%s", before)
	}
	if _, err := chromedp.Run(bctx, mark); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(bctx, chromedp.Click(button), next); err != nil {
		t.Fatalf("tap SQLite in %s: %v", browser, err)
	}
	if got := waitReplies(t, d, 1)[0]; len(got.Answers) != 1 || len(got.Answers[0]) != 1 || got.Answers[0][0] != "SQLite" {
		t.Fatalf("opencode received %+v, want SQLite", got)
	}
	// The page after the tap shows the edit if the bot made it in time;
	// once the fake has it, a refresh shows it for certain.
	waitBot(t, d, "the answered question", func(m telegramtest.Message) bool { return m.ID == first.ID && m.Keyboard == nil })
	if _, err := chromedp.Run(bctx, mark); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(bctx, chromedp.Click(chromedp.CSS("#refresh")), next); err != nil {
		t.Fatalf("refresh in %s: %v", browser, err)
	}
	after, err := chromedp.Run(bctx, chromedp.Text(msg))
	if err != nil {
		t.Fatalf("read the answered question in %s: %v", browser, err)
	}
	if !strings.Contains(after, "SQLite") || !strings.Contains(after, "Answered by Alice") {
		t.Errorf("after the tap the browser shows:\n%s", after)
	}
	buttons, err := chromedp.Run(bctx, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll("#m%d button").length`, first.ID)))
	if err != nil {
		t.Fatal(err)
	}
	if buttons != 0 {
		t.Errorf("the answered question still shows %d buttons", buttons)
	}
}
