package telegramtest

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Entity is one formatting entity of a message, as the Bot API reports it.
// Offset and Length count UTF-16 code units of the plain text.
type Entity struct {
	Type          string `json:"type"`
	Offset        int    `json:"offset"`
	Length        int    `json:"length"`
	URL           string `json:"url,omitempty"`
	Language      string `json:"language,omitempty"`
	CustomEmojiID string `json:"custom_emoji_id,omitempty"`
}

// ParseHTML parses text as Telegram parses parse_mode=HTML and returns the
// visible text and its entities. The error text is the reason Telegram gives
// after "Bad Request: can't parse entities: ".
//
// The tag grammar is a port of tdlib's parse_html (td/telegram/MessageEntity.cpp),
// so tag names, attributes, nesting and the error messages match Telegram's.
// One rule is stricter than Telegram: an '&' must start one of &lt; &gt; &amp;
// &quot; or a numeric reference, each ended by ';'. Telegram keeps a stray '&'
// as text, but a stray '&' in a bot's output means something was not escaped,
// and the next message with a '<' in the same place would be rejected.
func ParseHTML(text string) (plain string, entities []Entity, err error) {
	if !utf8.ValidString(text) {
		return "", nil, errors.New("text must be encoded in UTF-8")
	}
	at := func(i int) byte {
		if i < len(text) {
			return text[i]
		}
		return 0
	}
	type openTag struct {
		name     string
		argument string
		offset   int // UTF-16 offset in the output
		begin    int // byte offset in the output
	}
	var (
		out    strings.Builder
		units  int
		nested []openTag
	)
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == '&' {
			r, n, err := decodeHTMLEntity(text, i)
			if err != nil {
				return "", nil, err
			}
			out.WriteRune(r)
			units += utf16.RuneLen(r)
			i += n - 1
			continue
		}
		if c != '<' {
			if c&0xC0 != 0x80 { // first byte of a UTF-8 sequence
				units++
				if c >= 0xF0 { // four bytes: a surrogate pair in UTF-16
					units++
				}
			}
			out.WriteByte(c)
			continue
		}

		begin := i
		i++
		if at(i) != '/' {
			for !isHTMLSpace(at(i)) && at(i) != '>' {
				i++
			}
			if i >= len(text) {
				return "", nil, fmt.Errorf("Unclosed start tag at byte offset %d", begin)
			}
			name := strings.ToLower(text[begin+1 : i])
			if !supportedTags[name] {
				return "", nil, fmt.Errorf("Unsupported start tag %q at byte offset %d", name, begin)
			}
			argument := ""
			for at(i) != '>' {
				for i < len(text) && isHTMLSpace(at(i)) {
					i++
				}
				if at(i) == '>' {
					break
				}
				attrBegin := i
				for !isHTMLSpace(at(i)) && at(i) != '=' && at(i) != '>' && at(i) != '/' && at(i) != '"' && at(i) != '\'' {
					i++
				}
				attr := text[attrBegin:i]
				if attr == "" {
					return "", nil, fmt.Errorf("Empty attribute name in the tag %q at byte offset %d", name, begin)
				}
				for i < len(text) && isHTMLSpace(at(i)) {
					i++
				}
				if at(i) != '=' {
					if i >= len(text) {
						return "", nil, fmt.Errorf("Unclosed start tag %q at byte offset %d", name, begin)
					}
					if name == "blockquote" && attr == "expandable" {
						argument = "1"
					}
					continue
				}
				i++
				for i < len(text) && isHTMLSpace(at(i)) {
					i++
				}
				if i >= len(text) {
					return "", nil, fmt.Errorf("Unclosed start tag %q at byte offset %d", name, begin)
				}
				var value string
				if q := at(i); q != '\'' && q != '"' {
					// A name token: letters, digits, periods and hyphens, case-insensitive.
					tokenBegin := i
					for isASCIIAlnum(at(i)) || at(i) == '.' || at(i) == '-' {
						i++
					}
					value = strings.ToLower(text[tokenBegin:i])
					if !isHTMLSpace(at(i)) && at(i) != '>' {
						return "", nil, fmt.Errorf("Unexpected end of name token at byte offset %d", tokenBegin)
					}
				} else {
					i++
					var v strings.Builder
					for i < len(text) && at(i) != q {
						if at(i) == '&' {
							r, n, err := decodeHTMLEntity(text, i)
							if err != nil {
								return "", nil, err
							}
							v.WriteRune(r)
							i += n
							continue
						}
						v.WriteByte(at(i))
						i++
					}
					if at(i) == q {
						i++
					}
					value = v.String()
				}
				if i >= len(text) {
					return "", nil, fmt.Errorf("Unclosed start tag at byte offset %d", begin)
				}
				switch {
				case name == "a" && attr == "href":
					argument = value
				case name == "code" && attr == "class" && strings.HasPrefix(value, "language-"):
					argument = value[len("language-"):]
				case name == "span" && attr == "class" && strings.HasPrefix(value, "tg-"):
					argument = value[len("tg-"):]
				case name == "tg-emoji" && attr == "emoji-id":
					argument = value
				case name == "blockquote" && attr == "expandable":
					argument = "1"
				}
			}
			if name == "span" && argument != "spoiler" {
				return "", nil, fmt.Errorf("Tag \"span\" must have class \"tg-spoiler\" at byte offset %d", begin)
			}
			nested = append(nested, openTag{name: name, argument: argument, offset: units, begin: out.Len()})
			continue
		}

		// An end tag.
		if len(nested) == 0 {
			return "", nil, fmt.Errorf("Unexpected end tag at byte offset %d", begin)
		}
		for !isHTMLSpace(at(i)) && at(i) != '>' {
			i++
		}
		endName := strings.ToLower(text[begin+2 : i])
		for i < len(text) && isHTMLSpace(at(i)) {
			i++
		}
		if at(i) != '>' {
			return "", nil, fmt.Errorf("Unclosed end tag at byte offset %d", begin)
		}
		top := nested[len(nested)-1]
		nested = nested[:len(nested)-1]
		if endName != "" && endName != top.name {
			return "", nil, fmt.Errorf("Unmatched end tag at byte offset %d, expected \"</%s>\", found \"</%s>\"", begin, top.name, endName)
		}
		if units <= top.offset {
			continue // empty entities are dropped
		}
		e := Entity{Offset: top.offset, Length: units - top.offset}
		switch top.name {
		case "i", "em":
			e.Type = "italic"
		case "b", "strong":
			e.Type = "bold"
		case "s", "strike", "del":
			e.Type = "strikethrough"
		case "u", "ins":
			e.Type = "underline"
		case "tg-spoiler", "span":
			e.Type = "spoiler"
		case "tg-emoji":
			id, err := strconv.ParseInt(top.argument, 10, 64)
			if err != nil || id == 0 {
				return "", nil, errors.New("Invalid custom emoji identifier specified")
			}
			e.Type, e.CustomEmojiID = "custom_emoji", top.argument
		case "a":
			url := top.argument
			if url == "" {
				url = out.String()[top.begin:]
			}
			if strings.TrimSpace(url) == "" {
				continue // Telegram drops links it cannot use
			}
			e.Type, e.URL = "text_link", url
		case "pre":
			if n := len(entities); n > 0 && entities[n-1].Type == "code" && entities[n-1].Offset == e.Offset &&
				entities[n-1].Length == e.Length && entities[n-1].Language != "" {
				entities[n-1].Type = "pre"
				continue
			}
			e.Type = "pre"
		case "code":
			if n := len(entities); n > 0 && entities[n-1].Type == "pre" && entities[n-1].Offset == e.Offset &&
				entities[n-1].Length == e.Length && top.argument != "" {
				entities[n-1].Language = top.argument
				continue
			}
			e.Type, e.Language = "code", top.argument
		case "blockquote":
			e.Type = "blockquote"
			if top.argument != "" {
				e.Type = "expandable_blockquote"
			}
		}
		entities = append(entities, e)
	}
	if len(nested) > 0 {
		return "", nil, fmt.Errorf("Can't find end tag corresponding to start tag %q", nested[len(nested)-1].name)
	}
	for i := range entities {
		if entities[i].Type == "code" {
			entities[i].Language = "" // only <pre><code class=…> keeps a language
		}
	}
	sort.SliceStable(entities, func(a, b int) bool {
		ea, eb := entities[a], entities[b]
		if ea.Offset != eb.Offset {
			return ea.Offset < eb.Offset
		}
		if ea.Length != eb.Length {
			return ea.Length > eb.Length
		}
		return entityPriority[ea.Type] < entityPriority[eb.Type]
	})
	return out.String(), entities, nil
}

var supportedTags = map[string]bool{
	"a": true, "b": true, "strong": true, "i": true, "em": true, "s": true, "strike": true, "del": true,
	"u": true, "ins": true, "tg-spoiler": true, "tg-emoji": true, "span": true, "pre": true, "code": true,
	"blockquote": true,
}

// entityPriority orders entities that share a range, as tdlib's sort_entities does.
var entityPriority = map[string]int{
	"blockquote": 0, "expandable_blockquote": 0, "pre": 11, "code": 20, "text_link": 49,
	"bold": 90, "italic": 91, "underline": 92, "strikethrough": 93, "spoiler": 94, "custom_emoji": 99,
}

// decodeHTMLEntity decodes the character reference at text[pos] (an '&') and
// returns the character and the number of bytes it took.
func decodeHTMLEntity(text string, pos int) (rune, int, error) {
	end := pos + 1
	var code int64
	numeric := end < len(text) && text[end] == '#'
	if numeric {
		end++
		hex := end < len(text) && text[end] == 'x'
		if hex {
			end++
		}
		digitsBegin := end
		for end < len(text) && (isDigit(text[end]) || hex && isHexDigit(text[end])) {
			end++
		}
		if end-pos >= 10 || end == digitsBegin {
			return 0, 0, unescapedAmpersand(text, pos)
		}
		base := 10
		if hex {
			base = 16
		}
		code, _ = strconv.ParseInt(text[digitsBegin:end], base, 64)
		if code == 0 || code >= 0x10FFFF {
			return 0, 0, unescapedAmpersand(text, pos)
		}
		if code >= 0xD800 && code <= 0xDFFF {
			return 0, 0, errors.New("Text contains invalid Unicode characters after decoding HTML entities, check for unmatched surrogate code units")
		}
	} else {
		for end < len(text) && isASCIIAlpha(text[end]) {
			end++
		}
		switch text[pos+1 : end] {
		case "lt":
			code = '<'
		case "gt":
			code = '>'
		case "amp":
			code = '&'
		case "quot":
			code = '"'
		default:
			if end == pos+1 || end >= len(text) || text[end] != ';' {
				return 0, 0, unescapedAmpersand(text, pos)
			}
			return 0, 0, fmt.Errorf("Unsupported HTML entity %q at byte offset %d (only &lt; &gt; &amp; &quot; and numeric references are known)", text[pos:end+1], pos)
		}
	}
	if end >= len(text) || text[end] != ';' {
		return 0, 0, unescapedAmpersand(text, pos)
	}
	return rune(code), end + 1 - pos, nil
}

func unescapedAmpersand(text string, pos int) error {
	return fmt.Errorf("Unescaped \"&\" at byte offset %d: write it as &amp; (telegramtest is stricter than Telegram here)", pos)
}

// isHTMLSpace matches tdlib's is_space, which also counts NUL, so scanning
// stops at the end of the text.
func isHTMLSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == 0 || c == '\v'
}

func isDigit(c byte) bool      { return '0' <= c && c <= '9' }
func isHexDigit(c byte) bool   { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }
func isASCIIAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isASCIIAlnum(c byte) bool { return isDigit(c) || isASCIIAlpha(c) }

// UTF16Len returns the length of s in UTF-16 code units, the unit Telegram
// counts text limits and entity offsets in.
func UTF16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
