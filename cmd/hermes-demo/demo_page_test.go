package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// The demo page read as a browser reads it: its forms, and the text a
// person sees. The tests act only through what the page offers.

// pageForm is one form of the page, with the values a browser would send.
type pageForm struct {
	action string
	label  string // the submit button's text
	fields url.Values
	text   string // the textarea's name, if the form has one
}

// pageMessage is one message of the chat as the page shows it.
type pageMessage struct {
	id      int
	fromBot bool
	text    string // what a person reads
	html    string // the rendered message body, as served
	// reaction is the bot's reaction shown under the message.
	reaction string
	buttons  []pageForm
	reply    *pageForm // the reply box under a force_reply prompt
}

type demoPage struct {
	url      *url.URL
	messages []pageMessage
	panel    []string // the opencode panel's title and lines
	activity []string
	compose  *pageForm
	actAs    map[string]string // user's link text → href
}

// pageClient is a person with a browser that follows redirects and does
// not keep connections, so none outlives the test.
type pageClient struct {
	t    *testing.T
	http *http.Client
}

func newPageClient(t *testing.T) *pageClient {
	return &pageClient{t: t, http: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}}
}

func (c *pageClient) get(rawURL string) *demoPage {
	c.t.Helper()
	resp, err := c.http.Get(rawURL)
	if err != nil {
		c.t.Fatalf("GET %s: %v", rawURL, err)
	}
	return c.read(resp)
}

// submit posts form as the browser would, with text in its textarea, and
// returns the page the redirect leads to.
func (c *pageClient) submit(p *demoPage, f pageForm, text string) *demoPage {
	c.t.Helper()
	vals := url.Values{}
	for k, v := range f.fields {
		vals[k] = append([]string(nil), v...)
	}
	if f.text != "" {
		vals.Set(f.text, text)
	}
	target, err := p.url.Parse(f.action)
	if err != nil {
		c.t.Fatalf("form action %q: %v", f.action, err)
	}
	resp, err := c.http.PostForm(target.String(), vals)
	if err != nil {
		c.t.Fatalf("POST %s: %v", target, err)
	}
	return c.read(resp)
}

func (c *pageClient) read(resp *http.Response) *demoPage {
	c.t.Helper()
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("read %s: %v", resp.Request.URL, err)
	}
	if resp.StatusCode != http.StatusOK {
		c.t.Fatalf("%s %s: %s\n%s", resp.Request.Method, resp.Request.URL, resp.Status, body)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		c.t.Fatalf("%s: Content-Type %q, want text/html", resp.Request.URL, ct)
	}
	p, err := parseDemoPage(resp.Request.URL, string(body))
	if err != nil {
		c.t.Fatalf("%s: %v\n%s", resp.Request.URL, err, body)
	}
	return p
}

func parseDemoPage(u *url.URL, body string) (*demoPage, error) {
	root, err := html.Parse(strings.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("parse the page: %w", err)
	}
	p := &demoPage{url: u, actAs: map[string]string{}}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch {
			case n.Data == "article" && hasClass(n, "msg"):
				m, err := parseMessage(n)
				if err == nil {
					p.messages = append(p.messages, m)
				}
				return
			case n.Data == "section" && hasClass(n, "panel"):
				for h := range n.Descendants() {
					if h.Type == html.ElementNode && h.Data == "h2" {
						p.panel = append(p.panel, textOf(h))
					}
				}
				p.panel = append(p.panel, items(n)...)
				return
			case n.Data == "section" && hasClass(n, "activity"):
				p.activity = items(n)
				return
			case n.Data == "form" && attr(n, "id") == "compose":
				f := parseForm(n)
				p.compose = &f
				return
			case n.Data == "div" && hasClass(n, "as"):
				for a := range n.Descendants() {
					if a.Type == html.ElementNode && a.Data == "a" {
						p.actAs[textOf(a)] = attr(a, "href")
					}
				}
				return
			}
		}
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			walk(ch)
		}
	}
	walk(root)
	return p, nil
}

func parseMessage(n *html.Node) (pageMessage, error) {
	id, err := strconv.Atoi(attr(n, "data-id"))
	if err != nil {
		return pageMessage{}, fmt.Errorf("message without data-id: %w", err)
	}
	m := pageMessage{id: id, fromBot: hasClass(n, "bot")}
	for d := range n.Descendants() {
		if d.Type != html.ElementNode {
			continue
		}
		switch {
		case d.Data == "div" && hasClass(d, "text"):
			m.text = textOf(d)
			var b strings.Builder
			for ch := d.FirstChild; ch != nil; ch = ch.NextSibling {
				_ = html.Render(&b, ch)
			}
			m.html = b.String()
		case d.Data == "div" && hasClass(d, "reaction"):
			m.reaction = textOf(d)
		case d.Data == "form" && attr(d, "action") == "press":
			m.buttons = append(m.buttons, parseForm(d))
		case d.Data == "form" && hasClass(d, "force"):
			f := parseForm(d)
			m.reply = &f
		}
	}
	return m, nil
}

func parseForm(n *html.Node) pageForm {
	f := pageForm{action: attr(n, "action"), fields: url.Values{}}
	for d := range n.Descendants() {
		if d.Type != html.ElementNode {
			continue
		}
		switch d.Data {
		case "input":
			f.fields.Add(attr(d, "name"), attr(d, "value"))
		case "select":
			for o := range d.Descendants() {
				if o.Type == html.ElementNode && o.Data == "option" && hasAttr(o, "selected") {
					f.fields.Set(attr(d, "name"), attr(o, "value"))
				}
			}
		case "textarea":
			f.text = attr(d, "name")
		case "button":
			f.label = textOf(d)
		}
	}
	return f
}

func items(n *html.Node) []string {
	var out []string
	for d := range n.Descendants() {
		if d.Type == html.ElementNode && d.Data == "li" {
			out = append(out, textOf(d))
		}
	}
	return out
}

func textOf(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return strings.TrimSpace(b.String())
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

func hasClass(n *html.Node, class string) bool {
	for _, c := range strings.Fields(attr(n, "class")) {
		if c == class {
			return true
		}
	}
	return false
}

// message returns the message showing text; the test fails without one.
func (p *demoPage) message(t *testing.T, text string) pageMessage {
	t.Helper()
	for _, m := range p.messages {
		if strings.Contains(m.text, text) {
			return m
		}
	}
	t.Fatalf("the page shows no message with %q; it shows:\n%s", text, p.dump())
	return pageMessage{}
}

// byID returns message id as the page shows it.
func (p *demoPage) byID(t *testing.T, id int) pageMessage {
	t.Helper()
	for _, m := range p.messages {
		if m.id == id {
			return m
		}
	}
	t.Fatalf("the page does not show message #%d; it shows:\n%s", id, p.dump())
	return pageMessage{}
}

// button returns the message's button whose text contains label.
func (m pageMessage) button(t *testing.T, label string) pageForm {
	t.Helper()
	for _, b := range m.buttons {
		if strings.Contains(b.label, label) {
			return b
		}
	}
	var labels []string
	for _, b := range m.buttons {
		labels = append(labels, b.label)
	}
	t.Fatalf("message #%d has no button %q; it has %q", m.id, label, labels)
	return pageForm{}
}

func (p *demoPage) dump() string {
	var b strings.Builder
	for _, m := range p.messages {
		var labels []string
		for _, f := range m.buttons {
			labels = append(labels, f.label)
		}
		fmt.Fprintf(&b, "#%d bot=%v reply-box=%v buttons=%q\n%s\n\n", m.id, m.fromBot, m.reply != nil, labels, m.text)
	}
	fmt.Fprintf(&b, "panel: %q\nactivity: %q\n", p.panel, p.activity)
	return b.String()
}

// contains reports whether some line contains every one of subs.
func contains(lines []string, subs ...string) bool {
	for _, l := range lines {
		ok := true
		for _, s := range subs {
			ok = ok && strings.Contains(l, s)
		}
		if ok {
			return true
		}
	}
	return false
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("parse %q: %v", raw, err)
	}
	return u
}
