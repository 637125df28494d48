package main

import (
	"crypto/subtle"
	"net/http"
	"strings"
)

// pageGuard lets only the person who ran the demo use its page. Loopback
// alone does not: any site open in the same browser reaches loopback, can
// read the page through DNS rebinding (a name of its own resolving to
// 127.0.0.1) and can post its forms blind (message IDs are small
// integers), and with OPENCODE_URL set that answers a real agent. So every
// request, GET or POST, must name the page by a loopback name and its own
// port in Host (a rebinding name is refused), come from no other site
// (Origin, Sec-Fetch-Site), and carry the run's secret.
//
// The secret is the first segment of the path, not a query parameter: the
// page's relative links and forms then carry it without knowing it, where
// a link such as ?as=ID replaces the query. Referer would leak a path as
// much as a query; the guard's Referrer-Policy keeps both from other sites.
type pageGuard struct {
	secret string       // URL-safe, from crypto/rand
	port   string       // the page's port, which Host must name
	page   http.Handler // served with the secret's prefix stripped
}

func newPageGuard(secret, port string, page http.Handler) *pageGuard {
	return &pageGuard{secret: secret, port: port, page: http.StripPrefix("/"+secret, page)}
}

// The refusals' texts: plain, and free of the secret, which a refused
// request may not know.
const (
	refuseHost   = "hermes-bot demo: this page answers only at 127.0.0.1, localhost or [::1] and its own port. Open the address hermes-bot demo printed.\n"
	refuseSite   = "hermes-bot demo: refused a request from another site. Open the address hermes-bot demo printed, and act from that page.\n"
	refuseSecret = "hermes-bot demo: this address lacks the page's secret. Open the address hermes-bot demo printed, secret included.\n"
)

func (g *pageGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Referrer-Policy", "same-origin")
	if !g.ownHost(r.Host) {
		http.Error(w, refuseHost, http.StatusMisdirectedRequest)
		return
	}
	if crossSite(r) {
		http.Error(w, refuseSite, http.StatusForbidden)
		return
	}
	first, _, slash := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if subtle.ConstantTimeCompare([]byte(first), []byte(g.secret)) != 1 {
		http.Error(w, refuseSecret, http.StatusForbidden)
		return
	}
	if !slash {
		// The address without its last slash: the page's relative links
		// need it.
		w.Header().Set("Location", g.secret+"/")
		w.WriteHeader(http.StatusMovedPermanently)
		return
	}
	g.page.ServeHTTP(w, r)
}

// ownHost reports whether host, a request's Host, names the page: a
// loopback name, never one a DNS answer could point here, and its port.
func (g *pageGuard) ownHost(host string) bool {
	for _, name := range []string{"127.0.0.1", "localhost", "[::1]"} {
		if strings.EqualFold(host, name+":"+g.port) {
			return true
		}
	}
	return false
}

// crossSite reports whether a browser says r comes from another origin
// than the page's own (Host, checked first). Unlike
// http.CrossOriginProtection it refuses GETs too, fail-closed: the page
// is only ever opened by the person (Sec-Fetch-Site none) or from itself.
func crossSite(r *http.Request) bool {
	if o := r.Header.Get("Origin"); o != "" && !strings.EqualFold(o, "http://"+r.Host) {
		return true
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
		return false
	}
	return true
}
