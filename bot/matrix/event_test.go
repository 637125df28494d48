package matrix

import (
	"errors"
	"slices"
	"testing"
	"time"
)

const room = "!r:x"

func TestDecode(t *testing.T) {
	for _, c := range []struct {
		name string
		raw  string
		want Event
	}{{
		name: "text",
		raw:  `{"type":"m.room.message","event_id":"$1","sender":"@a:x","origin_server_ts":1700000000000,"content":{"msgtype":"m.text","body":"hi"}}`,
		want: Event{Kind: KindText, Text: "hi"},
	}, {
		name: "reply with both fallbacks",
		raw: `{"type":"m.room.message","event_id":"$1","sender":"@a:x","content":{"msgtype":"m.text",
			"body":"> <@hermes:x> Which file?\n> the second line\n\nmain.go\nand more",
			"format":"org.matrix.custom.html",
			"formatted_body":"<mx-reply><blockquote><a href=\"https://matrix.to/#/!r:x/$q\">In reply to</a> Which <b>file</b>?</blockquote></mx-reply>main.go<br>and more",
			"m.relates_to":{"m.in_reply_to":{"event_id":"$q"}}}}`,
		want: Event{Kind: KindText, Text: "main.go\nand more", HTML: "main.go<br>and more", ReplyTo: "$q"},
	}, {
		name: "reply without fallback keeps a quote the person typed",
		raw: `{"type":"m.room.message","event_id":"$1","sender":"@a:x","content":{"msgtype":"m.text","body":"yes",
			"m.relates_to":{"m.in_reply_to":{"event_id":"$q"}}}}`,
		want: Event{Kind: KindText, Text: "yes", ReplyTo: "$q"},
	}, {
		name: "a quote in a message that is no reply stays",
		raw:  `{"type":"m.room.message","event_id":"$1","sender":"@a:x","content":{"msgtype":"m.text","body":"> quoted\n\nmine"}}`,
		want: Event{Kind: KindText, Text: "> quoted\n\nmine"},
	}, {
		name: "thread message, reply only falling back",
		raw: `{"type":"m.room.message","event_id":"$1","sender":"@a:x","content":{"msgtype":"m.text","body":"in thread",
			"m.relates_to":{"rel_type":"m.thread","event_id":"$root","is_falling_back":true,"m.in_reply_to":{"event_id":"$prev"}}}}`,
		want: Event{Kind: KindText, Text: "in thread", Thread: "$root"},
	}, {
		name: "edit",
		raw: `{"type":"m.room.message","event_id":"$2","sender":"@a:x","content":{"msgtype":"m.text","body":"* fixed",
			"m.new_content":{"msgtype":"m.text","body":"fixed"},"m.relates_to":{"rel_type":"m.replace","event_id":"$1"}}}`,
		want: Event{Kind: KindText, Text: "fixed", Replaces: "$1", ID: "$2"},
	}, {
		name: "command",
		raw:  `{"type":"m.room.message","event_id":"$1","sender":"@a:x","content":{"msgtype":"m.text","body":"/Status  now "}}`,
		want: Event{Kind: KindCommand, Text: "/Status  now ", Command: "status", Args: "now"},
	}, {
		name: "command with !",
		raw:  `{"type":"m.room.message","event_id":"$1","sender":"@a:x","content":{"msgtype":"m.text","body":"!pending"}}`,
		want: Event{Kind: KindCommand, Text: "!pending", Command: "pending"},
	}, {
		name: "unstable vote",
		raw: `{"type":"org.matrix.msc3381.poll.response","event_id":"$1","sender":"@a:x","content":{
			"m.relates_to":{"rel_type":"m.reference","event_id":"$p"},"org.matrix.msc3381.poll.response":{"answers":["b"]}}}`,
		want: Event{Kind: KindVote, Poll: "$p", Answers: []string{"b"}},
	}, {
		name: "stable vote, m.selections",
		raw: `{"type":"m.poll.response","event_id":"$1","sender":"@a:x","content":{
			"m.relates_to":{"rel_type":"m.reference","event_id":"$p"},"m.selections":["a","c"]}}`,
		want: Event{Kind: KindVote, Poll: "$p", Answers: []string{"a", "c"}},
	}, {
		name: "stable vote, js-sdk shape",
		raw: `{"type":"m.poll.response","event_id":"$1","sender":"@a:x","content":{
			"m.relates_to":{"rel_type":"m.reference","event_id":"$p"},"m.poll.response":{"answers":["a"]}}}`,
		want: Event{Kind: KindVote, Poll: "$p", Answers: []string{"a"}},
	}, {
		name: "withdrawn vote",
		raw: `{"type":"org.matrix.msc3381.poll.response","event_id":"$1","sender":"@a:x","content":{
			"m.relates_to":{"rel_type":"m.reference","event_id":"$p"},"org.matrix.msc3381.poll.response":{"answers":[]}}}`,
		want: Event{Kind: KindVote, Poll: "$p", Answers: []string{}},
	}, {
		name: "reaction",
		raw: `{"type":"m.reaction","event_id":"$1","sender":"@a:x","content":{
			"m.relates_to":{"rel_type":"m.annotation","event_id":"$p","key":"✅️"}}}`,
		want: Event{Kind: KindReaction, Target: "$p", Key: "✅\uFE0F"},
	}} {
		t.Run(c.name, func(t *testing.T) {
			got, ok, err := Decode(room, []byte(c.raw))
			if err != nil || !ok {
				t.Fatalf("Decode: ok %v, %v", ok, err)
			}
			want := c.want
			if want.ID == "" {
				want.ID = "$1"
			}
			want.Sender, want.Room = "@a:x", room
			got.Time = time.Time{}
			if got.Kind != want.Kind || got.ID != want.ID || got.Sender != want.Sender || got.Room != want.Room ||
				got.Text != want.Text || got.HTML != want.HTML || got.ReplyTo != want.ReplyTo || got.Thread != want.Thread ||
				got.Replaces != want.Replaces || got.Command != want.Command || got.Args != want.Args ||
				got.Poll != want.Poll || !slices.Equal(got.Answers, want.Answers) || got.Target != want.Target || got.Key != want.Key {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
			if (want.Answers == nil) != (got.Answers == nil) {
				t.Errorf("answers %#v, want %#v", got.Answers, want.Answers)
			}
		})
	}
}

func TestDecodeTime(t *testing.T) {
	ev, _, err := Decode(room, []byte(`{"type":"m.room.message","event_id":"$1","sender":"@a:x","origin_server_ts":1700000000123,"content":{"msgtype":"m.text","body":"hi"}}`))
	if err != nil || !ev.Time.Equal(time.UnixMilli(1700000000123)) {
		t.Errorf("time %v, %v", ev.Time, err)
	}
}

func TestDecodeIgnores(t *testing.T) {
	for name, raw := range map[string]string{
		"state":     `{"type":"m.room.member","state_key":"@a:x","event_id":"$1","sender":"@a:x","content":{"membership":"join"}}`,
		"notice":    `{"type":"m.room.message","event_id":"$1","sender":"@a:x","content":{"msgtype":"m.notice","body":"bot"}}`,
		"image":     `{"type":"m.room.message","event_id":"$1","sender":"@a:x","content":{"msgtype":"m.image","body":"a.png"}}`,
		"redacted":  `{"type":"m.room.message","event_id":"$1","sender":"@a:x","content":{}}`,
		"poll end":  `{"type":"org.matrix.msc3381.poll.end","event_id":"$1","sender":"@a:x","content":{}}`,
		"redaction": `{"type":"m.room.redaction","event_id":"$1","sender":"@a:x","redacts":"$0","content":{}}`,
	} {
		if ev, ok, err := Decode(room, []byte(raw)); ok || err != nil {
			t.Errorf("%s: got %+v, %v, %v; want it ignored", name, ev, ok, err)
		}
	}
}

func TestDecodeMalformed(t *testing.T) {
	for name, raw := range map[string]string{
		"not JSON":        `{"type":`,
		"no sender":       `{"type":"m.room.message","event_id":"$1","content":{"msgtype":"m.text","body":"x"}}`,
		"body not text":   `{"type":"m.room.message","event_id":"$1","sender":"@a:x","content":{"msgtype":"m.text","body":5}}`,
		"vote no poll":    `{"type":"org.matrix.msc3381.poll.response","event_id":"$1","sender":"@a:x","content":{"org.matrix.msc3381.poll.response":{"answers":["a"]}}}`,
		"vote no answers": `{"type":"m.poll.response","event_id":"$1","sender":"@a:x","content":{"m.relates_to":{"rel_type":"m.reference","event_id":"$p"}}}`,
		"reaction no key": `{"type":"m.reaction","event_id":"$1","sender":"@a:x","content":{"m.relates_to":{"rel_type":"m.annotation","event_id":"$p"}}}`,
	} {
		if _, ok, err := Decode(room, []byte(raw)); ok || !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: ok %v, err %v; want ErrMalformed", name, ok, err)
		}
	}
}

func TestParseCommand(t *testing.T) {
	for text, want := range map[string][2]string{
		"/pending":         {"pending", ""},
		" //status x ":     {"status", "x"},
		"!help me\nplease": {"help", "me\nplease"},
	} {
		name, args, ok := ParseCommand(text)
		if !ok || name != want[0] || args != want[1] {
			t.Errorf("ParseCommand(%q) = %q %q %v", text, name, args, ok)
		}
	}
	for _, text := range []string{"pending", "/", "/ pending", "/1x", "a /pending", "///pending"} {
		if name, _, ok := ParseCommand(text); ok {
			t.Errorf("ParseCommand(%q) = %q, want no command", text, name)
		}
	}
}

func TestStripReplyFallback(t *testing.T) {
	for in, want := range map[string]string{
		"> <@a:x> q\n\nanswer":     "answer",
		"> <@a:x> q\n> more\nans":  "ans",
		"answer":                   "answer",
		"> only a quote":           "",
		"> <@a:x> q\n\n> kept\nok": "> kept\nok",
	} {
		if got := StripReplyFallback(in); got != want {
			t.Errorf("StripReplyFallback(%q) = %q, want %q", in, got, want)
		}
	}
	if got := StripHTMLReplyFallback("<mx-reply><blockquote>q\n</blockquote></mx-reply><p>a</p>"); got != "<p>a</p>" {
		t.Errorf("StripHTMLReplyFallback = %q", got)
	}
	if got := StripHTMLReplyFallback("<p>a</p><mx-reply>x</mx-reply>"); got != "<p>a</p><mx-reply>x</mx-reply>" {
		t.Errorf("an mx-reply not at the head was taken out: %q", got)
	}
}
