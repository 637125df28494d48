package opencode

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// lastMessages is how many of a session's latest messages
// LastAssistantText reads: enough to get past the user's last prompt and a
// few tool-only steps, small enough that a long session costs little.
const lastMessages = 10

// messageWithParts is one element of GET /session/{id}/message: the
// message's info and its parts. Only what LastAssistantText needs is
// decoded.
type messageWithParts struct {
	Info struct {
		ID   string `json:"id"`
		Role string `json:"role"`
		Time struct {
			Created int64 `json:"created"`
		} `json:"time"`
	} `json:"info"`
	Parts []struct {
		Type      string `json:"type"`
		Text      string `json:"text"`
		Synthetic bool   `json:"synthetic,omitempty"`
		Ignored   bool   `json:"ignored,omitempty"`
	} `json:"parts"`
}

// LastAssistantText returns the text of the latest assistant message of
// session sessionID in directory dir that has any: its text parts joined
// by blank lines, synthetic and ignored parts left out. It is "" with a
// nil error when the latest messages hold no assistant text (a session
// that only ran tools, say), and always on OpenCode 2.
func (c *Client) LastAssistantText(ctx context.Context, dir, sessionID string) (string, error) {
	if sessionID == "" {
		return "", fmt.Errorf("last assistant text: empty session ID: %w", ErrNotAccepted)
	}
	if c.Generation() == 2 {
		return "", nil // no message route of OpenCode 2 is known yet
	}
	q := url.Values{"limit": {strconv.Itoa(lastMessages)}}
	maps.Copy(q, dirQuery(dir))
	var msgs []messageWithParts
	op := "list messages of session " + sessionID
	if err := c.call(ctx, op, http.MethodGet, "/session/"+url.PathEscape(sessionID)+"/message", q, nil, &msgs); err != nil {
		return "", err
	}
	// The server lists oldest first; the creation time decides anyway,
	// so the answer does not rest on that order.
	best, bestAt := "", int64(-1)
	for _, m := range msgs {
		if m.Info.Role != "assistant" || m.Info.Time.Created < bestAt {
			continue
		}
		var texts []string
		for _, p := range m.Parts {
			if p.Type != "text" || p.Synthetic || p.Ignored {
				continue
			}
			if t := strings.TrimSpace(p.Text); t != "" {
				texts = append(texts, t)
			}
		}
		if len(texts) > 0 {
			best, bestAt = strings.Join(texts, "\n\n"), m.Info.Time.Created
		}
	}
	return best, nil
}
