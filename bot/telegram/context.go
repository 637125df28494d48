package telegram

import (
	"slices"
	"strings"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
)

const (
	// maxContext bounds the quote of what the agent did before asking, in
	// UTF-16 units once escaped: the question keeps most of the message.
	maxContext = 700
	// maxContextLine bounds one line of it.
	maxContextLine = 240
)

// contextBlock is the quote of what the agent wrote (italic) and the
// tools it called before asking, shown above the request; "" when there
// is none. The newest lines are kept when not all fit.
func contextBlock(e *frontend.View) string {
	var lines []string
	used := 0
	for _, l := range slices.Backward(e.Context) {
		s := esc(l.Short(), maxContextLine)
		if s == "" {
			continue
		}
		if l.Tool == "" {
			s = "<i>" + s + "</i>"
		}
		if used+u16len(s)+1 > maxContext {
			break
		}
		used += u16len(s) + 1
		lines = append(lines, s)
	}
	if len(lines) == 0 {
		return ""
	}
	slices.Reverse(lines)
	return "\n<blockquote>" + strings.Join(lines, "\n") + "</blockquote>"
}
