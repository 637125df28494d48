package telegramtest_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
)

func TestParseHTMLAccepts(t *testing.T) {
	type E = telegramtest.Entity
	tests := []struct {
		name     string
		in       string
		plain    string
		entities []E
	}{
		{"plain text", "hello world", "hello world", nil},
		{"bold", "<b>hi</b> there", "hi there", []E{{Type: "bold", Offset: 0, Length: 2}}},
		{"aliases and case", "<STRONG>a</STRONG><em>b</em><ins>c</ins><del>d</del>", "abcd", []E{
			{Type: "bold", Offset: 0, Length: 1}, {Type: "italic", Offset: 1, Length: 1},
			{Type: "underline", Offset: 2, Length: 1}, {Type: "strikethrough", Offset: 3, Length: 1},
		}},
		{"valid nesting", "<b>x <i>y</i></b>", "x y", []E{{Type: "bold", Offset: 0, Length: 3}, {Type: "italic", Offset: 2, Length: 1}}},
		{"named entities", "a &lt;b&gt; &amp; &quot;c&quot;", `a <b> & "c"`, nil},
		{"numeric entities", "&#65;&#x42;&#128512;", "AB😀", nil},
		{"link", `<a href="https://example.com/?a=1&amp;b=2">site</a>`, "site", []E{{Type: "text_link", Offset: 0, Length: 4, URL: "https://example.com/?a=1&b=2"}}},
		{"link with single quotes", `<a href='https://x.org'>x</a>`, "x", []E{{Type: "text_link", Offset: 0, Length: 1, URL: "https://x.org"}}},
		{"spoilers", `<tg-spoiler>a</tg-spoiler><span class="tg-spoiler">b</span>`, "ab", []E{{Type: "spoiler", Offset: 0, Length: 1}, {Type: "spoiler", Offset: 1, Length: 1}}},
		{"code and pre with language", `<code>x</code><pre><code class="language-go">y</code></pre>`, "xy", []E{{Type: "code", Offset: 0, Length: 1}, {Type: "pre", Offset: 1, Length: 1, Language: "go"}}},
		{"blockquotes", "<blockquote>q</blockquote><blockquote expandable>r</blockquote>", "qr", []E{{Type: "blockquote", Offset: 0, Length: 1}, {Type: "expandable_blockquote", Offset: 1, Length: 1}}},
		{"custom emoji", `<tg-emoji emoji-id="5368324170671202286">👍</tg-emoji>`, "👍", []E{{Type: "custom_emoji", Offset: 0, Length: 2, CustomEmojiID: "5368324170671202286"}}},
		{"offsets count UTF-16", "😀<b>é</b>", "😀é", []E{{Type: "bold", Offset: 2, Length: 1}}},
		{"empty element dropped", "<b></b>x", "x", nil},
		{"anonymous end tag", "<b>x</>", "x", []E{{Type: "bold", Offset: 0, Length: 1}}},
		{"unknown attribute ignored", `<b class="x">y</b>`, "y", []E{{Type: "bold", Offset: 0, Length: 1}}},
		{"greater-than needs no escape", "a > b", "a > b", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plain, entities, err := telegramtest.ParseHTML(tt.in)
			if err != nil {
				t.Fatalf("ParseHTML(%q) error: %v", tt.in, err)
			}
			if plain != tt.plain {
				t.Errorf("plain = %q, want %q", plain, tt.plain)
			}
			if !reflect.DeepEqual(entities, tt.entities) {
				t.Errorf("entities = %+v, want %+v", entities, tt.entities)
			}
		})
	}
}

func TestParseHTMLRejects(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // the exact reason, or a prefix ending in "…"
	}{
		{"unclosed tag", "<b>bold", `Can't find end tag corresponding to start tag "b"`},
		{"bad nesting", "<b><i>x</b></i>", `Unmatched end tag at byte offset 7, expected "</i>", found "</b>"`},
		{"unknown tag", "hello <foo>x</foo>", `Unsupported start tag "foo" at byte offset 6`},
		{"bare less-than", "if a < b", `Unsupported start tag "" at byte offset 5`},
		{"less-than before a letter", "a<b c", `Unclosed start tag "b" at byte offset 1`},
		{"tag left open", "a<b>c", `Can't find end tag corresponding to start tag "b"`},
		{"unexpected end tag", "text</b>", "Unexpected end tag at byte offset 4"},
		{"unclosed start tag", "x <b", "Unclosed start tag at byte offset 2"},
		{"unclosed end tag", "<b>x</b", "Unclosed end tag at byte offset 4"},
		{"span without spoiler class", `<span class="x">y</span>`, `Tag "span" must have class "tg-spoiler" at byte offset 0`},
		{"bad custom emoji id", `<tg-emoji emoji-id="abc">x</tg-emoji>`, "Invalid custom emoji identifier specified"},
		{"bare ampersand", "AT&T", `Unescaped "&" at byte offset 2…`},
		{"ampersand without semicolon", "&lt b", `Unescaped "&" at byte offset 0…`},
		{"nbsp", "a&nbsp;b", `Unsupported HTML entity "&nbsp;" at byte offset 1…`},
		{"bare ampersand in href", `<a href="https://x.org/?a=1&b=2">x</a>`, `Unescaped "&" at byte offset 27…`},
		{"lone surrogate", "&#xD800;", "Text contains invalid Unicode characters after decoding HTML entities, check for unmatched surrogate code units"},
		{"invalid UTF-8", "a\xffb", "text must be encoded in UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := telegramtest.ParseHTML(tt.in)
			if err == nil {
				t.Fatalf("ParseHTML(%q) succeeded, want error %q", tt.in, tt.want)
			}
			if prefix, ok := strings.CutSuffix(tt.want, "…"); ok {
				if !strings.HasPrefix(err.Error(), prefix) {
					t.Errorf("error = %q, want prefix %q", err, prefix)
				}
			} else if err.Error() != tt.want {
				t.Errorf("error = %q, want %q", err, tt.want)
			}
		})
	}
}

func TestUTF16Len(t *testing.T) {
	for in, want := range map[string]int{"": 0, "abc": 3, "é": 1, "😀": 2, "a😀b": 4} {
		if got := telegramtest.UTF16Len(in); got != want {
			t.Errorf("UTF16Len(%q) = %d, want %d", in, got, want)
		}
	}
}
