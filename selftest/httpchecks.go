package selftest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/agent3md/agent3md/internal/textclip"
	"github.com/agent3md/agent3md/mcpclient"
)

// The transport's own checks (docs/selftest.md §7), run only over HTTP.

// maxRawBody bounds the body read by the http/ checks, which read only
// statuses, headers and small errors.
const maxRawBody = 64 << 10

// Codes of the 2026-07-28 HTTP header rules (docs/protocol.md §12).
const (
	codeHeaderMismatch = -32020
	codeMissingHeader  = -32021
)

// httpChecks run after the protocol checks, so they know whether the
// server offers 2026-07-28 and can judge every POST the run made.
func (r *runner) httpChecks() {
	if !r.overHTTP() {
		return
	}
	r.check("http/get", r.checkHTTPGet)
	r.check("http/notification", r.checkNotification)
	r.check("http/not-json", r.checkNotJSON)
	r.check("http/session-id", r.checkSessionID)
	r.check("http/origin", r.checkOrigin)
	r.check("http/auth", r.checkAuth)
	r.check("http/header-mismatch", r.checkHeaderMismatch)
	r.check("http/status-codes", r.checkStatusCodes)
}

// rawAnswer is an HTTP answer as the http/ checks read it.
type rawAnswer struct {
	status int
	header http.Header
	body   []byte
}

// noToken and wrongToken select the Authorization a raw request carries
// instead of Options.Token.
const (
	noToken    = "\x00none"
	wrongToken = "\x00wrong"
)

// raw sends one HTTP request to the URL outside any session. token is
// Options.Token, noToken or wrongToken; header adds headers.
func (r *runner) raw(method string, body []byte, token string, header map[string]string) (*rawAnswer, error) {
	ctx, cancel := context.WithTimeout(r.ctx, r.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, r.o.URL, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("build the %s request: %w", method, err)
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	} else {
		req.Header.Set("Accept", "text/event-stream")
	}
	switch token {
	case noToken, "":
	case wrongToken:
		req.Header.Set("Authorization", "Bearer selftest-wrong-"+fmt.Sprint(len(r.o.Token)))
	default:
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := r.o.HTTPClient.Do(req)
	if err != nil {
		return nil, err // it names the method and the URL, password stripped
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxRawBody))
	if err != nil {
		return nil, fmt.Errorf("reading the answer to %s: %w", method, err)
	}
	return &rawAnswer{status: resp.StatusCode, header: resp.Header, body: bytes.TrimSpace(b)}, nil
}

// legacyHeader is the header a legacy client sends after initialize.
func (r *runner) legacyHeader() map[string]string {
	return map[string]string{mcpclient.HeaderProtocolVersion: r.negotiated()}
}

// allowsPost reports whether an Allow header names POST.
func allowsPost(h http.Header) bool {
	for _, v := range h.Values("Allow") {
		for _, m := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(m), http.MethodPost) {
				return true
			}
		}
	}
	return false
}

// checkNotification: a notification is accepted with 202 and no body.
func (r *runner) checkNotification() outcome {
	a, err := r.raw(http.MethodPost, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), r.o.Token, r.legacyHeader())
	if err != nil {
		return fail("%v", err)
	}
	switch {
	case a.status != http.StatusAccepted:
		return fail("notifications/initialized answered %d, want 202 Accepted%s", a.status, bodyNote(a.body))
	case len(a.body) > 0:
		return fail("notifications/initialized answered 202 with a body, want none%s", bodyNote(a.body))
	}
	return pass("202 with no body")
}

// bodyNote quotes an answer's body for a detail.
func bodyNote(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return ": " + textclip.Bytes(string(b), 120)
}

// checkNotJSON: a body that is not JSON is a 400.
func (r *runner) checkNotJSON() outcome {
	a, err := r.raw(http.MethodPost, []byte("this is not JSON"), r.o.Token, r.legacyHeader())
	if err != nil {
		return fail("%v", err)
	}
	if a.status != http.StatusBadRequest {
		return fail("a body that is not JSON answered %d, want 400 Bad Request%s", a.status, bodyNote(a.body))
	}
	return pass("400%s", bodyNote(a.body))
}

// checkSessionID: a stateless server never mints a session id, so a
// client never has one to lose.
func (r *runner) checkSessionID() outcome {
	body, err := mcpclient.Encode("selftest-session", "initialize", map[string]any{
		"protocolVersion": latestLegacy,
		"capabilities":    map[string]any{},
		"clientInfo":      clientInfo,
	})
	if err != nil {
		return fail("%v", err)
	}
	a, err := r.raw(http.MethodPost, body, r.o.Token, nil)
	if err != nil {
		return fail("%v", err)
	}
	if id := a.header.Get(mcpclient.HeaderSessionID); id != "" {
		return fail("initialize answered %d with %s %q; a stateless server mints none (clients would then have to send it, and a replica that never saw it would refuse them)", a.status, mcpclient.HeaderSessionID, textclip.Bytes(id, 40))
	}
	return pass("initialize answered %d with no %s", a.status, mcpclient.HeaderSessionID)
}

// checkAuth: with a token configured, a request without it or with
// another one is 401 with a Bearer challenge.
func (r *runner) checkAuth() outcome {
	if r.o.Token == "" {
		return skip("no token given: the server's authentication is not checked")
	}
	ping := []byte(`{"jsonrpc":"2.0","id":"selftest-auth","method":"ping"}`)
	for _, tc := range []struct{ token, what string }{
		{noToken, "without a token"},
		{wrongToken, "with a wrong token"},
	} {
		a, err := r.raw(http.MethodPost, ping, tc.token, r.legacyHeader())
		if err != nil {
			return fail("%v", err)
		}
		if a.status != http.StatusUnauthorized {
			return fail("a ping %s answered %d, want 401 Unauthorized%s", tc.what, a.status, bodyNote(a.body))
		}
		challenge := a.header.Get("WWW-Authenticate")
		if !strings.HasPrefix(strings.ToLower(challenge), "bearer") {
			return fail("a ping %s answered 401 with WWW-Authenticate %q, want a Bearer challenge", tc.what, challenge)
		}
	}
	return pass("401 with a Bearer challenge without the token and with a wrong one")
}

// checkHeaderMismatch: a 2026-07-28 request whose Mcp-Method header is
// missing or disagrees with its body is 400 with -32020 (or -32021 for
// the missing one).
func (r *runner) checkHeaderMismatch() outcome {
	if !r.modernOffered {
		return skip("the server does not offer %s (modern/discover)", modernRev)
	}
	body, err := mcpclient.Encode("selftest-headers", "tools/list", modernParams(modernRev, nil))
	if err != nil {
		return fail("%v", err)
	}
	for _, tc := range []struct {
		what   string
		method string
	}{
		{"no " + mcpclient.HeaderMethod, ""},
		{mcpclient.HeaderMethod + ": prompts/list", "prompts/list"},
	} {
		h := map[string]string{mcpclient.HeaderProtocolVersion: modernRev}
		if tc.method != "" {
			h[mcpclient.HeaderMethod] = tc.method
		}
		a, err := r.raw(http.MethodPost, body, r.o.Token, h)
		if err != nil {
			return fail("%v", err)
		}
		code := mcpclient.ErrorCode(a.body)
		if a.status != http.StatusBadRequest || (code != codeHeaderMismatch && code != codeMissingHeader) {
			return fail("tools/list with %s answered %d%s, want 400 with error %d", tc.what, a.status, bodyNote(a.body), codeHeaderMismatch)
		}
	}
	return pass("a missing or wrong %s is 400 with %d", mcpclient.HeaderMethod, codeHeaderMismatch)
}

// checkStatusCodes judges the status of every POST the run made.
func (r *runner) checkStatusCodes() outcome {
	all := r.httpLog.all()
	var problems []string
	for _, x := range all {
		if p := statusProblem(x); p != "" {
			problems = append(problems, p)
		}
	}
	if len(problems) > 0 {
		shown := problems[:min(len(problems), 3)]
		return fail("%d of %d POSTs: %s", len(problems), len(all), strings.Join(shown, "; "))
	}
	return pass("%d POSTs, each with the status its era gives its answer", len(all))
}

// statusProblem says what is wrong with one POST's status, or "": a
// result is 200; a notification or response 202 (or a 4xx refusal); a
// handshake-era JSON-RPC error 200, since those clients take 404 for a
// lost session (-32700 and -32600 may be 400); a 2026-07-28 error 404 for
// -32601, 400 for the header and version errors (-32020, -32021,
// -32022), 200 or 400 for -32602, else 200. A body over the server's
// bound may be 413. Answers 401 and 403, and answers that are not JSON,
// are judged by the checks they fail, malformed bodies by the probes.
func statusProblem(x exchange) string {
	s := x.Status
	switch {
	case x.Stream || x.NotJSON || !x.Parsed || s == http.StatusUnauthorized || s == http.StatusForbidden:
		return ""
	case x.ErrorCode != 0 && s == http.StatusRequestEntityTooLarge:
		return ""
	case !x.IsRequest():
		if s == http.StatusAccepted || s >= 400 && s < 500 {
			return ""
		}
		return fmt.Sprintf("%s answered %d, want 202", x.What(), s)
	}
	want := []int{http.StatusOK}
	switch {
	case x.ErrorCode == 0:
	case x.ErrorCode == codeParseError || x.ErrorCode == codeInvalidRequest:
		want = []int{http.StatusOK, http.StatusBadRequest}
	case x.Modern == "":
	case x.ErrorCode == codeMethodNotFound && x.Method == "server/discover":
		// A server without the revision answers as its own era does.
		want = []int{http.StatusOK, http.StatusNotFound}
	case x.ErrorCode == codeMethodNotFound:
		want = []int{http.StatusNotFound}
	case x.ErrorCode == codeHeaderMismatch || x.ErrorCode == codeMissingHeader || x.ErrorCode == codeUnsupportedVersion:
		want = []int{http.StatusBadRequest}
	case x.ErrorCode == codeInvalidParams:
		want = []int{http.StatusOK, http.StatusBadRequest}
	}
	for _, w := range want {
		if s == w {
			return ""
		}
	}
	what := "a result"
	if x.ErrorCode != 0 {
		what = fmt.Sprintf("error %d", x.ErrorCode)
	}
	era := "handshake-era"
	if x.Modern != "" {
		era = modernRev
	}
	return fmt.Sprintf("%s answered %s (%s) with status %d, want %s", x.What(), what, era, s, joinInts(want))
}

// joinInts renders statuses as "200 or 400".
func joinInts(v []int) string {
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, " or ")
}

// checkOversizedBody is probe/oversized-line over HTTP: a body of n bytes
// is refused with a 4xx (413 is the usual one) before it reaches the
// protocol, or answered 200 with an error, or, by a server whose body
// bound is higher, with the ping's answer; either way the server still
// answers a ping.
func (r *runner) checkOversizedBody(n int) outcome {
	a, err := r.raw(http.MethodPost, oversizedLine(n), r.o.Token, r.legacyHeader())
	if err != nil {
		return fail("sending a %d-byte body: %v", n, err)
	}
	did := fmt.Sprintf("a %d-byte body answered %d", n, a.status)
	switch {
	case a.status >= 400 && a.status < 500:
	case a.status == http.StatusOK:
		m, err := mcpclient.Decode(a.body)
		problem := ""
		switch {
		case err != nil:
			problem = err.Error()
		case m.Error != nil:
			problem = oversizedErrorProblem(m)
			did += " with " + m.Error.String()
		default:
			problem = oversizedResultProblem(m)
			did += fmt.Sprintf(" with the ping's answer (the server's body bound is above %d bytes)", n)
		}
		if problem != "" {
			return fail("a %d-byte body answered 200: %s; want a 4xx refusal such as 413, an error, or the ping's answer from a server whose body bound is higher", n, problem)
		}
	default:
		return fail("a %d-byte body answered %d, want a 4xx refusal such as 413, an error, or the ping's answer from a server whose body bound is higher", n, a.status)
	}
	c, err := r.session()
	if err != nil {
		return fail("%v", err)
	}
	if out, ok := r.ping(c); !ok {
		return fail("after a %d-byte body the server stopped answering: %s", n, out.detail)
	}
	return pass("%s; a ping still works", did)
}

// modernRefused reports, over HTTP, a server that refuses a 2026-07-28
// server/discover at the transport: a 4xx other than the revision's own
// answers about a request it understood (-32602, -32020, -32021). Over
// stdio such a server answers -32601 and the modern checks are skipped;
// over HTTP it may never reach the method, since the request's
// MCP-Protocol-Version names a revision it lacks (or it wants a session).
func (r *runner) modernRefused() (string, bool) {
	if !r.overHTTP() {
		return "", false
	}
	body, err := mcpclient.Encode("selftest-discover", "server/discover", modernParams(modernRev, nil))
	if err != nil {
		return "", false
	}
	a, err := r.raw(http.MethodPost, body, r.o.Token, map[string]string{mcpclient.HeaderProtocolVersion: modernRev, mcpclient.HeaderMethod: "server/discover"})
	if err != nil || a.status < 400 || a.status >= 500 || a.status == http.StatusUnauthorized || a.status == http.StatusForbidden {
		return "", false // the session's own request reports it
	}
	switch mcpclient.ErrorCode(a.body) {
	case codeInvalidParams, codeHeaderMismatch, codeMissingHeader:
		return "", false
	}
	return fmt.Sprintf("server does not offer the stateless %s revision (server/discover with %s: %s answered %d%s)",
		modernRev, mcpclient.HeaderProtocolVersion, modernRev, a.status, bodyNote(a.body)), true
}

// probeHTTP is a probe over HTTP, where a server that cannot accept a
// body answers an HTTP error status, and its body MAY be an id-less
// JSON-RPC error (docs/protocol.md §12): any 4xx passes, and a JSON-RPC
// body is judged by expect as over stdio. Then a ping must still work.
func (r *runner) probeHTTP(body []byte, what string, expect func(*message) string) outcome {
	a, err := r.raw(http.MethodPost, body, r.o.Token, r.legacyHeader())
	if err != nil {
		return fail("sending %s: %v", what, err)
	}
	problem, answer := "", fmt.Sprintf("%d", a.status)
	if m, err := mcpclient.Decode(a.body); len(a.body) > 0 && err == nil {
		problem = expect(m)
		if m.Error != nil {
			answer += " with " + m.Error.String()
		}
	}
	if a.status < 400 || a.status >= 500 {
		problem = fmt.Sprintf("answered %d%s, want a 4xx refusal (400)", a.status, bodyNote(a.body))
	}
	c, err := r.session()
	if err != nil {
		return fail("%v", err)
	}
	if out, ok := r.ping(c); !ok {
		return fail("after %s the server stopped answering: %s", what, out.detail)
	}
	if problem != "" {
		return fail("%s: %s", what, problem)
	}
	return pass("%s answered %s; a ping still works", what, answer)
}

// foreignOrigin is a web origin no server allows.
const foreignOrigin = "https://selftest-rebinding.example"

// checkOrigin: a request a web page on another origin makes is 403, so
// a script the user's browser runs cannot reach the server (docs/protocol.md
// §12). At a loopback URL, a foreign Host (DNS rebinding) is refused too,
// while the URL's own origin is served.
func (r *runner) checkOrigin() outcome {
	ping := []byte(`{"jsonrpc":"2.0","id":"selftest-origin","method":"ping"}`)
	h := r.legacyHeader()
	h["Origin"] = foreignOrigin
	a, err := r.raw(http.MethodPost, ping, r.o.Token, h)
	if err != nil {
		return fail("%v", err)
	}
	if a.status != http.StatusForbidden {
		return fail("a ping with Origin: %s answered %d, want 403 Forbidden (a page on any web site could otherwise call the server from its visitors' browsers)", foreignOrigin, a.status)
	}
	u, err := url.Parse(r.o.URL)
	if err != nil || !isLoopback(u.Hostname()) {
		return pass("403 for a foreign Origin")
	}
	h["Host"] = "selftest-rebinding.example"
	if a, err = r.raw(http.MethodPost, ping, r.o.Token, h); err != nil {
		return fail("%v", err)
	}
	hostStatus := a.status
	if hostStatus < 400 || hostStatus >= 500 {
		return fail("at a loopback URL, a ping with Host: %s answered %d, want a 4xx (DNS rebinding protection)", h["Host"], hostStatus)
	}
	own := map[string]string{mcpclient.HeaderProtocolVersion: r.negotiated(), "Origin": u.Scheme + "://" + u.Host}
	if a, err = r.raw(http.MethodPost, ping, r.o.Token, own); err != nil {
		return fail("%v", err)
	}
	if a.status != http.StatusOK {
		return fail("a ping with the URL's own Origin %s answered %d, want 200", own["Origin"], a.status)
	}
	return pass("403 for a foreign Origin; at this loopback URL, %d for a foreign Host and 200 for its own origin", hostStatus)
}

// isLoopback reports whether host names this machine.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// exchange is one POST as the status check judges it.
type exchange = mcpclient.Exchange

// httpLog collects the run's exchanges for http/status-codes. Safe for
// concurrent use.
type httpLog struct {
	mu   sync.Mutex
	list []exchange
}

// maxLogged bounds the exchanges remembered.
const maxLogged = 10000

func (l *httpLog) add(x exchange) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.list) < maxLogged {
		l.list = append(l.list, x)
	}
}

func (l *httpLog) all() []exchange {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]exchange(nil), l.list...)
}
