package matrix

import (
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// TestVoteRules pins what Frontend.vote counts on a multiple-choice poll:
// each sender's latest vote, not an older one paged in late, nothing sent
// after the poll ended, nothing on another poll or a closed request.
func TestVoteRules(t *testing.T) {
	f, st := offline(t)
	t0 := time.UnixMilli(1_700_000_000_000)
	for key, v := range map[string]any{
		keyRequest + "$m":      requestRecord{Key: "que_m", Multi: true, Polls: []pollRef{{ID: "$p"}}},
		keyEvent + "$p":        eventRecord{Msg: "$m", Poll: true, Multi: true, Ended: t0.Add(10 * time.Second).UnixMilli()},
		keyRequest + "$closed": requestRecord{Key: "que_c", Multi: true, Closed: true},
		keyEvent + "$cp":       eventRecord{Msg: "$closed", Poll: true, Multi: true},
	} {
		if err := f.put(key, v); err != nil {
			t.Fatal(err)
		}
	}
	vote := func(poll, sender string, at int, answers ...string) {
		t.Helper()
		ev := Event{Kind: KindVote, Poll: poll, Sender: sender, Time: t0.Add(time.Duration(at) * time.Second), Answers: answers}
		if err := f.vote(t.Context(), nil, zerolog.Nop(), ev); err != nil {
			t.Fatal(err)
		}
	}
	selection := func(poll, sender string) []string {
		var b ballotRecord
		if _, err := f.get(keyVote+poll+"/"+sender, &b); err != nil {
			t.Fatal(err)
		}
		return b.Answers
	}
	vote("$p", "@a:x", 1, "red")
	vote("$p", "@a:x", 3, "blue") // latest counts
	vote("$p", "@a:x", 2, "red")  // older, paged in late
	vote("$p", "@a:x", 11, "red") // after the end
	vote("$p", "@b:x", 4, "red")
	vote("$p", "@b:x", 9)         // sent before the end: withdrawn
	vote("$q", "@a:x", 5, "red")  // not a request's poll
	vote("$cp", "@a:x", 5, "red") // a closed request's
	if got := selection("$p", "@a:x"); !slices.Equal(got, []string{"blue"}) {
		t.Errorf("@a:x's selection %q, want blue", got)
	}
	if got := selection("$p", "@b:x"); len(got) != 0 {
		t.Errorf("@b:x's selection %q, want none", got)
	}
	if got := selection("$cp", "@a:x"); len(got) != 0 {
		t.Errorf("a vote on a closed request was kept: %q", got)
	}
	if _, ok, _ := st.Get(keyVote + "$q/@a:x"); ok {
		t.Error("a vote on another poll was kept")
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
