package telegram

import (
	"encoding/json"
	"fmt"
	"html"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"

	"github.com/go-telegram/bot/models"
)

// Telegram's limits, and the ones we keep ourselves to stay clear of the
// undocumented ones (long callback data, many buttons).
const (
	// maxMessageLen is Telegram's limit in UTF-16 units after entity
	// parsing. We count the HTML source, tags and entities included, which
	// is never less, so a message we build is never refused as too long.
	maxMessageLen = 4096
	// maxButtonText keeps a label readable on a phone; clients truncate
	// long ones anyway.
	maxButtonText = 40
	// maxOptionButtons leaves room, under Telegram's ~100 buttons, for the
	// submit and custom-answer buttons.
	maxOptionButtons = 90
	// maxMarkupBytes stays under the ~10 KB reply-markup limit.
	maxMarkupBytes = 8000
	// maxPlaceholder is force_reply's input_field_placeholder limit.
	maxPlaceholder = 64
	// maxToast is answerCallbackQuery's text limit.
	maxToast = 200
	// maxExcerpt is the longest excerpt or error description a notice
	// quotes, in UTF-16 units once escaped.
	maxExcerpt = 300
)

// ellipsis marks agent text that was cut.
const ellipsis = "…"

// clean makes agent text safe to send: valid UTF-8, and no control
// characters but newline and tab, which Telegram would refuse or mangle.
func clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r < 0x20 || r == 0x7f:
			return -1
		}
		return r
	}, s)
}

// u16len counts s in UTF-16 code units, as Telegram counts text.
func u16len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// esc cleans and HTML-escapes agent text, cut so that the escaped result,
// ellipsis included, is at most max UTF-16 units. Cutting happens on whole
// runes of the raw text, before escaping, so an entity is never split.
func esc(s string, max int) string { return cutText(s, max, true) }

// plain is esc without escaping, for places Telegram shows as plain text:
// button labels, toasts, the reply placeholder.
func plain(s string, max int) string { return cutText(s, max, false) }

func cutText(s string, max int, escape bool) string {
	s = clean(s)
	enc := func(s string) string {
		if escape {
			return html.EscapeString(s)
		}
		return s
	}
	if full := enc(s); u16len(full) <= max {
		return full
	}
	if max < 1 {
		return ""
	}
	var b strings.Builder
	n := 0
	for _, r := range s {
		e := enc(string(r))
		l := u16len(e)
		if n+l > max-1 {
			break
		}
		b.WriteString(e)
		n += l
	}
	out := strings.TrimRight(b.String(), " \t\n\u200d")
	return out + ellipsis
}

// escLen is the length of s once cleaned and escaped.
func escLen(s string) int { return u16len(html.EscapeString(clean(s))) }

// oneLine folds newlines so a label or header stays on its line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// projectName is the base name of a project directory, whichever
// separator the machine running opencode uses.
func projectName(tx *i18n.Text, dir string) string {
	d := strings.TrimRight(dir, `/\`)
	if i := strings.LastIndexAny(d, `/\`); i >= 0 {
		d = d[i+1:]
	}
	switch {
	case d != "":
		return d
	case dir != "":
		return dir
	}
	return tx.UnknownProject
}

// shortSession keeps the random tail of an opencode session ID
// (ses_<time><random>), the part that tells sessions apart.
func shortSession(id string) string {
	const keep = 8
	if len(id) <= keep+4 {
		return id
	}
	return ellipsis + id[len(id)-keep:]
}

// head is the top of every request message: the opencode server when
// servers are named (OPENCODE_URL lists them: with several, the same
// project may be on more than one machine), project and session (its
// title when known), and for a subagent's session, its parent. It is at
// most about 340 units long.
func head(tx *i18n.Text, icon string, e *frontend.View) string {
	s := icon + " " + serverTag(e.Server) + "<b>" + esc(projectName(tx, e.Directory), 64) + "</b> · "
	id := "<code>" + esc(shortSession(e.SessionID), 24) + "</code>"
	if t := oneLine(e.SessionTitle); t != "" {
		s += "<i>" + esc(t, 80) + "</i> (" + id + ")"
	} else {
		s += tx.Session + id
	}
	if e.ParentSessionID != "" {
		parent := "<code>" + esc(shortSession(e.ParentSessionID), 24) + "</code>"
		if t := oneLine(e.ParentTitle); t != "" {
			parent = "<i>" + esc(t, 80) + "</i>"
		}
		s += "\n" + tx.SubagentOf + parent
	}
	return s
}

// serverTag names opencode server server before a request's project;
// nothing for the unnamed server, so a single OPENCODE_URL's messages are
// as they always were.
func serverTag(server string) string {
	if server == "" {
		return ""
	}
	return "🖥 <code>" + esc(server, 24) + "</code> · "
}

// title names question qi of e: its header, or "Question i" when it has
// none.
func title(tx *i18n.Text, e *frontend.View, qi int) string {
	return tx.Title(e.Questions[qi].Header, qi)
}

// joinFit joins blocks while they fit in budget units, then says how many
// were left out with more(n); the result is never over budget as long as
// budget leaves room for more's longest text.
func joinFit(blocks []string, budget int, more func(n int) string) string {
	total := 0
	for _, b := range blocks {
		total += u16len(b)
	}
	if total <= budget {
		return strings.Join(blocks, "")
	}
	room := budget - u16len(more(len(blocks)))
	var out strings.Builder
	used := 0
	for i, b := range blocks {
		l := u16len(b)
		if used+l > room {
			out.WriteString(more(len(blocks) - i))
			break
		}
		out.WriteString(b)
		used += l
	}
	return out.String()
}

// renderQuestion renders the current question of e: the message text and
// its keyboard.
func renderQuestion(tx *i18n.Text, e *frontend.View) (string, *models.InlineKeyboardMarkup, error) {
	if e.IsURLForm() {
		return renderURLForm(tx, e)
	}
	text, kb, _, err := renderQuestionCut(tx, e)
	return text, kb, err
}

// renderQuestionCut is renderQuestion, and whether the question's text is
// cut in it.
func renderQuestionCut(tx *i18n.Text, e *frontend.View) (string, *models.InlineKeyboardMarkup, bool, error) {
	n := len(e.Questions)
	qi := e.Current
	if qi < 0 || qi >= n {
		return "", nil, false, fmt.Errorf("render entry %s: current question %d of %d", e.UID, qi, n)
	}
	q := e.Questions[qi]
	kb, shown, err := questionKeyboard(tx, e, qi)
	if err != nil {
		return "", nil, false, fmt.Errorf("render entry %s: %w", e.UID, err)
	}
	pre := questionHead(tx, e, qi)
	post := questionFoot(tx, q, shown)

	text := q.Text
	if strings.TrimSpace(clean(text)) == "" && !q.IsField() {
		text = tx.NoQuestionText
	}
	lines, optsLen := optionLines(q.Options)
	more := func(k int) string { return "\n" + tx.MoreOptions(k) }

	layout := func(post string) (string, bool) {
		avail := maxMessageLen - u16len(pre) - u16len(post)
		qText := esc(text, avail)
		opts := strings.Join(lines, "")
		if u16len(qText)+optsLen > avail {
			qText = esc(text, max(avail-optsLen, avail/2))
			opts = joinFit(lines, avail-u16len(qText), more)
		}
		return pre + qText + opts + post, isCut(qText, text)
	}
	out, cut := layout(post)
	if cut {
		// The note takes room from the text, which was cut already.
		out, _ = layout(post + "\n\n" + tx.CutNote)
	}
	return out, kb, cut, nil
}

// questionHead is what question qi's message shows above the question:
// the request's head, the answers to the questions before it (as many as
// fit), and its number and header.
func questionHead(tx *i18n.Text, e *frontend.View, qi int) string {
	var pre strings.Builder
	pre.WriteString(head(tx, "❓", e))
	pre.WriteString(contextBlock(e))
	pre.WriteString(formTitle(e))
	if qi > 0 {
		var done []string
		for j := range qi {
			var ans []string
			if j < len(e.Answers) {
				ans = e.Answers[j]
			}
			if ans == nil && e.Questions[j].IsField() {
				continue // skipped, or not asked
			}
			done = append(done, "\n✅ "+esc(title(tx, e, j), 60)+": "+esc(strings.Join(ans, ", "), 120))
		}
		pre.WriteString(joinFit(done, 600, func(k int) string {
			return "\n" + tx.MoreAnswered(k)
		}))
	}
	var label []string
	if n := len(e.Questions); n > 1 {
		label = append(label, tx.QuestionOf(qi+1, n))
	}
	if h := esc(oneLine(e.Questions[qi].Header), 120); h != "" {
		label = append(label, h)
	}
	if len(label) > 0 {
		pre.WriteString("\n<b>" + strings.Join(label, " · ") + "</b>")
	}
	pre.WriteString("\n")
	return pre.String()
}

// questionFoot is what q's message shows below its options: that only
// the first shown have buttons, how to answer a multi-select, and what a
// form's field takes.
func questionFoot(tx *i18n.Text, q frontend.Question, shown int) string {
	var post strings.Builder
	if h := frontend.FieldHint(&tx.Form, q); h != "" {
		post.WriteString("\n\n<i>" + esc(h, 600) + "</i>")
	}
	if shown < len(q.Options) {
		post.WriteString("\n\n<i>" + tx.OnlyFirstOptions(shown, len(q.Options)))
		if q.AllowsTyped() {
			post.WriteString(tx.TypeToChoose)
		}
		post.WriteString("</i>")
	}
	if q.Multiple {
		post.WriteString("\n\n<i>" + tx.ChooseThenSubmit + "</i>")
	}
	return post.String()
}

// optionLines is a line per option of a question, the first after a
// blank line, and their length in UTF-16 units.
func optionLines(options []frontend.Option) ([]string, int) {
	var lines []string
	n := 0
	for _, o := range options {
		l := "\n• <b>" + esc(oneLine(o.Label), 150) + "</b>"
		if d := strings.TrimSpace(o.Description); d != "" {
			l += " — " + esc(d, 300)
		}
		lines = append(lines, l)
		n += u16len(l)
	}
	if len(lines) > 0 {
		lines[0] = "\n" + lines[0]
		n++
	}
	return lines, n
}

// questionKeyboard makes the buttons of question qi: one per option (as
// many as fit), submit for multi-select, and the custom-answer button. It
// returns how many options got a button.
func questionKeyboard(tx *i18n.Text, e *frontend.View, qi int) (*models.InlineKeyboardMarkup, int, error) {
	q := e.Questions[qi]
	rows := [][]models.InlineKeyboardButton{}
	size, shown := 0, 0
	add := func(text string, c callbackData) (bool, error) {
		data, err := c.encode()
		if err != nil {
			return false, err
		}
		btn := models.InlineKeyboardButton{Text: text, CallbackData: data}
		raw, err := json.Marshal(btn)
		if err != nil {
			return false, fmt.Errorf("measure button: %w", err)
		}
		if size+len(raw)+3 > maxMarkupBytes {
			return false, nil
		}
		size += len(raw) + 3
		rows = append(rows, []models.InlineKeyboardButton{btn})
		return true, nil
	}
	// Room for the two trailing buttons is kept out of the options' share.
	reserve := 400
	for oi, o := range q.Options {
		if oi >= maxOptionButtons || size > maxMarkupBytes-reserve {
			break
		}
		c := callbackData{Action: actOption, UID: e.UID, Question: qi, Option: oi}
		text := buttonText(tx, o.Label, oi)
		if q.Multiple {
			c.Action = actToggle
			mark := "☐ "
			if slices.Contains(e.Selected, o.Label) {
				mark = "☑ "
			}
			text = mark + text
		}
		ok, err := add(text, c)
		if err != nil {
			return nil, 0, err
		}
		if !ok {
			break
		}
		shown++
	}
	if q.Multiple {
		label := tx.BtnSubmit
		if k := len(q.Selected(e.Selected)); k > 0 {
			label += " (" + strconv.Itoa(k) + ")"
		}
		if _, err := add(label, callbackData{Action: actSubmit, UID: e.UID, Question: qi}); err != nil {
			return nil, 0, err
		}
	}
	if q.AllowsTyped() {
		if _, err := add(tx.BtnTypeAnswer, callbackData{Action: actCustom, UID: e.UID, Question: qi}); err != nil {
			return nil, 0, err
		}
	}
	if q.IsField() && !q.Required {
		if _, err := add(tx.Form.BtnSkip, callbackData{Action: actSkip, UID: e.UID, Question: qi}); err != nil {
			return nil, 0, err
		}
	}
	return &models.InlineKeyboardMarkup{InlineKeyboard: rows}, shown, nil
}

// buttonText is an option's label as a button shows it; Telegram refuses
// a button without text.
func buttonText(tx *i18n.Text, label string, oi int) string {
	if t := plain(oneLine(label), maxButtonText); t != "" {
		return t
	}
	return tx.OptionN(oi + 1)
}

// renderOutcome renders a request that is closed: every question with its
// answer (nil answers show none), then footer, which is HTML the caller
// built with every piece of outside text escaped.
//
// A permission request is rendered with its details instead, as
// renderPermissionOutcome does.
func renderOutcome(tx *i18n.Text, e *frontend.View, icon string, answers [][]string, footer string) string {
	if e.Kind == frontend.KindPermission {
		return renderPermissionOutcome(tx, []*frontend.View{e}, icon, footer)
	}
	if e.IsURLForm() {
		return renderURLFormOutcome(tx, e, icon, footer)
	}
	top := head(tx, icon, e) + formTitle(e)
	tail := "\n\n" + footer
	more := func(k int) string { return "\n\n" + tx.MoreQuestions(k) }
	avail := maxMessageLen - u16len(top) - u16len(tail)
	n := len(e.Questions)
	per := avail
	if n > 0 {
		per = max(avail/n, 200)
	}
	var blocks []string
	for i, q := range e.Questions {
		t := esc(title(tx, e, i), min(120, per/4))
		var ans string
		switch {
		case i < len(answers) && answers[i] != nil:
			ans = strings.Join(answers[i], ", ")
		case answers != nil && q.IsField():
			ans = tx.Form.Skipped
		}
		markup := "\n\n<b></b>\n"
		if ans != "" {
			markup += "\n→ <b></b>"
		}
		rem := per - u16len(markup) - u16len(t)
		text := q.Text
		if strings.TrimSpace(clean(text)) == "" && !q.IsField() {
			text = tx.NoQuestionText
		}
		qText := esc(text, rem)
		if ans != "" {
			qText = esc(text, max(rem-escLen(ans), rem/2))
		}
		b := "\n\n<b>" + t + "</b>\n" + qText
		if ans != "" {
			b += "\n→ <b>" + esc(ans, rem-u16len(qText)) + "</b>"
		}
		blocks = append(blocks, b)
	}
	return top + joinFit(blocks, avail, more) + tail
}

// displayName is how a person is named in a message, unescaped.
func displayName(u frontend.User) string {
	name := oneLine(strings.TrimSpace(u.Name))
	switch {
	case name != "":
		return name
	case u.Username != "":
		return "@" + u.Username
	}
	return "user " + esc(u.ID, 32)
}

// who names the person who answered: name and @username, escaped.
func who(u frontend.User) string {
	s := esc(displayName(u), 64)
	if u.Username != "" && !strings.HasPrefix(displayName(u), "@") {
		s += " (@" + esc(u.Username, 40) + ")"
	}
	return s
}

// mention links to the person, so Telegram notifies them and a selective
// force_reply targets them.
func mention(u frontend.User) string {
	return `<a href="tg://user?id=` + esc(u.ID, 32) + `">` + esc(displayName(u), 64) + `</a>`
}

// renderPrompt is the force_reply prompt asking u for a typed answer to
// question qi, and the placeholder of the reply field.
func renderPrompt(tx *i18n.Text, e *frontend.View, qi int, u frontend.User) (text, placeholder string) {
	q := e.Questions[qi]
	t := title(tx, e, qi)
	text = tx.PromptAnswer(mention(u), esc(t, 120))
	if strings.TrimSpace(q.Text) != "" {
		text += "\n<i>" + esc(q.Text, 1000) + "</i>"
	}
	if h := frontend.FieldHint(&tx.Form, q); h != "" {
		text += "\n" + esc(h, 600)
	}
	if p := oneLine(q.Placeholder); p != "" {
		return text, plain(p, maxPlaceholder)
	}
	return text, plain(tx.AnswerPlaceholder(t), maxPlaceholder)
}

// renderMoved is the text a stale copy of a request's message becomes: a
// pointer to message current, which shows the request now (closed: its
// outcome). In a supergroup the pointer is a link.
func renderMoved(tx *i18n.Text, chatID int64, stale, current int, closed bool) string {
	above := current < stale
	var text string
	switch {
	case closed && above:
		text = tx.ClosedAbove
	case closed:
		text = tx.ClosedBelow
	case above:
		text = tx.MovedAbove
	default:
		text = tx.MovedBelow
	}
	if link := messageLink(chatID, current); link != "" {
		text += ` <a href="` + link + `">` + tx.GoToIt + `</a>`
	}
	return text
}

// messageLink is the t.me link of a message in a supergroup, which the
// Bot API numbers -100 followed by the chat's own ID; "" elsewhere, as
// basic groups have no such links.
func messageLink(chatID int64, messageID int) string {
	const supergroup = -1_000_000_000_000
	if chatID >= supergroup || messageID <= 0 {
		return ""
	}
	return fmt.Sprintf("https://t.me/c/%s/%d", strconv.FormatInt(supergroup-chatID, 10), messageID)
}

// renderNotice is a session notice: the head requests have, what
// happened, and body (agent text or an error description) quoted. dropped
// notices held back for the cap are owned up to at the end.
func renderNotice(tx *i18n.Text, icon, server, dir, session, title, what, body string, dropped int) string {
	s := head(tx, icon, &frontend.View{Server: server, Directory: dir, SessionID: session, SessionTitle: title}) + " — " + what
	if body = strings.TrimSpace(body); body != "" {
		s += "\n<blockquote>" + esc(body, maxExcerpt) + "</blockquote>"
	}
	if dropped > 0 {
		s += "\n<i>" + tx.Skipped(dropped) + "</i>"
	}
	return s
}

// renderAutoApproved is the notice of request e allowed by policy: whose
// it is and what it let the agent do.
func renderAutoApproved(tx *i18n.Text, e *frontend.View) string {
	p := e.Permission
	what := strings.TrimSpace(permissionDetail(p).command)
	if what == "" {
		what = strings.Join(slices.DeleteFunc(slices.Clone(p.Patterns), func(s string) bool { return strings.TrimSpace(s) == "" }), ", ")
	}
	if what == "" {
		what = permissionDetail(p).file
	}
	label := tx.AutoApproved
	if k := strings.ToLower(oneLine(p.Kind)); k != "bash" {
		label += " " + esc(k, 40)
	}
	return head(tx, "✅", e) + "\n" + label + ": <code>" + esc(oneLine(what), 300) + "</code>"
}

// human writes d the short way: 30m, 1h30m, 45s.
func human(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

const (
	// maxContext bounds the quote of what the agent did before asking, in
	// UTF-16 units once escaped: the question keeps most of the message.
	maxContext = 700
	// maxContextLine bounds one line of it.
	maxContextLine = 240
)

// contextBlock is the quote of what the agent wrote (italic) and the
// tools it called before asking, shown above the request; "" when there
// is none. The newest lines are kept when not all fit.
func contextBlock(e *frontend.View) string {
	var lines []string
	used := 0
	for _, l := range slices.Backward(e.Context) {
		s := esc(l.Short(), maxContextLine)
		if s == "" {
			continue
		}
		if l.Tool == "" {
			s = "<i>" + s + "</i>"
		}
		if used+u16len(s)+1 > maxContext {
			break
		}
		used += u16len(s) + 1
		lines = append(lines, s)
	}
	if len(lines) == 0 {
		return ""
	}
	slices.Reverse(lines)
	return "\n<blockquote>" + strings.Join(lines, "\n") + "</blockquote>"
}
