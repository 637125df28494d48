package main

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/id"

	"github.com/hermes-bot/hermes-bot/config"
)

// checkMatrix tries the Matrix homeserver, the bot's account and its room,
// without sending anything: versions, whoami and the rooms it joined.
// With a password, logging in would make a device, so the account and the
// room are left to serve, which logs in once and keeps the device.
func (c *checkCommand) checkMatrix(ctx context.Context, cfg *config.Config, r *checkReport) {
	hs := "matrix homeserver " + cfg.MatrixHomeserverURL
	cli, err := mautrix.NewClient(cfg.MatrixHomeserverURL, id.UserID(cfg.MatrixUserID), cfg.MatrixAccessToken)
	if err != nil {
		r.fail(hs, c.reason(err), "check MATRIX_HOMESERVER_URL")
		return
	}
	cli.Client = &http.Client{Timeout: c.timeout}
	defer cli.Client.CloseIdleConnections()
	call := func() (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, c.timeout) }

	cctx, cancel := call()
	v, err := cli.Versions(cctx)
	cancel()
	if err != nil {
		r.fail(hs, "unreachable: "+c.reason(err),
			"check MATRIX_HOMESERVER_URL: the client-server API base, such as https://matrix.example.org")
		r.skip("matrix room "+cfg.MatrixRoomID, "needs the homeserver")
		return
	}
	versions := "reachable"
	if n := len(v.Versions); n > 0 {
		versions += ", Matrix " + v.Versions[n-1].String()
	}
	r.ok(hs, versions)
	room := "matrix room " + cfg.MatrixRoomID
	if cfg.MatrixAccessToken == "" {
		r.line("-", "matrix account "+cfg.MatrixUserID, "not checked: logging in with MATRIX_PASSWORD makes a device; serve logs in once and keeps it", "", "")
		r.skip(room, "needs the account")
		return
	}
	cctx, cancel = call()
	who, err := cli.Whoami(cctx)
	cancel()
	switch {
	case errors.Is(err, mautrix.MUnknownToken):
		r.fail("matrix account "+cfg.MatrixUserID, "the homeserver refused MATRIX_ACCESS_TOKEN",
			"use a current access token of the bot's account (Element: Settings → Help & About → Access token), or MATRIX_PASSWORD")
		r.skip(room, "needs the account")
		return
	case err != nil:
		r.fail("matrix account "+cfg.MatrixUserID, c.reason(err), "check MATRIX_ACCESS_TOKEN")
		r.skip(room, "needs the account")
		return
	case string(who.UserID) != cfg.MatrixUserID:
		r.fail("matrix account "+cfg.MatrixUserID, "the access token is "+string(who.UserID)+"'s",
			"set MATRIX_USER_ID to "+string(who.UserID)+", or use the bot account's token")
		r.skip(room, "needs the account")
		return
	}
	r.ok("matrix account "+cfg.MatrixUserID, "the access token is the bot's (device "+string(who.DeviceID)+")")
	cctx, cancel = call()
	joined, err := cli.JoinedRooms(cctx)
	cancel()
	switch {
	case err != nil:
		r.fail(room, c.reason(err), "check that the homeserver answers")
	case slices.Contains(joined.JoinedRooms, id.RoomID(cfg.MatrixRoomID)):
		r.okNote(room, "the bot is a member", "only "+strings.Join(cfg.MatrixAllowedUserIDs, ", ")+" may answer")
	default:
		r.warn(room, "the bot is not in the room yet",
			"invite "+cfg.MatrixUserID+" to the room: it joins when invited, once serve runs")
	}
}
