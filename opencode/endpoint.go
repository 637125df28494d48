package opencode

import (
	"errors"
	"net/url"
	"strings"
	"time"
)

// DefaultLookupEvery is how often, at most, WithEndpoint's lookup is
// asked again when its zero interval is given.
const DefaultLookupEvery = 5 * time.Second

// Endpoint is where a server listens and how to log in to it. String
// leaves the password out.
type Endpoint struct {
	URL      string
	User     string // "" means "opencode"
	Password string
}

func (e Endpoint) String() string { return e.URL }

// GoString is String, for %#v.
func (e Endpoint) GoString() string { return e.String() }

// WithEndpoint lets the Client look its server up again, with lookup,
// when a request cannot reach it or the server refuses the password: a
// service that restarted may listen on another port, with a new
// password. lookup is asked at most once per every (DefaultLookupEvery
// when 0); what it returns replaces the URL and the credentials given to
// NewClient, and sends basic auth from then on. A lookup that fails
// leaves them alone and is logged without its Endpoint.
func WithEndpoint(every time.Duration, lookup func() (Endpoint, error)) ClientOption {
	return func(c *Client) {
		if every <= 0 {
			every = DefaultLookupEvery
		}
		c.lookup, c.lookupEvery = lookup, every
	}
}

// moved reports whether a request that failed at used with err is worth
// sending again, to the endpoint the Client now has: another request
// already found the server elsewhere, or lookup just did.
func (c *Client) moved(used *endpoint, err error) bool {
	if c.lookup == nil || !endpointSuspect(err) {
		return false
	}
	c.lookupMu.Lock()
	defer c.lookupMu.Unlock()
	if c.ep.Load() != used {
		return true
	}
	now := c.now()
	if !c.lookupAt.IsZero() && now.Sub(c.lookupAt) < c.lookupEvery {
		return false
	}
	c.lookupAt = now
	e, err := c.lookup()
	if err != nil {
		c.log.Warn().Err(err).Msg("cannot look the opencode server up again")
		return false
	}
	u, err := parseBaseURL(e.URL)
	if err != nil {
		c.log.Warn().Err(err).Msg("the opencode server looked up again has an unusable URL")
		return false
	}
	if e.User == "" {
		e.User = defaultUser
	}
	next := &endpoint{base: strings.TrimSuffix(u.String(), "/"), user: e.User, password: e.Password, auth: true}
	if *next == *used {
		return false
	}
	c.ep.Store(next)
	ev := c.log.Info().Str("url", next.base)
	if next.base == used.base {
		ev.Msg("opencode server has new credentials: using them")
	} else {
		ev.Str("was", used.base).Msg("opencode server moved: using its new address")
	}
	return true
}

// endpointSuspect tells the failures a moved server causes: nobody
// answers at the address (the HTTP client's *url.Error), or the server
// there refuses the password.
func endpointSuspect(err error) bool {
	var ue *url.Error
	return errors.As(err, &ue) || errors.Is(err, ErrUnauthorized)
}
