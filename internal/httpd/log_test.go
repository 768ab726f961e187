package httpd

import (
	"strings"
	"testing"
)

// One line per request with the fields of docs/http.md §6, and never the
// token, whether accepted, refused or smuggled into the query.
func TestLogLine(t *testing.T) {
	r := start(t, Options{Tokens: []string{tokA}}, oneAgent())
	auth := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }
	wrong := "wrong-" + tokB
	r.do(t, nil, req{path: "/mcp", body: postBody, headers: auth(tokA)})
	r.do(t, nil, req{path: "/mcp", body: postBody, headers: auth(wrong)})
	r.do(t, nil, req{path: "/mcp?access_token=" + tokA, body: postBody})
	r.do(t, nil, req{method: "GET", path: "/healthz"})

	logText := r.log.String()
	var lines []string
	for _, l := range strings.Split(logText, "\n") {
		if strings.Contains(l, `msg="http request"`) {
			lines = append(lines, l)
		}
	}
	if len(lines) != 4 {
		t.Fatalf("%d request lines, want 4:\n%s", len(lines), logText)
	}
	for _, want := range []string{
		"level=INFO", "method=POST", "path=/mcp", "mcp_method=tools/list", "status=200",
		"duration=", "bytes_in=46", "bytes_out=", "remote=127.0.0.1:",
	} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("line %q lacks %q", lines[0], want)
		}
	}
	if !strings.Contains(lines[1], "status=401") || !strings.Contains(lines[1], "mcp_method=\"\"") {
		t.Errorf("refused request's line: %q", lines[1])
	}
	if !strings.Contains(lines[3], "level=DEBUG") || !strings.Contains(lines[3], "path=/healthz") {
		t.Errorf("healthz line: %q", lines[3])
	}
	for _, secret := range []string{tokA, wrong, "Bearer", "Authorization", "access_token"} {
		if strings.Contains(logText, secret) {
			t.Errorf("the log contains %q:\n%s", secret, logText)
		}
	}
}

// What a client controls is clipped and kept on one line.
func TestLogLineClipsClientText(t *testing.T) {
	r := start(t, Options{}, oneAgent())
	long := "/" + strings.Repeat("p", 1000)
	r.do(t, nil, req{path: long, body: postBody})
	logText := r.log.String()
	if strings.Contains(logText, strings.Repeat("p", maxLoggedPath+1)) {
		t.Errorf("path not clipped:\n%s", logText)
	}
	if got := loggable("a\xffb", 10); got != "a\uFFFDb" {
		t.Errorf("loggable kept invalid UTF-8: %q", got)
	}
	if got := loggable("/ééé", 4); got != "/é…" { // a cut never leaves half a character to replace
		t.Errorf("loggable cut inside a character: %q", got)
	}
}
