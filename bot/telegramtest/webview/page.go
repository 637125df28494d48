package webview

import (
	"html/template"
	"net/http"
	"strconv"
	"strings"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
)

// pageData is what the template shows.
type pageData struct {
	Title    string
	As       User
	Users    []User
	Panels   []Panel
	Activity []string
	Messages []pageMessage
	// Targets are the messages one may reply to from the composer, newest
	// first; ReplyDefault is the one picked: the newest force_reply prompt.
	Targets      []pageMessage
	ReplyDefault int
}

type pageMessage struct {
	ID       int
	From     string
	FromBot  bool
	Body     template.HTML
	Snippet  string
	ReplyTo  int
	Quote    string // the start of the replied-to message
	Edited   bool
	Keyboard [][]telegramtest.Button
	Force    *telegramtest.ForceReply
	Document *telegramtest.Document
	// Reaction is the bot's reaction on the message, as a client shows it under it.
	Reaction string
}

func (v *View) handlePage(w http.ResponseWriter, r *http.Request) {
	u, ok := v.user(r.URL.Query().Get("as"))
	if !ok {
		u = v.opts.Users[0]
	}
	d := pageData{Title: v.opts.Title, As: u, Users: v.opts.Users, Activity: v.Activity()}
	if v.opts.Panels != nil {
		d.Panels = v.opts.Panels()
	}
	msgs := v.tg.History(v.chatID)
	byID := make(map[int]telegramtest.Message, len(msgs))
	for _, m := range msgs {
		byID[m.ID] = m
	}
	for _, m := range msgs {
		pm := pageMessage{
			ID: m.ID, FromBot: m.FromBot, From: m.From.FirstName,
			Body:    renderText(m.PlainText, m.Entities),
			Snippet: snippet(m.PlainText),
			ReplyTo: m.ReplyTo, Edited: m.Edits > 0,
			Keyboard: m.Keyboard, Force: m.ForceReply, Document: m.Document,
			Reaction: strings.Join(m.Reaction, ""),
		}
		if q, found := byID[m.ReplyTo]; found {
			pm.Quote = snippet(q.PlainText)
		}
		d.Messages = append(d.Messages, pm)
	}
	for i := len(d.Messages) - 1; i >= 0; i-- {
		m := d.Messages[i]
		if !m.FromBot {
			continue
		}
		d.Targets = append(d.Targets, m)
		if m.Force != nil && d.ReplyDefault == 0 {
			d.ReplyDefault = m.ID
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	// An error here is a client gone, or a bug the page tests catch; the
	// header is out, so all there is to do is stop writing.
	_ = v.page.Execute(w, d)
}

// snippet is the start of text on one line, cut to a length that fits a
// quote or a list: enough to tell two requests with the same heading apart.
func snippet(text string) string {
	line := strings.Join(strings.Fields(text), " ")
	if r := []rune(line); len(r) > 90 {
		line = string(r[:89]) + "…"
	}
	return line
}

// parsePage parses the page's template, when a View is made.
func parsePage() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{
		"id": func(n int64) string { return strconv.FormatInt(n, 10) },
	}).Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font: 15px/1.4 system-ui, sans-serif; background: #c8d7e1; margin: 0; }
main { max-width: 44rem; margin: 0 auto; padding: 0.5rem; }
header, .panel, .activity, .compose { background: #fff; border-radius: 8px; padding: 0.5rem 0.8rem; margin: 0.5rem 0; }
header h1 { font-size: 1.1rem; margin: 0.2rem 0; }
.as a { margin-right: 0.6rem; } .as a.current { font-weight: bold; }
.msg { background: #fff; border-radius: 10px; padding: 0.4rem 0.7rem; margin: 0.5rem 0; max-width: 90%; }
.msg.user { background: #effdde; margin-left: auto; }
.from { color: #3a6d99; font-weight: 600; font-size: 0.85rem; }
.meta { color: #888; font-size: 0.75rem; }
.quote { border-left: 3px solid #3a6d99; padding-left: 0.4rem; color: #555; font-size: 0.85rem; margin: 0.2rem 0; }
.reaction { display: inline-block; background: #eef3f8; border-radius: 1rem; padding: 0 0.5rem; margin-top: 0.3rem; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; }
pre { background: #f3f3f3; padding: 0.3rem; white-space: pre-wrap; margin: 0.2rem 0; }
code { background: #f3f3f3; }
blockquote { border-left: 3px solid #aaa; margin: 0.2rem 0; padding-left: 0.5rem; }
.spoiler { background: #999; color: #999; } .spoiler:hover { color: inherit; background: none; }
.keyboard .row { display: flex; gap: 4px; margin-top: 4px; }
.keyboard form { flex: 1; margin: 0; }
.keyboard button, .keyboard a.button { width: 100%; padding: 0.4rem; border: 0; border-radius: 6px; background: #5d8fbb33; cursor: pointer; font: inherit; text-align: center; display: block; }
.force { margin-top: 0.4rem; }
textarea, select { width: 100%; box-sizing: border-box; font: inherit; }
h2 { font-size: 1rem; margin: 0.2rem 0; }
.activity li, .panel li { font-size: 0.85rem; }
</style>
</head>
<body>
<main>
<header>
<h1>{{.Title}}</h1>
<div class="as">Act as:
{{range .Users}}<a href="./?as={{id .ID}}"{{if eq .ID $.As.ID}} class="current"{{end}}>{{.FirstName}}{{if .Note}} ({{.Note}}){{end}}</a>
{{end}}</div>
<div><a href="./?as={{id .As.ID}}" id="refresh">↻ Refresh</a> to see what the bot did since.</div>
</header>
{{range .Panels}}<section class="panel"><h2>{{.Title}}</h2><ul>{{range .Lines}}<li>{{.}}</li>{{else}}<li>nothing yet</li>{{end}}</ul></section>
{{end}}
<section class="chat">
{{range .Messages}}<article class="msg {{if .FromBot}}bot{{else}}user{{end}}" id="m{{.ID}}" data-id="{{.ID}}">
<div class="from">{{.From}} <span class="meta">#{{.ID}}{{if .Edited}} · edited{{end}}</span></div>
{{if .ReplyTo}}<div class="quote">↪ #{{.ReplyTo}} {{.Quote}}</div>{{end}}
{{if .Document}}<div class="document">📎 {{.Document.FileName}} ({{len .Document.Content}} bytes)</div>{{end}}
<div class="text">{{.Body}}</div>
{{if .Reaction}}<div class="reaction" title="the bot's reaction">{{.Reaction}}</div>{{end}}
{{if .Keyboard}}<div class="keyboard">{{$m := .}}{{range .Keyboard}}<div class="row">{{range .}}{{if .CallbackData}}<form method="post" action="press"><input type="hidden" name="as" value="{{id $.As.ID}}"><input type="hidden" name="message" value="{{$m.ID}}"><input type="hidden" name="data" value="{{.CallbackData}}"><button type="submit">{{.Text}}</button></form>{{else if .URL}}<a class="button" href="{{.URL}}" rel="noopener noreferrer" target="_blank">{{.Text}} ↗</a>{{end}}{{end}}</div>{{end}}</div>{{end}}
{{if .Force}}<form class="force" method="post" action="reply"><input type="hidden" name="as" value="{{id $.As.ID}}"><input type="hidden" name="reply_to" value="{{.ID}}"><textarea name="text" rows="2" required placeholder="{{if .Force.Placeholder}}{{.Force.Placeholder}}{{else}}Reply{{end}}"></textarea><button type="submit">Reply as {{$.As.FirstName}}</button></form>{{end}}
</article>
{{else}}<p>No messages yet.</p>
{{end}}
</section>
<form class="compose" id="compose" method="post" action="reply">
<input type="hidden" name="as" value="{{id .As.ID}}">
<label>Write as {{.As.FirstName}}, in reply to
<select name="reply_to"><option value="0">no message (a plain message, such as /pending)</option>
{{range .Targets}}<option value="{{.ID}}"{{if eq .ID $.ReplyDefault}} selected{{end}}>#{{.ID}} {{.Snippet}}</option>
{{end}}</select></label>
<textarea name="text" rows="2" required></textarea>
<button type="submit">Send</button>
</form>
<section class="activity"><h2>What happened</h2><ol>{{range .Activity}}<li>{{.}}</li>{{else}}<li>nothing yet: press a button or reply</li>{{end}}</ol></section>
</main>
</body>
</html>
`))
}
