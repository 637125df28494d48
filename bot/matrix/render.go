package matrix

import (
	"html"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/bot/risk"
)

// A request shows in the room as one message (HTML: where it comes from,
// what it asks, the command in full) and, when the step it is at has
// choices, a poll replying to it. Polls take plain text only, so the
// message carries what needs formatting.

// choice is one answer of a step's poll and the press it stands for.
type choice struct {
	ID     string          `json:"id"`
	Text   string          `json:"text"`
	Action frontend.Action `json:"action"`
	Option int             `json:"option,omitempty"`
	// Reply is a stock reply's text (Action frontend.Quick), kept with the
	// poll so a vote answers with what the poll showed.
	Reply string `json:"reply,omitempty"`
}

// step is what the message shows of a request now: the field (question)
// it is at, its poll's choices, and whether a reply answers it.
type step struct {
	field   int
	choices []choice
	multi   bool
	typed   bool
	// reason: a reply to a permission is the reason of a reject.
	reason   bool
	question string // the poll's question
}

// Answer IDs of the choices that are no option.
const (
	idOnce   = "once"
	idAlways = "always"
	idReject = "reject"
	idSkip   = "skip"
	idDone   = "done"
	idCancel = "cancel"
)

// stepOf is the step request r is at, its poll in tx's language.
func stepOf(tx *i18n.Text, r frontend.Request) step {
	e := r.Members[0]
	if e.Kind == frontend.KindPermission {
		return step{reason: true, question: tx.Matrix.AllowWhat(permissionWhat(tx, e)), choices: []choice{
			{ID: idOnce, Text: tx.BtnAllowOnce, Action: frontend.AllowOnce},
			{ID: idAlways, Text: tx.BtnAllowAlways, Action: frontend.AllowAlways},
			{ID: idReject, Text: tx.BtnReject, Action: frontend.Reject},
		}}
	}
	if e.IsURLForm() {
		return step{question: tx.Matrix.LinkDone, choices: []choice{
			{ID: idDone, Text: tx.Form.BtnDone, Action: frontend.Submit},
			{ID: idCancel, Text: tx.Form.BtnCancel, Action: frontend.Cancel},
		}}
	}
	s := step{field: e.Current}
	if e.Current >= len(e.Questions) {
		return s
	}
	q := e.Questions[e.Current]
	// A form's field may have a title and no text.
	s.question = oneLine(q.Text, 300)
	for _, alt := range []string{q.Header, q.Key, tx.Matrix.YourAnswer} {
		if strings.TrimSpace(s.question) == "" {
			s.question = oneLine(alt, 300)
		}
	}
	s.multi = q.Multiple
	s.typed = q.AllowsTyped()
	act := frontend.Pick
	if q.Multiple {
		act = frontend.Toggle
	}
	for i, o := range q.Options {
		s.choices = append(s.choices, choice{ID: "o" + strconv.Itoa(i), Text: oneLine(o.Label, 200), Action: act, Option: i})
	}
	if q.IsField() && !q.Required {
		s.choices = append(s.choices, choice{ID: idSkip, Text: tx.Form.BtnSkip, Action: frontend.Skip})
	}
	return s
}

// withQuickReplies is s with a poll answer per stock reply, when s is a
// single-choice question's poll and the question takes a typed answer.
func withQuickReplies(s step, r frontend.Request, replies []string) step {
	e := r.Members[0]
	if e.Kind != frontend.KindQuestion || e.IsURLForm() || !s.typed || s.multi || len(s.choices) == 0 {
		return s
	}
	s.choices = slices.Clone(s.choices)
	for i, text := range replies {
		s.choices = append(s.choices, choice{ID: "r" + strconv.Itoa(i), Text: "💬 " + text, Action: frontend.Quick, Option: i, Reply: text})
	}
	return s
}

// renderOpen is request r's message while it waits, as HTML.
func renderOpen(tx *i18n.Text, r frontend.Request) string {
	e := r.Members[0]
	lines := []string{header(tx, e, len(r.Members))}
	if q := contextQuote(e); q != "" {
		lines = append(lines, q)
	}
	lines = append(lines, body(tx, e)...)
	lines = append(lines, "<i>"+instructions(tx, e, stepOf(tx, r))+"</i>")
	return strings.Join(lines, "<br>\n")
}

// renderClosed is request r's message once it closed, footer saying how.
func renderClosed(tx *i18n.Text, r frontend.Request, footer string) string {
	e := r.Members[0]
	lines := append([]string{header(tx, e, len(r.Members))}, body(tx, e)...)
	return strings.Join(append(lines, footer), "<br>\n")
}

// contextQuote is what the agent wrote and the tools it called before
// asking e, as a quote; "" when there is none.
func contextQuote(e *frontend.View) string {
	var lines []string
	for _, l := range e.Context {
		if s := cut(l.Short(), 240); s != "" {
			lines = append(lines, esc(s))
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return "<blockquote>" + strings.Join(lines, "<br>\n") + "</blockquote>"
}

// header says where request e comes from.
func header(tx *i18n.Text, e *frontend.View, n int) string {
	icon := "❓"
	if e.Kind == frontend.KindPermission {
		icon = "🔐"
	}
	s := icon + " "
	if e.Server != "" {
		s += "<code>" + esc(e.Server) + "</code>: "
	}
	s += "<b>" + esc(projectName(tx, e.Directory)) + "</b>"
	if t := strings.TrimSpace(e.SessionTitle); t != "" {
		s += " · <i>" + esc(oneLine(t, 80)) + "</i>"
	}
	if p := strings.TrimSpace(e.ParentTitle); p != "" {
		s += " (" + tx.SubagentOf + "<i>" + esc(oneLine(p, 60)) + "</i>)"
	}
	if n > 1 {
		s += " ×" + strconv.Itoa(n)
	}
	return s
}

// body is what request e asks, as lines of HTML.
func body(tx *i18n.Text, e *frontend.View) []string {
	if e.Kind == frontend.KindPermission {
		return permissionBody(tx, e)
	}
	if e.IsURLForm() {
		var lines []string
		if t := strings.TrimSpace(e.Form.Title); t != "" {
			lines = append(lines, "<b>"+esc(t)+"</b>")
		}
		if u := e.Form.URL; strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://") {
			lines = append(lines, `<a href="`+esc(u)+`">`+esc(u)+"</a>")
		} else {
			lines = append(lines, "<code>"+esc(u)+"</code>")
		}
		return lines
	}
	if e.Current >= len(e.Questions) {
		return nil
	}
	q := e.Questions[e.Current]
	var lines []string
	if e.Form != nil && strings.TrimSpace(e.Form.Title) != "" {
		lines = append(lines, "<b>"+esc(e.Form.Title)+"</b>")
	}
	title := strings.TrimSpace(q.Header)
	if title == "" {
		title = q.Key
	}
	if len(e.Questions) > 1 {
		title = strings.TrimSpace(title + " (" + tx.QuestionOf(e.Current+1, len(e.Questions)) + ")")
	}
	if title != "" {
		lines = append(lines, "<b>"+esc(title)+"</b>")
	}
	if strings.TrimSpace(q.Text) != "" {
		lines = append(lines, escLines(q.Text))
	}
	for _, o := range q.Options {
		l := "• <b>" + esc(o.Label) + "</b>"
		if d := strings.TrimSpace(o.Description); d != "" {
			l += " — " + esc(oneLine(d, 300))
		}
		lines = append(lines, l)
	}
	if hint := frontend.FieldHint(&tx.Form, q); hint != "" {
		lines = append(lines, "<i>"+esc(hint)+"</i>")
	}
	return lines
}

// instructions say how to answer the step s of e.
func instructions(tx *i18n.Text, e *frontend.View, s step) string {
	m := tx.Matrix
	switch {
	case e.Kind == frontend.KindPermission:
		return m.HowPermission
	case e.IsURLForm():
		return m.HowLink
	case s.multi:
		if s.typed {
			return m.HowMulti + m.OrReplyOwn
		}
		return m.HowMulti
	case len(s.choices) > 0 && s.typed:
		return m.HowVoteOrReply
	case len(s.choices) > 0:
		return m.HowVote
	}
	return m.HowReply
}

// permissionBody shows what permission request e would let the agent do:
// the command in full, in a code block, and its risk.
func permissionBody(tx *i18n.Text, e *frontend.View) []string {
	p := e.Permission
	if p == nil {
		p = &frontend.Permission{}
	}
	lines := []string{"<b>" + tx.Permission + esc(p.Kind) + "</b>"}
	m := risk.MetaStrings(p.Metadata)
	if c := m["command"]; c != "" {
		lines = append(lines, "<pre><code>"+esc(c)+"</code></pre>")
	}
	if d := m["description"]; d != "" {
		lines = append(lines, "<i>"+esc(oneLine(d, 300))+"</i>")
	}
	if ps := risk.MetaPaths(p.Metadata); len(ps) > 0 {
		lines = append(lines, tx.File+"<code>"+esc(strings.Join(ps, ", "))+"</code>")
	}
	if u := m["url"]; u != "" {
		lines = append(lines, tx.URL+"<code>"+esc(u)+"</code>")
	}
	if d := m["diff"]; d != "" {
		lines = append(lines, "<pre><code>"+esc(d)+"</code></pre>")
	}
	if len(p.Patterns) > 0 {
		lines = append(lines, tx.Patterns+codeList(p.Patterns))
	}
	a := frontend.Assess(e)
	lines = append(lines, a.Level.Emoji()+" <b>"+tx.Risk(a.Level)+"</b>")
	return lines
}

// permissionWhat names what permission request e asks for, on one line.
func permissionWhat(tx *i18n.Text, e *frontend.View) string {
	p := e.Permission
	if p == nil {
		return tx.ThisRequest
	}
	m := risk.MetaStrings(p.Metadata)
	switch {
	case m["command"] != "":
		return oneLine(m["command"], 200)
	case len(p.Patterns) > 0:
		return p.Kind + " " + oneLine(strings.Join(p.Patterns, ", "), 200)
	}
	return p.Kind
}

// footer is the line that says how a request closed, in the words
// Telegram uses.
func footer(tx *i18n.Text, e *frontend.View, o frontend.Outcome) string {
	by := esc(o.By.DisplayName())
	switch o.How {
	case frontend.Answered:
		if e.IsURLForm() {
			return "✅ " + tx.Form.DoneBy(by)
		}
		return "✅ " + tx.AnsweredBy(by) + answers(tx, o.Answers)
	case frontend.AnsweredElsewhere:
		return "✅ <b>" + tx.AnsweredOC + "</b>" + answers(tx, o.Answers)
	case frontend.Dismissed:
		if e.Form != nil {
			return "🚫 <b>" + tx.Form.CancelledOC + "</b>"
		}
		return "🚫 <b>" + tx.DismissedOC + "</b>"
	case frontend.Cancelled:
		return "🚫 " + tx.Form.CancelledBy(by)
	case frontend.Gone:
		return "✅ " + tx.GoneFooter
	case frontend.NoLongerPending:
		return "⚠️ " + tx.NoLongerPending
	case frontend.Expired:
		s := tx.Expired(tx.Span(o.TTL))
		switch o.Told {
		case frontend.NotTold:
			s += tx.ExpiredNotTold
		case frontend.ToldRejected:
			s += tx.ExpiredRejected
		default:
			s += tx.ExpiredDismissed
		}
		return s
	case frontend.Decided:
		switch o.Reply {
		case frontend.ReplyOnce:
			return "✅ <b>" + tx.AllowedOnce + "</b>" + tx.By(by)
		case frontend.ReplyAlways:
			s := "♾️ <b>" + tx.AlwaysAllowed + "</b>" + tx.By(by)
			if p := e.Permission; p != nil && len(p.Always) > 0 {
				s += tx.AlsoAllowed + codeList(p.Always)
			}
			return s
		}
		s := "❌ <b>" + tx.Rejected + "</b>" + tx.By(by)
		if r := strings.TrimSpace(o.Reason); r != "" {
			s += "<br>\n" + tx.Reason + "<i>" + esc(oneLine(r, 400)) + "</i>"
		}
		return s
	case frontend.DecidedElsewhere:
		switch o.Reply {
		case frontend.ReplyOnce:
			return tx.ApprovedOnceOC
		case frontend.ReplyAlways:
			return tx.ApprovedAlwaysOC
		case frontend.ReplyReject:
			return tx.RejectedOC
		}
		return "✅ <b>" + tx.AnsweredOC + "</b>"
	case frontend.Stopped:
		return tx.Steer.StoppedFooter(by)
	}
	return "✅ <b>" + tx.Matrix.Closed + "</b>"
}

// answers lists the answers given, one field's per "; ".
func answers(tx *i18n.Text, a [][]string) string {
	var parts []string
	for _, labels := range a {
		if len(labels) > 0 {
			parts = append(parts, strings.Join(labels, ", "))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return tx.Matrix.Answers(esc(oneLine(strings.Join(parts, "; "), 400)))
}

// renderNotice is the message of notice n.
func renderNotice(tx *i18n.Text, n frontend.Notice, steer bool) string {
	icon, what := "✅", tx.Finished
	if n.Failed {
		icon, what = "❌", tx.Failed
	}
	s := icon + " "
	if n.Server != "" {
		s += "<code>" + esc(n.Server) + "</code>: "
	}
	s += "<b>" + esc(projectName(tx, n.Directory)) + "</b>"
	if t := strings.TrimSpace(n.Title); t != "" {
		s += " · " + esc(oneLine(t, 80))
	}
	s += " — " + what
	if b := strings.TrimSpace(n.Body); b != "" {
		s += "<br>\n<blockquote>" + escLines(cut(b, 300)) + "</blockquote>"
	}
	if n.Dropped > 0 {
		s += "<br>\n<i>" + tx.Skipped(n.Dropped) + "</i>"
	}
	if steer {
		s += "<br>\n" + tx.Steer.ReplyToContinue
	}
	return s
}

func projectName(tx *i18n.Text, dir string) string {
	if dir == "" || dir == "/" {
		return tx.UnknownProject
	}
	return filepath.Base(filepath.Clean(dir))
}

func codeList(items []string) string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = "<code>" + esc(oneLine(s, 100)) + "</code>"
	}
	return strings.Join(out, ", ")
}

func esc(s string) string { return html.EscapeString(s) }

// escLines escapes s, its line breaks kept as <br>.
func escLines(s string) string {
	return strings.ReplaceAll(esc(strings.TrimSpace(s)), "\n", "<br>\n")
}

// oneLine is s on one line, at most n runes.
func oneLine(s string, n int) string { return cut(strings.Join(strings.Fields(s), " "), n) }

func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

var (
	brTag  = regexp.MustCompile(`<br>\n?`)
	anyTag = regexp.MustCompile(`<[^>]*>`)
)

// plain is the plain-text body of an HTML message of ours.
func plain(h string) string {
	return html.UnescapeString(anyTag.ReplaceAllString(brTag.ReplaceAllString(h, "\n"), ""))
}
