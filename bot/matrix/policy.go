package matrix

import (
	"slices"
	"strings"
	"time"
)

// The homeserver enforces nothing about polls or reactions: these are the
// rules a client applies itself.

// AllowList is the set of people whose votes, reactions and replies
// count.
type AllowList map[string]bool

// NewAllowList makes an AllowList of user IDs (@name:server).
func NewAllowList(userIDs []string) AllowList {
	a := make(AllowList, len(userIDs))
	for _, u := range userIDs {
		if u = strings.TrimSpace(u); u != "" {
			a[u] = true
		}
	}
	return a
}

// Allows reports whether userID is on the list.
func (a AllowList) Allows(userID string) bool { return a[userID] }

// variationSelector16 asks for the emoji form of the character before it;
// clients send ✅ with or without it.
const variationSelector16 = "\uFE0F"

// NormalizeKey is a reaction key without emoji variation selectors, so
// the two spellings of one emoji compare equal.
func NormalizeKey(key string) string { return strings.ReplaceAll(key, variationSelector16, "") }

// IsCheck reports whether a reaction key is ✅ (U+2705), in either
// spelling.
func IsCheck(key string) bool { return NormalizeKey(key) == "\u2705" }

// Tally counts the votes of one poll: only allowed senders count, each
// sender's latest vote (by origin time) replaces the earlier ones, and
// votes sent after the poll ended change nothing. Not safe for concurrent
// use.
type Tally struct {
	poll  string
	allow AllowList
	ended time.Time // zero while open
	votes map[string]ballot
}

type ballot struct {
	at      time.Time
	answers []string
}

// NewTally starts the tally of the poll whose start event is pollID.
func NewTally(pollID string, allow AllowList) *Tally {
	return &Tally{poll: pollID, allow: allow, votes: make(map[string]ballot)}
}

// Vote records ev and reports whether it counted: it must be a vote on
// this poll by an allowed sender, not after the end, and not older than
// the sender's vote counted already.
func (t *Tally) Vote(ev Event) bool {
	if ev.Kind != KindVote || ev.Poll != t.poll || !t.allow.Allows(ev.Sender) {
		return false
	}
	if !t.ended.IsZero() && ev.Time.After(t.ended) {
		return false
	}
	if prev, ok := t.votes[ev.Sender]; ok && ev.Time.Before(prev.at) {
		return false // a late arrival (paged in after a gap) of an older vote
	}
	t.votes[ev.Sender] = ballot{at: ev.Time, answers: slices.Clone(ev.Answers)}
	return true
}

// End closes the poll at at (the end event's origin time); votes sent
// later do not count. Only the first End counts.
func (t *Tally) End(at time.Time) {
	if t.ended.IsZero() {
		t.ended = at
	}
}

// Ended reports whether End was called.
func (t *Tally) Ended() bool { return !t.ended.IsZero() }

// Selection returns the answers sender chose in their counting vote, nil
// if none.
func (t *Tally) Selection(sender string) []string {
	return slices.Clone(t.votes[sender].answers)
}

// Counts returns how many counting votes chose each answer ID.
func (t *Tally) Counts() map[string]int {
	n := make(map[string]int)
	for _, b := range t.votes {
		for _, a := range b.answers {
			n[a]++
		}
	}
	return n
}

// Reactions remembers which reactions were seen, so a reaction delivered
// twice (a retry after a gap, two clients of one person) acts once. Not
// safe for concurrent use.
type Reactions struct {
	seen map[reactionKey]bool
}

type reactionKey struct{ sender, target, key string }

// First reports whether ev is the first reaction of its sender with its
// key (either spelling) on its target, and remembers it.
func (r *Reactions) First(ev Event) bool {
	if ev.Kind != KindReaction {
		return false
	}
	if r.seen == nil {
		r.seen = make(map[reactionKey]bool)
	}
	k := reactionKey{ev.Sender, ev.Target, NormalizeKey(ev.Key)}
	if r.seen[k] {
		return false
	}
	r.seen[k] = true
	return true
}
