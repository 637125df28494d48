package telegram

import (
	"fmt"
	"strings"
	"unicode"
)

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
