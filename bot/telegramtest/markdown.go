package telegramtest

import (
	"fmt"
	"strings"
)

// parseMarkdownV2 returns the visible text of a MarkdownV2 message. It checks
// the two rules bots break most often: every reserved character outside an
// entity is escaped, and every entity is closed. Entities are not reported.
func parseMarkdownV2(text string) (string, error) {
	var out strings.Builder
	type marker struct {
		name string
		pos  int
	}
	var open []marker
	toggle := func(name string, pos int) {
		if n := len(open); n > 0 && open[n-1].name == name {
			open = open[:n-1]
			return
		}
		open = append(open, marker{name, pos})
	}
	inLink := -1
	lineStart := true
	for i := 0; i < len(text); i++ {
		c := text[i]
		startOfLine := lineStart
		lineStart = c == '\n'
		switch {
		case c == '\\':
			if i+1 < len(text) && text[i+1] > 0 && text[i+1] < 127 {
				i++
				out.WriteByte(text[i])
				continue
			}
			out.WriteByte(c)
		case c == '`':
			begin := i
			fence := strings.HasPrefix(text[i:], "```")
			if fence {
				i += 3
				for i < len(text) && text[i] != '\n' && text[i] != '`' {
					i++ // the language name
				}
			} else {
				i++
			}
			closed := false
			for ; i < len(text); i++ {
				if text[i] == '\\' && i+1 < len(text) && (text[i+1] == '`' || text[i+1] == '\\') {
					i++
					out.WriteByte(text[i])
					continue
				}
				if fence && strings.HasPrefix(text[i:], "```") {
					i += 2
					closed = true
					break
				}
				if !fence && text[i] == '`' {
					closed = true
					break
				}
				out.WriteByte(text[i])
			}
			if !closed {
				name := "Code"
				if fence {
					name = "Pre"
				}
				return "", fmt.Errorf("Can't find end of %s entity at byte offset %d", name, begin)
			}
		case c == '*':
			toggle("Bold", i)
		case c == '_':
			if strings.HasPrefix(text[i:], "__") {
				toggle("Underline", i)
				i++
				continue
			}
			toggle("Italic", i)
		case c == '~':
			toggle("Strikethrough", i)
		case c == '|' && strings.HasPrefix(text[i:], "||"):
			toggle("Spoiler", i)
			i++
		case c == '[' && inLink < 0:
			inLink = i
		case c == ']' && inLink >= 0:
			if !strings.HasPrefix(text[i:], "](") {
				return "", fmt.Errorf("Can't find end of TextUrl entity at byte offset %d", inLink)
			}
			// In the URL only ')' and '\' must be escaped.
			j := i + 2
			for j < len(text) && text[j] != ')' {
				if text[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(text) {
				return "", fmt.Errorf("Can't find end of a URL at byte offset %d", i+1)
			}
			i = j
			inLink = -1
		case c == '>' && startOfLine:
			// a block quotation line
		case strings.IndexByte("_*[]()~`>#+-=|{}.!", c) >= 0:
			return "", fmt.Errorf("Character '%c' is reserved and must be escaped with the preceding '\\'", c)
		default:
			out.WriteByte(c)
		}
	}
	if inLink >= 0 {
		return "", fmt.Errorf("Can't find end of TextUrl entity at byte offset %d", inLink)
	}
	if len(open) > 0 {
		return "", fmt.Errorf("Can't find end of %s entity at byte offset %d", open[0].name, open[0].pos)
	}
	return out.String(), nil
}

// parseMarkdownV1 returns the visible text of a legacy Markdown message.
func parseMarkdownV1(text string) (string, error) {
	var out strings.Builder
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch c {
		case '\\':
			if i+1 < len(text) && strings.IndexByte("_*`[", text[i+1]) >= 0 {
				i++
			}
			out.WriteByte(text[i])
		case '*', '_', '`':
			delim := string(c)
			if c == '`' && strings.HasPrefix(text[i:], "```") {
				delim = "```"
			}
			end := strings.Index(text[i+len(delim):], delim)
			if end < 0 {
				return "", fmt.Errorf("Can't find end of the entity starting at byte offset %d", i)
			}
			out.WriteString(text[i+len(delim) : i+len(delim)+end])
			i += len(delim) + end + len(delim) - 1
		case '[':
			close := strings.Index(text[i:], "](")
			end := strings.IndexByte(text[i:], ')')
			if close < 0 || end < close {
				return "", fmt.Errorf("Can't find end of the entity starting at byte offset %d", i)
			}
			out.WriteString(text[i+1 : i+close])
			i += end
		default:
			out.WriteByte(c)
		}
	}
	return out.String(), nil
}
