package matrix

import (
	"slices"
	"testing"
	"time"
)

func TestTally(t *testing.T) {
	t0 := time.UnixMilli(1_700_000_000_000)
	vote := func(sender string, at int, answers ...string) Event {
		return Event{Kind: KindVote, Poll: "$p", Sender: sender, Time: t0.Add(time.Duration(at) * time.Second), Answers: answers}
	}
	tl := NewTally("$p", NewAllowList([]string{" @a:x ", "@b:x", ""}))
	for _, c := range []struct {
		ev    Event
		count bool
	}{
		{vote("@a:x", 1, "red"), true},
		{vote("@m:x", 2, "blue"), false},                                     // not allowed
		{vote("@a:x", 3, "blue"), true},                                      // latest counts
		{vote("@a:x", 2, "red"), false},                                      // older, paged in late
		{vote("@b:x", 4), true},                                              // empty: withdrawn
		{Event{Kind: KindVote, Poll: "$q", Sender: "@a:x", Time: t0}, false}, // another poll
		{Event{Kind: KindReaction, Sender: "@a:x", Target: "$p"}, false},
	} {
		if got := tl.Vote(c.ev); got != c.count {
			t.Errorf("Vote(%+v) = %v, want %v", c.ev, got, c.count)
		}
	}
	if got := tl.Selection("@a:x"); !slices.Equal(got, []string{"blue"}) {
		t.Errorf("selection %q", got)
	}
	tl.End(t0.Add(10 * time.Second))
	tl.End(t0.Add(20 * time.Second)) // only the first end counts
	if !tl.Ended() {
		t.Error("not ended")
	}
	if tl.Vote(vote("@a:x", 11, "red")) {
		t.Error("a vote after the end counted")
	}
	if !tl.Vote(vote("@b:x", 9, "red")) {
		t.Error("a vote sent before the end, arriving after it, did not count")
	}
	if n := tl.Counts(); n["blue"] != 1 || n["red"] != 1 || len(n) != 2 {
		t.Errorf("counts %v", n)
	}
}

func TestCheckKeys(t *testing.T) {
	for key, want := range map[string]bool{"\u2705": true, "\u2705\uFE0F": true, "\u2714\uFE0F": false, "👍": false, "": false} {
		if IsCheck(key) != want {
			t.Errorf("IsCheck(%q) = %v", key, !want)
		}
	}
	var rs Reactions
	ev := Event{Kind: KindReaction, Sender: "@a:x", Target: "$p", Key: "\u2705"}
	if !rs.First(ev) {
		t.Error("the first ✅ was not first")
	}
	ev.Key = "\u2705\uFE0F"
	if rs.First(ev) {
		t.Error("✅ with a variation selector after one without counted again")
	}
	ev.Target = "$other"
	if !rs.First(ev) {
		t.Error("✅ on another event was taken for a duplicate")
	}
	ev.Sender = "@b:x"
	if !rs.First(ev) {
		t.Error("another person's ✅ was taken for a duplicate")
	}
}

func TestTxnID(t *testing.T) {
	a, b := TxnID("q1", "poll"), TxnID("q1", "poll")
	if a != b || len(a) != 34 {
		t.Errorf("TxnID not stable: %q %q", a, b)
	}
	for _, other := range []string{TxnID("q1", "end"), TxnID("q1poll"), TxnID("q", "1poll"), TxnID("q1", "poll", "")} {
		if other == a {
			t.Errorf("different parts gave %q too", a)
		}
	}
}
