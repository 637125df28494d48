package webview

import (
	"html"
	"html/template"
	"net/url"
	"slices"
	"strings"
	"unicode/utf16"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
)

// renderText turns a message's plain text and entities (offsets and
// lengths in UTF-16 code units, as Telegram counts them) into HTML. Every
// character of plain is escaped; the entities become the tags a Telegram
// client would show them as. Entities parsed from HTML nest; one that
// crosses another is closed and reopened around it, so the result is
// always well-formed.
func renderText(plain string, entities []telegramtest.Entity) template.HTML {
	units := utf16.Encode([]rune(plain))
	ents := slices.Clone(entities)
	// Outer entities first: by offset, then longest.
	slices.SortStableFunc(ents, func(a, b telegramtest.Entity) int {
		if a.Offset != b.Offset {
			return a.Offset - b.Offset
		}
		return b.Length - a.Length
	})
	var b strings.Builder
	type opened struct {
		telegramtest.Entity
		open, close string
	}
	var open []opened // the entities whose tags are open, outermost first
	next := 0
	closeAt := func(pos int) {
		// Close, innermost first, every open entity that ends here or
		// contains one that does; reopen those that go on.
		i := len(open)
		for j, e := range open {
			if e.Offset+e.Length <= pos {
				i = j
				break
			}
		}
		var reopen []opened
		for k := len(open) - 1; k >= i; k-- {
			b.WriteString(open[k].close)
			if open[k].Offset+open[k].Length > pos {
				reopen = append(reopen, open[k])
			}
		}
		open = open[:i]
		for k := len(reopen) - 1; k >= 0; k-- {
			b.WriteString(reopen[k].open)
			open = append(open, reopen[k])
		}
	}
	for pos := 0; pos <= len(units); {
		closeAt(pos)
		for next < len(ents) && ents[next].Offset <= pos {
			e := ents[next]
			next++
			if e.Length <= 0 || e.Offset < pos || e.Offset+e.Length > len(units) {
				continue // malformed: shown as plain text
			}
			o, c := tags(e, units)
			b.WriteString(o)
			open = append(open, opened{e, o, c})
		}
		if pos == len(units) {
			break
		}
		// Write up to the next boundary, where an entity starts or ends.
		end := len(units)
		if next < len(ents) && ents[next].Offset < end {
			end = ents[next].Offset
		}
		for _, e := range open {
			end = min(end, e.Offset+e.Length)
		}
		if end <= pos {
			end = pos + 1
		}
		b.WriteString(html.EscapeString(string(utf16.Decode(units[pos:end]))))
		pos = end
	}
	return template.HTML(b.String()) // #nosec: every piece of text was escaped above
}

// tags are the opening and closing tags for e; units is the text, for a
// url entity, whose link is its own text.
func tags(e telegramtest.Entity, units []uint16) (string, string) {
	switch e.Type {
	case "bold":
		return "<b>", "</b>"
	case "italic":
		return "<i>", "</i>"
	case "underline":
		return "<u>", "</u>"
	case "strikethrough":
		return "<s>", "</s>"
	case "code":
		return "<code>", "</code>"
	case "pre":
		if e.Language != "" {
			return `<pre data-language="` + html.EscapeString(e.Language) + `">`, "</pre>"
		}
		return "<pre>", "</pre>"
	case "blockquote", "expandable_blockquote":
		return "<blockquote>", "</blockquote>"
	case "text_link", "url":
		link := e.URL
		if e.Type == "url" {
			link = string(utf16.Decode(units[e.Offset : e.Offset+e.Length]))
		}
		if safeLink(link) {
			return `<a href="` + html.EscapeString(link) + `" rel="noopener noreferrer" target="_blank">`, "</a>"
		}
		return `<span class="link">`, "</span>"
	default:
		// spoiler, bot_command, mention, hashtag, …: styled, not linked.
		return `<span class="` + html.EscapeString(e.Type) + `">`, "</span>"
	}
}

// safeLink reports whether link may be a link on the page: only the
// schemes a Telegram message links to, never javascript: and the like.
func safeLink(link string) bool {
	u, err := url.Parse(link)
	if err != nil {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "tg":
		return true
	}
	return false
}
