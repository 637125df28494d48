package matrixtest

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// User is an account on the Homeserver with its own access token, acting
// as a person in Element would. Its methods are safe for concurrent use.
type User struct {
	ID          string // @name:localhost
	Password    string
	AccessToken string
	DeviceID    string

	hs  *Homeserver
	txn atomic.Int64

	mu     sync.Mutex // orders WaitFor's syncs
	since  string
	unseen []Event // synced after the last match, not yet offered
}

// Register creates the account localpart with password (random when
// empty) through shared-secret registration, and returns it logged in.
func (hs *Homeserver) Register(ctx context.Context, localpart, password string) (*User, error) {
	if password == "" {
		password = randomHex(12)
	}
	var nonce struct {
		Nonce string `json:"nonce"`
	}
	if err := hs.do(ctx, "", http.MethodGet, "/_synapse/admin/v1/register", nil, &nonce); err != nil {
		return nil, fmt.Errorf("register %s: %w", localpart, err)
	}
	mac := hmac.New(sha1.New, []byte(hs.secret))
	mac.Write([]byte(nonce.Nonce + "\x00" + localpart + "\x00" + password + "\x00notadmin"))
	var resp struct {
		UserID      string `json:"user_id"`
		AccessToken string `json:"access_token"`
		DeviceID    string `json:"device_id"`
	}
	body := map[string]any{"nonce": nonce.Nonce, "username": localpart, "password": password,
		"admin": false, "mac": hex.EncodeToString(mac.Sum(nil))}
	if err := hs.do(ctx, "", http.MethodPost, "/_synapse/admin/v1/register", body, &resp); err != nil {
		return nil, fmt.Errorf("register %s: %w", localpart, err)
	}
	return &User{ID: resp.UserID, Password: password, AccessToken: resp.AccessToken, DeviceID: resp.DeviceID, hs: hs}, nil
}

// UserID is the full ID of localpart on this server.
func (hs *Homeserver) UserID(localpart string) string {
	return "@" + localpart + ":" + hs.ServerName
}

// CreateRoom creates a private room and invites the users named.
func (u *User) CreateRoom(ctx context.Context, invite ...string) (string, error) {
	var resp struct {
		RoomID string `json:"room_id"`
	}
	body := map[string]any{"preset": "private_chat", "invite": append([]string{}, invite...)}
	if err := u.do(ctx, http.MethodPost, "/_matrix/client/v3/createRoom", body, &resp); err != nil {
		return "", fmt.Errorf("create room: %w", err)
	}
	return resp.RoomID, nil
}

// Invite invites userID into room.
func (u *User) Invite(ctx context.Context, room, userID string) error {
	return u.do(ctx, http.MethodPost, "/_matrix/client/v3/rooms/"+url.PathEscape(room)+"/invite",
		map[string]string{"user_id": userID}, nil)
}

// Join joins room (after an invite).
func (u *User) Join(ctx context.Context, room string) error {
	return u.do(ctx, http.MethodPost, "/_matrix/client/v3/rooms/"+url.PathEscape(room)+"/join", struct{}{}, nil)
}

// Members lists the joined members of room.
func (u *User) Members(ctx context.Context, room string) ([]string, error) {
	var resp struct {
		Joined map[string]json.RawMessage `json:"joined"`
	}
	if err := u.do(ctx, http.MethodGet, "/_matrix/client/v3/rooms/"+url.PathEscape(room)+"/joined_members", nil, &resp); err != nil {
		return nil, err
	}
	return slices.Collect(maps.Keys(resp.Joined)), nil
}

// Send posts an event of eventType with content into room and returns
// its ID.
func (u *User) Send(ctx context.Context, room, eventType string, content any) (string, error) {
	txn := "t" + strconv.FormatInt(u.txn.Add(1), 10) + "-" + randomHex(4)
	var resp struct {
		EventID string `json:"event_id"`
	}
	path := "/_matrix/client/v3/rooms/" + url.PathEscape(room) + "/send/" + url.PathEscape(eventType) + "/" + txn
	if err := u.do(ctx, http.MethodPut, path, content, &resp); err != nil {
		return "", fmt.Errorf("send %s: %w", eventType, err)
	}
	return resp.EventID, nil
}

// SendText posts a plain m.text message.
func (u *User) SendText(ctx context.Context, room, text string) (string, error) {
	return u.Send(ctx, room, "m.room.message", map[string]any{"msgtype": "m.text", "body": text})
}

// Reply posts text as a reply to event to. With quoted set it carries the
// fallback older clients put in: quoted as "> " lines at the head of the
// body and an <mx-reply> block at the head of the formatted body.
func (u *User) Reply(ctx context.Context, room, to, quoted, text string) (string, error) {
	c := map[string]any{"msgtype": "m.text", "body": text,
		"m.relates_to": map[string]any{"m.in_reply_to": map[string]string{"event_id": to}}}
	if quoted != "" {
		var q strings.Builder
		for i, line := range strings.Split(quoted, "\n") {
			if i == 0 {
				line = "<" + u.ID + "> " + line
			}
			q.WriteString("> " + line + "\n")
		}
		c["body"] = q.String() + "\n" + text
		c["format"] = "org.matrix.custom.html"
		c["formatted_body"] = `<mx-reply><blockquote><a href="https://matrix.to/#/` + room + "/" + to +
			`">In reply to</a> ` + quoted + "</blockquote></mx-reply>" + text
	}
	return u.Send(ctx, room, "m.room.message", c)
}

// React puts key on event target.
func (u *User) React(ctx context.Context, room, target, key string) (string, error) {
	return u.Send(ctx, room, "m.reaction", map[string]any{
		"m.relates_to": map[string]string{"rel_type": "m.annotation", "event_id": target, "key": key}})
}

// Vote answers poll with answer IDs as Element does (unstable type).
func (u *User) Vote(ctx context.Context, room, poll string, answers ...string) (string, error) {
	return u.Send(ctx, room, "org.matrix.msc3381.poll.response", map[string]any{
		"m.relates_to":                     map[string]string{"rel_type": "m.reference", "event_id": poll},
		"org.matrix.msc3381.poll.response": map[string]any{"answers": append([]string{}, answers...)}})
}

// VoteStable answers poll with the stable m.poll.response type.
func (u *User) VoteStable(ctx context.Context, room, poll string, answers ...string) (string, error) {
	return u.Send(ctx, room, "m.poll.response", map[string]any{
		"m.relates_to": map[string]string{"rel_type": "m.reference", "event_id": poll},
		"m.selections": append([]string{}, answers...)})
}

// Event is a room event as a client sees it.
type Event struct {
	Type    string          `json:"type"`
	ID      string          `json:"event_id"`
	Sender  string          `json:"sender"`
	Content json.RawMessage `json:"content"`
	// TS is origin_server_ts, milliseconds since 1970.
	TS int64 `json:"origin_server_ts"`
	// Room is the room the event came from (not in the JSON of a sync).
	Room string `json:"-"`
}

// Decode decodes the event's content into v.
func (e Event) Decode(v any) error {
	if err := json.Unmarshal(e.Content, v); err != nil {
		return fmt.Errorf("decode %s %s: %w", e.Type, e.ID, err)
	}
	return nil
}

// WaitFor syncs as u until an event of a joined room arrives for which
// match is true, and returns it. Each call goes on after the event the
// last one returned (the first sees the rooms' recent events), so the
// events passed over are not offered again. It fails when ctx ends.
func (u *User) WaitFor(ctx context.Context, match func(Event) bool) (Event, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for {
		for i, ev := range u.unseen {
			if match(ev) {
				u.unseen = u.unseen[i+1:]
				return ev, nil
			}
		}
		u.unseen = nil
		q := url.Values{"timeout": {"10000"}}
		if u.since != "" {
			q.Set("since", u.since)
		}
		var resp struct {
			NextBatch string `json:"next_batch"`
			Rooms     struct {
				Join map[string]struct {
					Timeline struct {
						Events []Event `json:"events"`
					} `json:"timeline"`
				} `json:"join"`
			} `json:"rooms"`
		}
		if err := u.do(ctx, http.MethodGet, "/_matrix/client/v3/sync?"+q.Encode(), nil, &resp); err != nil {
			return Event{}, fmt.Errorf("wait for an event as %s: %w", u.ID, err)
		}
		u.since = resp.NextBatch
		for room, j := range resp.Rooms.Join {
			for _, ev := range j.Timeline.Events {
				ev.Room = room
				u.unseen = append(u.unseen, ev)
			}
		}
	}
}

// Event fetches one event of room by ID.
func (u *User) Event(ctx context.Context, room, eventID string) (Event, error) {
	var ev Event
	path := "/_matrix/client/v3/rooms/" + url.PathEscape(room) + "/event/" + url.PathEscape(eventID)
	if err := u.do(ctx, http.MethodGet, path, nil, &ev); err != nil {
		return Event{}, err
	}
	ev.Room = room
	return ev, nil
}

func (u *User) do(ctx context.Context, method, path string, body, out any) error {
	return u.hs.do(ctx, u.AccessToken, method, path, body, out)
}

// do sends body as JSON and decodes a 2xx answer into out (nil: discard).
func (hs *Homeserver) do(ctx context.Context, token, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("%s %s: encode: %w", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, hs.URL+path, rd)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := hs.client.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, pathOnly(path), err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("%s %s: read: %w", method, pathOnly(path), err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s: %s", method, pathOnly(path), resp.Status, opencodetest.Tail(data, 512))
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s %s: decode: %w", method, pathOnly(path), err)
	}
	return nil
}

// pathOnly drops the query, which may hold a sync token.
func pathOnly(p string) string {
	p, _, _ = strings.Cut(p, "?")
	return p
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails: crypto/rand panics rather than return an error
	return hex.EncodeToString(b)
}
