package matrix

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"
)

// Handler acts on one event of the room. When it fails, Run stops the
// batch, waits, and fetches it again; events handled already in this
// process are not handed over twice. So it fails only when trying again
// may help (the store is unavailable), never for bad input.
type Handler func(ctx context.Context, ev Event) error

// SyncTimeout is the sync long poll's wait on the homeserver: with no
// event, a sync succeeds about this often.
const SyncTimeout = 30 * time.Second

// Sync tuning.
const (
	gapPageSize  = 100
	maxGapPages  = 50
	retryFirst   = time.Second
	retryMax     = 30 * time.Second
	recentEvents = 1024
)

type syncResponse struct {
	NextBatch string `json:"next_batch"`
	Rooms     struct {
		Join map[string]struct {
			Timeline struct {
				Events    []json.RawMessage `json:"events"`
				Limited   bool              `json:"limited"`
				PrevBatch string            `json:"prev_batch"`
			} `json:"timeline"`
		} `json:"join"`
		Invite map[string]json.RawMessage `json:"invite"`
		Leave  map[string]json.RawMessage `json:"leave"`
	} `json:"rooms"`
}

type messagesResponse struct {
	Chunk []json.RawMessage `json:"chunk"`
	End   string            `json:"end"`
}

// Run reads the room until ctx ends, handing h each event from an
// allowed or not allowed person (the policy is the caller's), except the
// bot's own and other rooms'. The sync token is stored after each batch is
// handled, so a restart neither misses nor replays; on the first start
// ever it begins at the present. When the room's timeline came back
// limited, the gap is paged in (oldest first) before the batch. It joins
// the room when invited to it. It returns ctx's error, or the State's
// when it cannot be read; any other failure is logged and tried again.
func (c *Client) Run(ctx context.Context, h Handler) error {
	var filterID string
	wait := retryFirst
	for {
		cur, err := c.cursor()
		if err != nil {
			return err // the store is gone: nothing sensible to retry
		}
		if filterID == "" {
			filterID, err = c.createFilter(ctx)
		}
		var resp *syncResponse
		if err == nil {
			resp, err = c.sync(ctx, cur.NextBatch, filterID)
		}
		var last string
		if err == nil {
			last, err = c.handleBatch(ctx, cur, resp, h)
		}
		if err == nil {
			err = c.putCursor(cursor{NextBatch: resp.NextBatch, LastEvent: last})
		}
		if errors.Is(err, mautrix.MUnknownToken) {
			c.log.Error().Msg("matrix: the homeserver no longer accepts the access token; " +
				"set a new one, or restart to log in again with the password")
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			c.log.Warn().Err(err).Dur("retryIn", wait).Msg("matrix: sync failed")
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(wait):
			}
			wait = min(2*wait, retryMax)
			continue
		}
		wait = retryFirst
		c.lastSync.Store(time.Now().UnixNano())
	}
}

// cursor is where reading the room got to: the sync token, and the last
// event of the room's timeline seen, where paging back a gap stops
// (Dendrite's /messages does not stop at a "to" sync token).
type cursor struct {
	// Homeserver, User and Room it was stored for.
	Homeserver string `json:"homeserver"`
	User       string `json:"user"`
	Room       string `json:"room"`
	NextBatch  string `json:"next_batch"`
	LastEvent  string `json:"last_event,omitempty"`
}

func (c *Client) cursor() (cursor, error) {
	var cur cursor
	v, ok, err := c.state.Get(keyCursor)
	if err != nil {
		return cur, fmt.Errorf("matrix: read sync token: %w", err)
	}
	if !ok {
		return cur, nil
	}
	if err := json.Unmarshal(v, &cur); err != nil {
		c.log.Warn().Err(err).Msg("matrix: stored sync token unreadable, starting at the present")
		return cursor{}, nil
	}
	if cur.Homeserver != c.settings.HomeserverURL || cur.User != c.settings.UserID || cur.Room != c.settings.RoomID {
		// Another account's token, or another room's place: start at the
		// present, where a pending invite to the room shows again.
		return cursor{}, nil
	}
	return cur, nil
}

func (c *Client) putCursor(cur cursor) error {
	cur.Homeserver, cur.User, cur.Room = c.settings.HomeserverURL, c.settings.UserID, c.settings.RoomID
	v, err := json.Marshal(cur)
	if err != nil {
		return fmt.Errorf("encode sync token: %w", err)
	}
	if err := c.state.Put(keyCursor, v); err != nil {
		return fmt.Errorf("store sync token: %w", err)
	}
	return nil
}

func (c *Client) createFilter(ctx context.Context) (string, error) {
	none := &mautrix.FilterPart{NotTypes: []event.Type{{Type: "*"}}}
	f := &mautrix.Filter{
		AccountData: none,
		Presence:    none,
		Room: &mautrix.RoomFilter{
			AccountData: none,
			Ephemeral:   none,
			Timeline:    &mautrix.FilterPart{Limit: c.settings.TimelineLimit},
		},
	}
	resp, err := c.cli.CreateFilter(ctx, f)
	if err != nil {
		return "", fmt.Errorf("create sync filter: %w", err)
	}
	return resp.FilterID, nil
}

func (c *Client) sync(ctx context.Context, since, filterID string) (*syncResponse, error) {
	q := map[string]string{"filter": filterID}
	if since != "" {
		q["since"] = since
		q["timeout"] = strconv.Itoa(int(SyncTimeout / time.Millisecond))
	}
	var resp syncResponse
	url := c.cli.BuildURLWithQuery(mautrix.ClientURLPath{"v3", "sync"}, q)
	if _, err := c.cli.MakeFullRequest(ctx, mautrix.FullRequest{
		Method: http.MethodGet, URL: url, ResponseJSON: &resp, MaxAttempts: 1,
	}); err != nil {
		return nil, fmt.Errorf("sync: %w", err)
	}
	if resp.NextBatch == "" {
		return nil, errors.New("sync: no next_batch in the answer")
	}
	return &resp, nil
}

// handleBatch joins an invited room and hands over the room's events,
// the gap first; on the first start (no token) only the invite counts. It
// returns the room's last timeline event now seen.
func (c *Client) handleBatch(ctx context.Context, cur cursor, resp *syncResponse, h Handler) (last string, err error) {
	for room := range resp.Rooms.Invite {
		if room != c.settings.RoomID {
			c.log.Info().Str("room", room).Msg("matrix: invited to a room that is not the configured one, not joining")
			continue
		}
		if _, err := c.cli.JoinRoomByID(ctx, id.RoomID(room)); err != nil {
			return "", fmt.Errorf("join %s: %w", room, err)
		}
		c.log.Info().Str("room", room).Msg("matrix: joined the room it was invited to")
		if c.settings.OnJoin != nil {
			c.settings.OnJoin()
		}
	}
	if _, ok := resp.Rooms.Leave[c.settings.RoomID]; ok {
		c.log.Warn().Str("room", c.settings.RoomID).Msg("matrix: the bot is no longer in its room; invite it again")
	}
	for room := range resp.Rooms.Join {
		if room != c.settings.RoomID {
			c.log.Debug().Str("room", room).Msg("matrix: events of another room dropped")
		}
	}
	joined, ok := resp.Rooms.Join[c.settings.RoomID]
	if _, invited := resp.Rooms.Invite[c.settings.RoomID]; cur.NextBatch == "" && !ok && !invited {
		c.log.Warn().Str("room", c.settings.RoomID).Msg("matrix: the bot is not in its room; invite it")
	}
	last = cur.LastEvent
	if !ok || len(joined.Timeline.Events) == 0 {
		return last, nil
	}
	events := joined.Timeline.Events
	newLast := eventID(events[len(events)-1])
	if cur.NextBatch == "" {
		return newLast, nil
	}
	if cur.LastEvent == "" {
		// The room is new to the bot: what came before its join, or all
		// when it joined earlier, is history.
		events = c.afterOwnJoin(events)
	} else if joined.Timeline.Limited && joined.Timeline.PrevBatch != "" {
		gap, err := c.pageGap(ctx, joined.Timeline.PrevBatch, cur.LastEvent)
		if err != nil {
			return "", err
		}
		events = append(gap, events...)
	}
	for _, raw := range events {
		if err := c.handle(ctx, raw, h); err != nil {
			return "", err
		}
	}
	return newLast, nil
}

// pageGap fetches, oldest first, the room's events before from (a limited
// timeline's prev_batch) back to, not including, the event stop.
func (c *Client) pageGap(ctx context.Context, from, stop string) ([]json.RawMessage, error) {
	var gap []json.RawMessage
	for page := 0; ; page++ {
		if page == maxGapPages {
			c.log.Warn().Int("events", len(gap)).Msg("matrix: gap too long, older events of the room not read")
			break
		}
		q := map[string]string{"from": from, "dir": "b", "limit": strconv.Itoa(c.gapPage)}
		var resp messagesResponse
		url := c.cli.BuildURLWithQuery(mautrix.ClientURLPath{"v3", "rooms", c.settings.RoomID, "messages"}, q)
		if _, err := c.cli.MakeRequest(ctx, http.MethodGet, url, nil, &resp); err != nil {
			return nil, fmt.Errorf("page back the gap in %s: %w", c.settings.RoomID, err)
		}
		for i, raw := range resp.Chunk {
			if eventID(raw) == stop {
				gap = append(gap, resp.Chunk[:i]...)
				slices.Reverse(gap)
				return gap, nil
			}
		}
		gap = append(gap, resp.Chunk...)
		if resp.End == "" || len(resp.Chunk) == 0 || resp.End == from {
			c.log.Warn().Int("events", len(gap)).Msg("matrix: paged back to the room's start without finding where reading stopped")
			break
		}
		from = resp.End
	}
	slices.Reverse(gap)
	return gap, nil
}

// afterOwnJoin returns the events after the bot's own join; none if it
// is not among them.
func (c *Client) afterOwnJoin(events []json.RawMessage) []json.RawMessage {
	for i := len(events) - 1; i >= 0; i-- {
		var e struct {
			Type     string `json:"type"`
			StateKey string `json:"state_key"`
			Content  struct {
				Membership string `json:"membership"`
			} `json:"content"`
		}
		if json.Unmarshal(events[i], &e) == nil && e.Type == "m.room.member" &&
			e.StateKey == c.settings.UserID && e.Content.Membership == "join" {
			return events[i+1:]
		}
	}
	return nil
}

func eventID(raw json.RawMessage) string {
	var e struct {
		ID string `json:"event_id"`
	}
	_ = json.Unmarshal(raw, &e) // a malformed event has no ID; Decode reports it
	return e.ID
}

func (c *Client) handle(ctx context.Context, raw json.RawMessage, h Handler) error {
	ev, ok, err := Decode(c.settings.RoomID, raw)
	if err != nil {
		c.log.Warn().Err(err).Msg("matrix: event not understood, ignored")
		return nil
	}
	if !ok || ev.Sender == c.settings.UserID || ev.Room != c.settings.RoomID {
		return nil
	}
	if _, seen := c.recent.Get(ev.ID); seen {
		return nil
	}
	if err := h(ctx, ev); err != nil {
		return fmt.Errorf("handle %s %s: %w", ev.Kind, ev.ID, err)
	}
	c.recent.Put(ev.ID, struct{}{})
	return nil
}
