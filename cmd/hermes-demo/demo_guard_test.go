package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
)

// TestPageGuard: the guard lets through only a request that names the
// page by a loopback name and its port, comes from no other site, and
// carries the secret; it says why it refuses the others, without the
// secret, and passes the page the path under the secret.
func TestPageGuard(t *testing.T) {
	const secret, port = "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "8080"
	var reached []string // the paths the page received
	g := newPageGuard(secret, port, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached = append(reached, r.URL.Path)
	}))
	type req struct {
		host, path string // "": the page's own, the press; host "-": none
		header     map[string]string
	}
	ok := func(r req) req {
		if r.host == "" {
			r.host = "127.0.0.1:" + port
		}
		if r.path == "" {
			r.path = "/" + secret + "/press"
		}
		return r
	}
	for _, tc := range []struct {
		name string
		req  req
		code int    // 0: let through
		why  string // the refusal's words
	}{
		{name: "the page's own", req: ok(req{})},
		{name: "localhost in capitals", req: ok(req{host: "LocalHost:8080"})},
		{name: "IPv6 loopback", req: ok(req{host: "[::1]:8080", header: map[string]string{"Origin": "http://[::1]:8080"}})},
		{name: "from the page itself", req: ok(req{header: map[string]string{"Origin": "http://127.0.0.1:8080", "Sec-Fetch-Site": "same-origin"}})},
		{name: "typed by the person", req: ok(req{header: map[string]string{"Sec-Fetch-Site": "none"}})},

		{name: "a rebinding name", req: ok(req{host: "attacker.example:8080"}), code: http.StatusMisdirectedRequest, why: "127.0.0.1, localhost or [::1]"},
		{name: "a loopback name's subdomain", req: ok(req{host: "localhost.attacker.example:8080"}), code: http.StatusMisdirectedRequest, why: "127.0.0.1, localhost or [::1]"},
		{name: "no Host", req: ok(req{host: "-"}), code: http.StatusMisdirectedRequest, why: "127.0.0.1, localhost or [::1]"},
		{name: "another port", req: ok(req{host: "127.0.0.1:8081"}), code: http.StatusMisdirectedRequest, why: "its own port"},
		{name: "no port", req: ok(req{host: "localhost"}), code: http.StatusMisdirectedRequest, why: "its own port"},

		{name: "a cross-site Origin", req: ok(req{header: map[string]string{"Origin": "http://attacker.example"}}), code: http.StatusForbidden, why: "another site"},
		{name: "another loopback port's Origin", req: ok(req{header: map[string]string{"Origin": "http://127.0.0.1:9090"}}), code: http.StatusForbidden, why: "another site"},
		{name: "another scheme's Origin", req: ok(req{header: map[string]string{"Origin": "https://127.0.0.1:8080"}}), code: http.StatusForbidden, why: "another site"},
		{name: "an opaque Origin", req: ok(req{header: map[string]string{"Origin": "null"}}), code: http.StatusForbidden, why: "another site"},
		{name: "Sec-Fetch-Site cross-site", req: ok(req{header: map[string]string{"Sec-Fetch-Site": "cross-site"}}), code: http.StatusForbidden, why: "another site"},
		{name: "Sec-Fetch-Site same-site", req: ok(req{header: map[string]string{"Sec-Fetch-Site": "same-site"}}), code: http.StatusForbidden, why: "another site"},

		{name: "no secret", req: ok(req{path: "/press"}), code: http.StatusForbidden, why: "lacks the page's secret"},
		{name: "no secret, the page", req: ok(req{path: "/"}), code: http.StatusForbidden, why: "lacks the page's secret"},
		{name: "a wrong secret", req: ok(req{path: "/ZYXWVUTSRQPONMLKJIHGFEDCBA/press"}), code: http.StatusForbidden, why: "lacks the page's secret"},
		{name: "the secret's start", req: ok(req{path: "/" + secret[:25] + "/press"}), code: http.StatusForbidden, why: "lacks the page's secret"},
		{name: "the secret and more", req: ok(req{path: "/" + secret + "A/press"}), code: http.StatusForbidden, why: "lacks the page's secret"},
		{name: "the secret in other case", req: ok(req{path: "/" + strings.ToLower(secret) + "/press"}), code: http.StatusForbidden, why: "lacks the page's secret"},
		{name: "the secret in the query", req: ok(req{path: "/press?t=" + secret}), code: http.StatusForbidden, why: "lacks the page's secret"},
	} {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			t.Run(method+" "+tc.name, func(t *testing.T) {
				reached = nil
				r := httptest.NewRequest(method, "http://x"+tc.req.path, nil)
				r.Host = tc.req.host
				if r.Host == "-" {
					r.Host = ""
				}
				for k, v := range tc.req.header {
					r.Header.Set(k, v)
				}
				w := httptest.NewRecorder()
				g.ServeHTTP(w, r)
				if w.Header().Get("Referrer-Policy") != "same-origin" {
					t.Errorf("Referrer-Policy %q, want same-origin", w.Header().Get("Referrer-Policy"))
				}
				if tc.code == 0 {
					if w.Code != http.StatusOK || !reflect.DeepEqual(reached, []string{"/press"}) {
						t.Errorf("%d, the page received %q; want it to receive /press", w.Code, reached)
					}
					return
				}
				body := w.Body.String()
				if w.Code != tc.code || reached != nil {
					t.Errorf("%d, the page received %q; want %d and nothing", w.Code, reached, tc.code)
				}
				if !strings.Contains(body, tc.why) || !strings.Contains(body, "Open the address hermes-demo printed") ||
					!strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
					t.Errorf("the refusal says (%s) %q, want %q and where to go", w.Header().Get("Content-Type"), body, tc.why)
				}
				if strings.Contains(strings.ToUpper(body), secret) {
					t.Errorf("the refusal shows the secret: %q", body)
				}
			})
		}
	}

	// The address without its last slash leads to the page.
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8080/"+secret, nil)
	g.ServeHTTP(w, r)
	if loc, err := r.URL.Parse(w.Header().Get("Location")); w.Code != http.StatusMovedPermanently || err != nil || loc.Path != "/"+secret+"/" {
		t.Errorf("/SECRET: %d to %q, want 301 to /SECRET/", w.Code, w.Header().Get("Location"))
	}
}

// TestDemoRefusesOtherSites: a running demo refuses, on every route, a
// request from a rebinding name or another port, from another site, or
// without the secret, and none reaches the fake Telegram; the same forms
// sent from the page itself then work.
func TestDemoRefusesOtherSites(t *testing.T) {
	d := startTestDemo(t)
	first := waitBot(t, d, "the first question", func(m telegramtest.Message) bool {
		return strings.Contains(m.PlainText, "Which database") && len(m.Keyboard) > 0
	})
	c := newPageClient(t)
	page := c.get(d.URL)
	press := page.byID(t, first.ID).button(t, "SQLite")
	compose := *page.compose
	compose.fields.Set(compose.text, "/pending")

	own, err := url.Parse(d.URL)
	if err != nil {
		t.Fatal(err)
	}
	noSecret := *own
	noSecret.Path = "/"
	wrongSecret := *own
	wrongSecret.Path = "/" + strings.Repeat("A", len(d.secret)) + "/"

	type attack struct {
		name   string
		base   *url.URL
		host   string // "": the URL's
		header map[string]string
		code   int
	}
	attacks := []attack{
		{name: "a rebinding name", base: own, host: "attacker.example:" + own.Port(), code: http.StatusMisdirectedRequest},
		{name: "another port", base: own, host: "127.0.0.1:1", code: http.StatusMisdirectedRequest},
		{name: "a cross-site Origin", base: own, header: map[string]string{"Origin": "http://attacker.example"}, code: http.StatusForbidden},
		{name: "Sec-Fetch-Site cross-site", base: own, header: map[string]string{"Sec-Fetch-Site": "cross-site"}, code: http.StatusForbidden},
		{name: "no secret", base: &noSecret, code: http.StatusForbidden},
		{name: "a wrong secret", base: &wrongSecret, code: http.StatusForbidden},
	}
	routes := []struct {
		name   string
		method string
		action string // relative to the page, as the page's forms are
		form   url.Values
	}{
		{name: "the page", method: http.MethodGet, action: "./?as=1001"},
		{name: "press", method: http.MethodPost, action: press.action, form: press.fields},
		{name: "reply", method: http.MethodPost, action: compose.action, form: compose.fields},
	}

	// What a request that got through would change.
	type state struct {
		chat                []telegramtest.Message
		callbacks, activity []string
		replies             int
	}
	snapshot := func() state {
		return state{chat: d.tg.History(demoChatID), callbacks: d.tg.UnansweredCallbacks(),
			activity: d.view.Activity(), replies: len(d.oc.Replies())}
	}
	before := snapshot()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, a := range attacks {
		for _, rt := range routes {
			target, err := a.base.Parse(rt.action)
			if err != nil {
				t.Fatal(err)
			}
			req, err := http.NewRequest(rt.method, target.String(), strings.NewReader(rt.form.Encode()))
			if err != nil {
				t.Fatal(err)
			}
			if rt.form != nil {
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			}
			if a.host != "" {
				req.Host = a.host
			}
			for k, v := range a.header {
				req.Header.Set(k, v)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatalf("%s with %s: %v", rt.name, a.name, err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != a.code || !strings.Contains(string(body), "Open the address hermes-demo printed") {
				t.Errorf("%s %s with %s: %s %q; want %d and where to go", rt.method, target.Path, a.name, resp.Status, body, a.code)
			}
		}
	}
	if after := snapshot(); !reflect.DeepEqual(after, before) {
		t.Fatalf("a refused request changed the demo:\nbefore %+v\nafter  %+v", before, after)
	}

	// The forms were good: from the page itself, they work.
	c.submit(page, press, "")
	if got := waitReplies(t, d, 1)[0]; len(got.Answers) != 1 || got.Answers[0][0] != "SQLite" {
		t.Fatalf("opencode received %+v, want SQLite", got)
	}
	c.submit(page, compose, "/pending") // the page posts it before it answers
	if !slices.ContainsFunc(d.tg.History(demoChatID), func(m telegramtest.Message) bool {
		return !m.FromBot && m.PlainText == "/pending"
	}) {
		t.Fatalf("the message from the page is not in the chat: %+v", d.tg.History(demoChatID))
	}
}
