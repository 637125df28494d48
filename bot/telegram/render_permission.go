package telegram

import (
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/bot/risk"

	"github.com/go-telegram/bot/models"
)

// The replies opencode takes for a permission request.
const (
	replyOnce   = "once"
	replyAlways = "always"
	replyReject = "reject"
)

// permDetail is what a permission's metadata says, as far as it is
// understood; metadata of any other shape leaves it empty and the
// message shows the patterns alone.
type permDetail struct {
	command, description, file, diff, url string
}

// permissionDetail reads p's metadata; what runs (command, file, diff,
// URL) has its invisible characters spelled out.
func permissionDetail(p *frontend.Permission) permDetail {
	m := risk.MetaStrings(p.Metadata)
	d := permDetail{command: spellHidden(m["command"]), description: m["description"], diff: spellHidden(m["diff"]), url: spellHidden(m["url"])}
	if ps := risk.MetaPaths(p.Metadata); len(ps) > 0 {
		d.file = spellHidden(strings.Join(ps, ", "))
	}
	return d
}

// diffExcerpt keeps the changed lines of a unified diff, without its
// file headers, and at most maxLines of them; cut says lines were left
// out or shortened.
func diffExcerpt(tx *i18n.Text, diff string, maxLines int) (excerpt string, cut bool) {
	var out []string
	shortened := false
	more := 0
	for _, l := range strings.Split(strings.ReplaceAll(diff, "\r\n", "\n"), "\n") {
		if strings.HasPrefix(l, "Index:") || strings.HasPrefix(l, "===") ||
			strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ ") || strings.TrimSpace(l) == "" {
			continue
		}
		if len(out) >= maxLines {
			more++
			continue
		}
		if r := []rune(l); len(r) > 100 {
			l = string(r[:99]) + ellipsis
			shortened = true
		}
		out = append(out, l)
	}
	if more > 0 {
		out = append(out, tx.MoreLines(more))
	}
	return strings.Join(out, "\n"), more > 0 || shortened
}

// codeList renders items as <code> pieces joined by commas, within
// budget units.
func codeList(tx *i18n.Text, items []string, each, budget int) string {
	var blocks []string
	for i, it := range items {
		sep := ", "
		if i == 0 {
			sep = ""
		}
		blocks = append(blocks, sep+"<code>"+esc(oneLine(spellHidden(it)), each)+"</code>")
	}
	return joinFit(blocks, budget, tx.MoreItems)
}

// permissionBudget bounds the big parts of a permission message: the
// command and the diff excerpt. A message that comes out too long anyway
// is rendered again with both halved.
type permissionBudget struct{ command, diff int }

// permissionBody renders what the requests es (identical ones of one
// session, es[0] speaking for all) ask, between the head and the footer,
// and returns the texts it cut, whole. While open it says what "always"
// would allow on a server of generation gen, and that texts were cut.
func permissionBody(tx *i18n.Text, es []*frontend.View, gen int, open bool, bud permissionBudget) (string, []fullText) {
	e := es[0]
	p := e.Permission
	if p == nil {
		p = &frontend.Permission{}
	}
	kind := oneLine(p.Kind)
	if kind == "" {
		kind = tx.UnknownKind
	}
	var b strings.Builder
	b.WriteString("\n🔐 <b>" + tx.Permission + esc(kind, 40) + "</b>")
	if n := len(es); n > 1 {
		fmt.Fprintf(&b, " ×%d <i>%s</i>", n, tx.Identical(n))
	}

	// The same judgement auto-approval makes, so the shown level never
	// disagrees with what was or would be approved; a group shows its
	// riskiest member's, since one tap answers them all.
	assessed := riskiest(es)
	var reasons []string
	for i, r := range assessed.Details {
		if i == 3 {
			reasons = append(reasons, esc(tx.MoreReasons(len(assessed.Details)-3), 110))
			break
		}
		reasons = append(reasons, esc(tx.RiskReason(r), 110))
	}
	b.WriteString("\n" + assessed.Level.Emoji() + " <b>" + tx.Risk(assessed.Level) + "</b>: " + strings.Join(reasons, "; "))

	d := permissionDetail(p)
	if t := strings.TrimSpace(d.description); t != "" {
		b.WriteString("\n<i>" + esc(oneLine(t), 150) + "</i>")
	}
	var cut []fullText
	if c := strings.TrimSpace(d.command); c != "" {
		shown := esc(c, bud.command)
		b.WriteString("\n<pre>" + shown + "</pre>")
		if isCut(shown, c) {
			cut = append(cut, fullText{name: "command.txt", caption: tx.FullCommand, content: d.command})
		}
	}
	b.WriteString(runLines(tx, p.Run))
	if d.file != "" {
		b.WriteString("\n" + tx.File + "<code>" + esc(oneLine(d.file), 150) + "</code>")
	}
	if x, shortened := diffExcerpt(tx, d.diff, 25); x != "" {
		shown := esc(x, bud.diff)
		b.WriteString("\n<pre>" + shown + "</pre>")
		if shortened || isCut(shown, x) {
			cut = append(cut, fullText{name: diffFileName(d.file), caption: fullCaption(tx.FullDiff, d.file), content: d.diff})
		}
	}
	if open && len(cut) > 0 {
		b.WriteString("\n" + tx.CutNote)
	}
	if u := strings.TrimSpace(d.url); u != "" {
		b.WriteString("\n" + tx.URL + "<code>" + esc(oneLine(u), 200) + "</code>")
	}
	if len(p.Patterns) > 0 && !(len(p.Patterns) == 1 && strings.TrimSpace(p.Patterns[0]) == strings.TrimSpace(d.command)) {
		b.WriteString("\n" + tx.Patterns + codeList(tx, p.Patterns, 150, 300))
	}
	if open {
		b.WriteString("\n" + alwaysLine(tx, p, kind, gen))
	}
	return b.String(), cut
}

// riskiest assesses each of es and returns the highest assessment, the
// first of equals.
func riskiest(es []*frontend.View) risk.Assessment {
	var worst risk.Assessment
	for _, e := range es {
		if a := frontend.Assess(e); a.Level > worst.Level {
			worst = a
		}
	}
	return worst
}

// runLines says what a shell command's tool call showed beyond its text:
// that it could not be read, or the folder it runs in when that is not
// the project's, and a long timeout.
func runLines(tx *i18n.Text, r *frontend.Run) string {
	switch {
	case r == nil:
		return ""
	case !r.Read:
		return "\n" + tx.RunUnread
	}
	var s string
	if r.Elsewhere {
		s += "\n📁 " + tx.Folder + "<code>" + esc(oneLine(spellHidden(r.Workdir)), 300) + "</code>"
	}
	if r.Timeout > risk.MaxTimeout {
		s += "\n" + esc(tx.RunsFor((time.Duration(r.Timeout)*time.Millisecond).String()), 100)
	}
	return s
}

// alwaysLine says what pressing "Always allow" would allow beyond this
// request, and for how long: on opencode 1.x in the project until it
// restarts (kept in memory, for every session of the directory), on
// OpenCode 2 (gen 2) as a rule saved for the project.
func alwaysLine(tx *i18n.Text, p *frontend.Permission, kind string, gen int) string {
	if len(p.Always) == 0 {
		return tx.AlwaysNone
	}
	pats := codeList(tx, p.Always, 100, 250)
	for _, a := range p.Always {
		if strings.TrimSpace(a) == "*" {
			pats += tx.AlwaysEvery(esc(kind, 40))
			break
		}
	}
	if gen == 2 {
		return tx.AlwaysRule(pats)
	}
	return tx.AlwaysMemory(pats)
}

// renderPermission renders the open message of the permission requests
// es, of a server of generation gen, whose buttons carry uid: the text
// and its keyboard.
func renderPermission(tx *i18n.Text, uid string, es []*frontend.View, gen int) (string, *models.InlineKeyboardMarkup, error) {
	text, kb, _, err := renderPermissionCut(tx, uid, es, gen)
	return text, kb, err
}

// renderPermissionCut is renderPermission, and the texts the message
// shows cut, whole.
func renderPermissionCut(tx *i18n.Text, uid string, es []*frontend.View, gen int) (string, *models.InlineKeyboardMarkup, []fullText, error) {
	if len(es) == 0 {
		return "", nil, nil, fmt.Errorf("render permission %s: no requests", uid)
	}
	kb, err := permissionKeyboard(tx, uid)
	if err != nil {
		return "", nil, nil, fmt.Errorf("render permission %s: %w", uid, err)
	}
	var cut []fullText
	text := fitPermission(func(bud permissionBudget) string {
		body, c := permissionBody(tx, es, gen, true, bud)
		cut = c // of the last rendering, the one kept
		return head(tx, "🔐", es[0]) + contextBlock(es[0]) + body
	})
	return text, kb, cut, nil
}

// renderPermissionOutcome renders the closed message of the permission
// requests es: what they asked, then footer, HTML the caller built with
// every piece of outside text escaped (at most about 700 units).
func renderPermissionOutcome(tx *i18n.Text, es []*frontend.View, icon, footer string) string {
	return fitPermission(func(bud permissionBudget) string {
		body, _ := permissionBody(tx, es, 0, false, bud)
		return head(tx, icon, es[0]) + body + "\n\n" + footer
	})
}

// fitPermission renders with smaller budgets until the text fits.
func fitPermission(render func(permissionBudget) string) string {
	bud := permissionBudget{command: 900, diff: 700}
	for {
		text := render(bud)
		if u16len(text) <= maxMessageLen || bud.command < 20 {
			return text
		}
		bud.command /= 2
		bud.diff /= 2
	}
}

// Button styles (Bot API 9.4): allowing is green, rejecting red.
const (
	styleAllow  = "success"
	styleReject = "danger"
)

// permissionKeyboard makes the four buttons of a permission message.
func permissionKeyboard(tx *i18n.Text, uid string) (*models.InlineKeyboardMarkup, error) {
	kb := &models.InlineKeyboardMarkup{}
	for _, row := range [][]struct {
		text  string
		a     action
		style string
	}{
		{{tx.BtnAllowOnce, actAllowOnce, styleAllow}, {tx.BtnAllowAlways, actAllowAlways, styleAllow}},
		{{tx.BtnReject, actReject, styleReject}, {tx.BtnRejectReason, actRejectReason, styleReject}},
	} {
		var btns []models.InlineKeyboardButton
		for _, b := range row {
			data, err := callbackData{Action: b.a, UID: uid}.encode()
			if err != nil {
				return nil, err
			}
			btns = append(btns, models.InlineKeyboardButton{Text: b.text, CallbackData: data, Style: b.style})
		}
		kb.InlineKeyboard = append(kb.InlineKeyboard, btns)
	}
	return kb, nil
}

// renderReasonPrompt is the force_reply prompt asking u why the
// permission request e is rejected, and the reply field's placeholder.
func renderReasonPrompt(tx *i18n.Text, e *frontend.View, u frontend.User) (text, placeholder string) {
	what := tx.ThisRequest
	if p := e.Permission; p != nil {
		what = "<b>" + esc(oneLine(p.Kind), 40) + "</b>"
		if c := permissionDetail(p).command; strings.TrimSpace(c) != "" {
			what += " <code>" + esc(oneLine(c), 300) + "</code>"
		} else if len(p.Patterns) > 0 {
			what += " " + codeList(tx, p.Patterns, 100, 300)
		}
	}
	return tx.PromptReason(mention(u), what), tx.ReasonPlaceholder
}

// decisionFooter says what was decided and by whom; reason is the text
// given with a reject, if any.
func decisionFooter(tx *i18n.Text, reply string, e *frontend.View, u frontend.User, reason string) (icon, footer string) {
	by := tx.By(who(u))
	switch reply {
	case replyOnce:
		return "✅", "✅ <b>" + tx.AllowedOnce + "</b>" + by
	case replyAlways:
		footer = "♾️ <b>" + tx.AlwaysAllowed + "</b>" + by
		if p := e.Permission; p != nil && len(p.Always) > 0 {
			footer += tx.AlsoAllowed + codeList(tx, p.Always, 100, 250)
		}
		return "♾️", footer
	}
	footer = "❌ <b>" + tx.Rejected + "</b>" + by
	if r := strings.TrimSpace(reason); r != "" {
		footer += "\n" + tx.Reason + "<i>" + esc(r, 400) + "</i>"
	}
	return "❌", footer
}

// elsewhereFooter says how a permission request was answered outside
// Telegram, from the reply of permission.replied.
func elsewhereFooter(tx *i18n.Text, reply string) (icon, footer string) {
	switch reply {
	case replyOnce:
		return "✅", tx.ApprovedOnceOC
	case replyAlways:
		return "♾️", tx.ApprovedAlwaysOC
	case replyReject:
		return "❌", tx.RejectedOC
	}
	return "✅", tx.AnsweredOCAs(esc(oneLine(reply), 40))
}

// spellHidden spells out, as <U+202E>, every character of s that is invisible
// or reorders what is around it: format characters (bidirectional
// controls, zero-width ones, tags), control characters but newline and
// tab, line and paragraph separators, spaces other than ASCII's, variation
// selectors and blank letters. It is for text that runs (a command, a
// path, a diff), so a person sees the bytes that will run, not a
// rendering a model chose (Trojan Source).
func spellHidden(s string) string {
	if strings.IndexFunc(s, hidden) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if hidden(r) {
			fmt.Fprintf(&b, "<U+%04X>", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// hidden reports a rune spellHidden spells out.
func hidden(r rune) bool {
	switch {
	case r == '\n' || r == '\t' || r == ' ':
		return false
	case r == unicode.ReplacementChar:
		return false // invalid UTF-8 is shown as such already
	case unicode.Is(unicode.Cf, r), unicode.Is(unicode.Cc, r), unicode.Is(unicode.Zl, r),
		unicode.Is(unicode.Zp, r), unicode.Is(unicode.Zs, r), unicode.Is(unicode.Variation_Selector, r):
		return true
	}
	switch r {
	case 0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800, 0x034F:
		// Hangul fillers, the braille blank and the combining grapheme
		// joiner: letters or marks that draw nothing.
		return true
	}
	return false
}
