package webview

import (
	"testing"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
)

func TestRenderText(t *testing.T) {
	cases := []struct {
		name, html, want string
	}{
		{"plain text is escaped", `a &lt; b &amp;&amp; c &gt; "d"`, `a &lt; b &amp;&amp; c &gt; &#34;d&#34;`},
		{"a tag in the text stays text", `<b>&lt;script&gt;alert(1)&lt;/script&gt;</b>`, `<b>&lt;script&gt;alert(1)&lt;/script&gt;</b>`},
		{"nested", `<b>bold <i>both</i></b> none`, `<b>bold <i>both</i></b> none`},
		{"code and pre", `<code>x&lt;y</code> <pre><code class="language-go">fmt.Println()</code></pre>`,
			`<code>x&lt;y</code> <pre data-language="go">fmt.Println()</pre>`},
		{"a link", `<a href="https://t.me/c/1/2?a=1&amp;b=2">open</a>`,
			`<a href="https://t.me/c/1/2?a=1&amp;b=2" rel="noopener noreferrer" target="_blank">open</a>`},
		{"offsets count UTF-16 units", `👍 <b>ok</b> ✅ <i>fine</i>`, `👍 <b>ok</b> ✅ <i>fine</i>`},
		{"underline, strike, spoiler, quote", `<u>u</u><s>s</s><tg-spoiler>x</tg-spoiler><blockquote>q</blockquote>`,
			`<u>u</u><s>s</s><span class="spoiler">x</span><blockquote>q</blockquote>`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plain, ents, err := telegramtest.ParseHTML(c.html)
			if err != nil {
				t.Fatalf("ParseHTML(%q): %v", c.html, err)
			}
			if got := string(renderText(plain, ents)); got != c.want {
				t.Errorf("render %q\n got %s\nwant %s", c.html, got, c.want)
			}
		})
	}
}

// TestRenderTextEntitiesTheParserWouldNotMake: entities come from outside
// the page; whatever they are, the result is well-formed and escaped.
func TestRenderTextEntitiesTheParserWouldNotMake(t *testing.T) {
	cases := []struct {
		name  string
		plain string
		ents  []telegramtest.Entity
		want  string
	}{
		{"crossing", "abcdef", []telegramtest.Entity{{Type: "bold", Offset: 0, Length: 4}, {Type: "italic", Offset: 2, Length: 4}},
			"<b>ab<i>cd</i></b><i>ef</i>"},
		{"a script link", "tap", []telegramtest.Entity{{Type: "text_link", Offset: 0, Length: 3, URL: "javascript:alert(1)"}},
			`<span class="link">tap</span>`},
		{"a url entity over a script", "javascript:x", []telegramtest.Entity{{Type: "url", Offset: 0, Length: 12}},
			`<span class="link">javascript:x</span>`},
		{"past the end", "ab", []telegramtest.Entity{{Type: "bold", Offset: 1, Length: 5}}, "ab"},
		{"empty", "ab", []telegramtest.Entity{{Type: "bold", Offset: 1, Length: 0}}, "ab"},
		{"a type to escape", "<x>", []telegramtest.Entity{{Type: `x" onclick="y`, Offset: 0, Length: 3}},
			`<span class="x&#34; onclick=&#34;y">&lt;x&gt;</span>`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := string(renderText(c.plain, c.ents)); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}
