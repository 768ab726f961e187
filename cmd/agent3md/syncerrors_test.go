package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSyncErrorsLeadWithTheFix: each failure a person fixes with a flag or
// a check says so first, and the server's own message is kept whole.
func TestSyncErrorsLeadWithTheFix(t *testing.T) {
	served := "Not found: /mcp/team is not an MCP endpoint; served: /mcp, /mcp/release-helper" + strings.Repeat(", /mcp/other", 15)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/mcp/team" {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"`+served+`"}}`)
			return
		}
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Unauthorized"}}`)
	}))
	defer ts.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/mcp/x"
	ln.Close()
	tokens := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokens, []byte("wrong-token-0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AGENT3MD_TOKEN", "")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no token", []string{ts.URL + "/mcp/x"}, "cannot sync from " + ts.URL + "/mcp/x: the server wants a bearer token and none was sent: pass --token-file FILE (the token on its first line) or set AGENT3MD_TOKEN"},
		{"wrong token", []string{"--token-file", tokens, ts.URL + "/mcp/x"}, "the server refused the token from --token-file " + tokens},
		{"unknown endpoint", []string{ts.URL + "/mcp/team"}, `the server answered 404, "` + served + `"`},
		{"nothing listening", []string{closed}, "nothing answers at " + ln.Addr().String() + ": check that agent3md serve runs there"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := cli(t, append(append([]string{"sync"}, tc.args...), t.TempDir())...)
			if code != exitUsage || !strings.HasPrefix(errOut, "agent3md: cannot sync from ") || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d:\n%s\nwant it to lead with %q", code, errOut, tc.want)
			}
		})
	}
}
