package matrix

import "strings"

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
