package main

import (
	"crypto/subtle"
	"net/http"
	"strings"
)

// pageGuard keeps other web pages in the person's browser from using the
// demo's page (through DNS rebinding, or by posting its forms blind), which
// with OPENCODE_URL set answers a real agent: every request, GET or POST,
// must name a loopback host and the page's port, come from no other site,
// and carry the run's secret.
//
// The secret is the path's first segment, not a query parameter: relative
// links and forms keep a path, while a link such as ?as=ID replaces the
// query. Referer leaks either alike; Referrer-Policy same-origin stops that.
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
	refuseHost   = "hermes-demo: this page answers only at 127.0.0.1, localhost or [::1] and its own port. Open the address hermes-demo printed.\n"
	refuseSite   = "hermes-demo: refused a request from another site. Open the address hermes-demo printed, and act from that page.\n"
	refuseSecret = "hermes-demo: this address lacks the page's secret. Open the address hermes-demo printed, secret included.\n"
)

func (g *pageGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Not no-referrer: under it a browser posts the page's own forms with
	// Origin null, which crossSite refuses.
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
