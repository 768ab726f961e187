package httpd

import (
	"strings"
	"testing"
)

// TestCORS: a browser page on an allowed origin can call the server. Its
// preflight (no token: browsers never send one there) is answered 204
// with the methods and the headers it asked for; every answer to it,
// rejections included, names its origin so the page can read the status;
// a foreign origin gets 403 and no CORS header; a client without Origin
// gets none either.
func TestCORS(t *testing.T) {
	r := start(t, Options{Tokens: []string{tokA}, AllowOrigins: []string{"https://app.example.com"}}, oneAgent())
	preflight := func(origin, headers string) map[string]string {
		h := map[string]string{"Origin": origin, "Access-Control-Request-Method": "POST"}
		if headers != "" {
			h["Access-Control-Request-Headers"] = headers
		}
		return h
	}
	withOrigin := func(origin string, auth bool) map[string]string {
		h := map[string]string{"Origin": origin}
		if auth {
			h["Authorization"] = "Bearer " + tokA
		}
		return h
	}
	const asked = "authorization, content-type, mcp-protocol-version"
	runCases(t, r, []statusCase{
		{name: "preflight from loopback", req: req{method: "OPTIONS", path: "/mcp", headers: preflight("http://localhost:6274", asked)}, status: 204,
			header: map[string]string{
				"Access-Control-Allow-Origin":  "http://localhost:6274",
				"Access-Control-Allow-Methods": "POST, GET, DELETE",
				"Access-Control-Allow-Headers": asked,
				"Access-Control-Max-Age":       corsMaxAge,
			}},
		{name: "preflight from a listed origin", req: req{method: "OPTIONS", path: "/mcp/ada", headers: preflight("https://app.example.com", "Mcp-Method")}, status: 204,
			header: map[string]string{"Access-Control-Allow-Origin": "https://app.example.com", "Access-Control-Allow-Headers": "Mcp-Method"}},
		{name: "preflight asking for junk headers", req: req{method: "OPTIONS", path: "/mcp", headers: preflight("http://localhost:6274", "x-a, bad header, (x)")}, status: 204,
			header: map[string]string{"Access-Control-Allow-Headers": ""}},
		{name: "preflight from a foreign origin", req: req{method: "OPTIONS", path: "/mcp", headers: preflight("https://evil.example", asked)}, status: 403,
			header: map[string]string{"Access-Control-Allow-Origin": ""}},
		{name: "POST from an allowed origin", req: req{path: "/mcp", body: postBody, headers: withOrigin("http://localhost:6274", true)}, status: 200,
			header: map[string]string{"Access-Control-Allow-Origin": "http://localhost:6274", "Access-Control-Expose-Headers": corsExposed}},
		{name: "401 readable by the page", req: req{path: "/mcp", body: postBody, headers: withOrigin("http://localhost:6274", false)}, status: 401,
			header: map[string]string{"Access-Control-Allow-Origin": "http://localhost:6274"}},
		{name: "GET 405 readable by the page", req: req{method: "GET", path: "/mcp", headers: withOrigin("https://app.example.com", true)}, status: 405,
			header: map[string]string{"Access-Control-Allow-Origin": "https://app.example.com", "Allow": "POST"}},
		{name: "no origin, no CORS", req: req{path: "/mcp", body: postBody, headers: withOrigin("", true)}, status: 200,
			header: map[string]string{"Access-Control-Allow-Origin": "", "Access-Control-Expose-Headers": ""}},
		{name: "OPTIONS that is no preflight still needs the token", req: req{method: "OPTIONS", path: "/mcp", headers: withOrigin("http://localhost:6274", false)}, status: 401},
	})
}

// TestAnyOriginWithoutTokenWarns: --allow-origin '*' on a server without a
// token lets any page read its answers; the start says so, and is quiet
// once a token is required.
func TestAnyOriginWithoutTokenWarns(t *testing.T) {
	const warning = "any web page a user opens can call this server"
	open := start(t, Options{AllowOrigins: []string{"*"}}, oneAgent())
	if !strings.Contains(open.log.String(), warning) {
		t.Errorf("no warning for '*' without a token:\n%s", open.log.String())
	}
	guarded := start(t, Options{AllowOrigins: []string{"*"}, Tokens: []string{tokA}}, oneAgent())
	if strings.Contains(guarded.log.String(), warning) {
		t.Errorf("a warning although a token is required:\n%s", guarded.log.String())
	}
}
