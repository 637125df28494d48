package opencode

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// TestedVersion is the opencode release hermes-bot is tested with.
const TestedVersion = "1.18.33"

// SupportedVersions says, for people, which opencode releases hermes-bot
// works with.
const SupportedVersions = "opencode 1.x (tested with " + TestedVersion + ") and OpenCode 2 (built to its published definitions)"

// ServerInfo is what Probe learnt of a server hermes-bot can work with.
type ServerInfo struct {
	// Version is what GET /global/health reported.
	Version string
	// Healthy is what GET /global/health said of the server.
	Healthy bool
	// API is true when the server serves the /api surface (opencode 1.18
	// and later, and OpenCode 2): GET /api/health answered JSON.
	API bool
	// Generation is 1 for opencode 1.x, 2 for OpenCode 2.
	Generation int
}

// UnsupportedServerError is the error of Probe (and of Watch) for a
// server hermes-bot cannot work with: a major version of 3 or more. It wraps ErrUnsupportedServer and
// ErrNotAccepted: trying again will not help until the server changes.
type UnsupportedServerError struct {
	// Version is the version the server reported, "" when it said none.
	Version string
	// Reason says what the server is, e.g. "this server is opencode 3.0.0".
	Reason string
}

func (e *UnsupportedServerError) Error() string {
	return "hermes-bot supports " + SupportedVersions + "; " + e.Reason + ", which is not supported yet"
}

// Unwrap returns ErrUnsupportedServer and ErrNotAccepted.
func (e *UnsupportedServerError) Unwrap() []error {
	return []error{ErrUnsupportedServer, ErrNotAccepted}
}

// Probe finds out what kind of server the Client talks to: its version,
// whether it serves the /api surface, and its generation, which it also
// keeps for Generation.
//
// A server that answers no JSON on GET /global/health (a web page, or
// 404) but JSON on GET /api/health speaks only the /api surface: OpenCode
// 2, generation 2, as is a /global/health reporting major version 2. A
// major version of 3 or more is refused with an *UnsupportedServerError.
// A server that answers JSON on neither is not opencode: that error wraps
// ErrNoRoute. Other failures (a wrong password, a server that is down)
// are those of Health.
//
// It blocks for up to three calls and is safe for concurrent use.
func (c *Client) Probe(ctx context.Context) (ServerInfo, error) {
	h, err := c.Health(ctx)
	switch {
	case errors.Is(err, ErrNoRoute), errors.Is(err, ErrNotFound):
		api, healthy, version := c.apiHealth(ctx)
		switch {
		case !api && errors.Is(err, ErrNoRoute):
			return ServerInfo{}, fmt.Errorf("probe: neither /global/health nor /api/health answers JSON, "+
				"so this is not an opencode server (or not its address): %w", err)
		case !api:
			return ServerInfo{}, fmt.Errorf("probe: %w", err)
		case majorVersion(version) > 2:
			return ServerInfo{}, &UnsupportedServerError{Version: version, Reason: "this server is opencode " + version}
		}
		c.gen.Store(2)
		return ServerInfo{Version: version, Healthy: healthy, API: true, Generation: 2}, nil
	case err != nil:
		return ServerInfo{}, err
	case majorVersion(h.Version) > 2:
		return ServerInfo{}, &UnsupportedServerError{Version: h.Version, Reason: "this server is opencode " + h.Version}
	}
	api, _, _ := c.apiHealth(ctx)
	gen := 1
	if majorVersion(h.Version) == 2 {
		gen = 2 // served like the /api-only server
	}
	c.gen.Store(int32(gen))
	return ServerInfo{Version: h.Version, Healthy: h.Healthy, API: api, Generation: gen}, nil
}

// Generation is the generation of opencode the last successful Probe
// found: 1 for opencode 1.x, 2 for OpenCode 2, 0 before any. Watch
// probes at every connect.
func (c *Client) Generation() int { return int(c.gen.Load()) }

// apiHealth reports whether GET /api/health answers JSON with healthy
// set, what healthy says, and the version it names: opencode 1.18 says
// only {"healthy":true}, OpenCode 2 adds its version. Any failure, a web
// page included, means no.
func (c *Client) apiHealth(ctx context.Context) (ok, healthy bool, version string) {
	var h struct {
		Healthy *bool  `json:"healthy"`
		Version string `json:"version"`
	}
	err := c.call(ctx, "api health", http.MethodGet, "/api/health", nil, nil, &h)
	if err != nil || h.Healthy == nil {
		return false, false, ""
	}
	return true, *h.Healthy, h.Version
}

// majorVersion returns the leading number of a version such as "1.18.33",
// or 0 when there is none.
func majorVersion(v string) int {
	major, _, _ := strings.Cut(strings.TrimPrefix(v, "v"), ".")
	n, err := strconv.Atoi(major)
	if err != nil {
		return 0
	}
	return n
}
