package httpd

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

// guard holds the Origin and Host rules (docs/http.md §3).
type guard struct {
	anyOrigin bool
	origins   map[string]bool // normalized exact origins
	hosts     map[string]bool // lower-case names, no port
}

func newGuard(o *Options) *guard {
	g := &guard{origins: map[string]bool{}, hosts: map[string]bool{}}
	for _, s := range o.AllowOrigins {
		s = strings.TrimSpace(s)
		if s == "*" {
			g.anyOrigin = true
			continue
		}
		g.origins[normalizeOrigin(s)] = true
	}
	for _, h := range o.AllowHosts {
		g.hosts[strings.TrimSuffix(strings.ToLower(strings.TrimSpace(h)), ".")] = true
	}
	return g
}

// normalizeOrigin lower-cases an origin and drops a trailing slash, so
// "HTTPS://App.example.com/" in a flag matches what a browser sends.
func normalizeOrigin(s string) string {
	return strings.TrimSuffix(strings.ToLower(s), "/")
}

// isLoopbackName reports whether host (no port, no brackets) names this
// machine: localhost, a 127.0.0.0/8 address or ::1.
func isLoopbackName(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// hostName strips the port and the brackets of an IPv6 literal from a
// Host header value.
func hostName(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")
}

// originAllowed applies the Origin rule: an absent Origin is fine (not a
// browser); a present one must be loopback or listed. "null" (an opaque
// origin) is never loopback.
func (g *guard) originAllowed(origin string) bool {
	if origin == "" || g.anyOrigin {
		return true
	}
	if g.origins[normalizeOrigin(origin)] {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return isLoopbackName(u.Hostname())
}

// hostAllowed applies the Host rule, which stops DNS rebinding: a page on
// evil.example whose name now resolves to 127.0.0.1 still sends
// "Host: evil.example". The rule holds for every connection that arrives
// over loopback, whatever address the server is bound to (0.0.0.0 takes
// loopback connections too), and for every connection once AllowHosts is
// set.
func (g *guard) hostAllowed(r *http.Request) bool {
	if len(g.hosts) == 0 && !arrivedOverLoopback(r) {
		return true
	}
	name := strings.TrimSuffix(strings.ToLower(hostName(r.Host)), ".")
	if name == "" {
		return false
	}
	return isLoopbackName(name) || g.hosts[name]
}

// check answers 403 for a request whose Host or Origin is not allowed,
// and reports whether the request may go on.
func (g *guard) check(w http.ResponseWriter, r *http.Request) bool {
	if !g.hostAllowed(r) {
		Reject(r.Context(), RejectHost)
		writeError(w, http.StatusForbidden, codeInvalidRequest,
			"Forbidden: Host header not allowed (DNS rebinding protection)", nil)
		return false
	}
	origins := r.Header.Values("Origin")
	if len(origins) > 1 || (len(origins) == 1 && !g.originAllowed(origins[0])) {
		Reject(r.Context(), RejectOrigin)
		writeError(w, http.StatusForbidden, codeInvalidRequest, "Forbidden: Origin not allowed", nil)
		return false
	}
	return true
}

// arrivedOverLoopback reports whether the request's connection has a
// loopback local address. A request not from net/http's server (no local
// address) counts as loopback: the strict side.
func arrivedOverLoopback(r *http.Request) bool {
	a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return true
	}
	tcp, ok := a.(*net.TCPAddr)
	return !ok || tcp.IP.IsLoopback()
}
