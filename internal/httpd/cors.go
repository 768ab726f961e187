package httpd

import (
	"net/http"
	"strings"
)

// CORS for the origins the guard lets in (docs/http.md §3). A browser
// page can only call the server if it answers the preflight that an MCP
// POST always causes (Content-Type: application/json, Authorization and
// the MCP-* headers are none of them "simple"), and can only read an
// answer that names its origin. So an allowed Origin gets both; a
// disallowed one was already refused with 403 by the guard. Clients that
// are not browsers send no Origin and see none of these headers.

// corsMaxAge is how long, in seconds, a browser may reuse a preflight.
const corsMaxAge = "600"

// corsExposed are the answer headers a page's script may read: those an
// MCP client acts on (the token challenge, Retry-After of a 503, Allow of
// a 405, and the session and version headers MCP clients look for even
// though this server mints no session).
const corsExposed = "WWW-Authenticate, Retry-After, Allow, Mcp-Session-Id, MCP-Protocol-Version"

// maxPreflightHeaders bounds the echoed Access-Control-Request-Headers.
const maxPreflightHeaders = 1024

// cors adds the CORS headers to the answer of a request whose Origin the
// guard allowed, and answers a preflight itself (204, before the token
// check: browsers never send credentials on a preflight). It reports
// whether the request was answered.
func cors(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Expose-Headers", corsExposed)
	if r.Method != http.MethodOptions || r.Header.Get("Access-Control-Request-Method") == "" {
		return false
	}
	// GET and DELETE are allowed through so a browser client gets their
	// real 405 rather than a network error it can't tell apart from an
	// unreachable server.
	h.Set("Access-Control-Allow-Methods", "POST, GET, DELETE")
	if asked := r.Header.Get("Access-Control-Request-Headers"); asked != "" && len(asked) <= maxPreflightHeaders && headerList(asked) {
		h.Set("Access-Control-Allow-Headers", asked)
	}
	h.Set("Access-Control-Max-Age", corsMaxAge)
	h.Add("Vary", "Access-Control-Request-Method")
	h.Add("Vary", "Access-Control-Request-Headers")
	w.WriteHeader(http.StatusNoContent)
	return true
}

// headerList reports whether s is a comma-separated list of header names
// (RFC 9110 tokens), so nothing else is echoed back.
func headerList(s string) bool {
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			return false
		}
		for _, c := range name {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", c)) {
				return false
			}
		}
	}
	return true
}
