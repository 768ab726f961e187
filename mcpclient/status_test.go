package mcpclient_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/mcpclient"
)

// TestStatusError: a refusal is a *StatusError with the status, and the
// server's JSON-RPC error message is kept whole (an unknown endpoint's
// names every served endpoint, past any snippet's length).
func TestStatusError(t *testing.T) {
	long := "Not found: /mcp/team is not an MCP endpoint; served: /mcp, /mcp/release-helper" + strings.Repeat(", /mcp/another-agent", 20)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/auth":
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Unauthorized: send a bearer token"}}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"`+long+`"}}`)
		}
	}))
	defer ts.Close()
	for _, tt := range []struct {
		path   string
		status int
		want   []string
	}{
		{"/mcp/team", 404, []string{"answered 404 Not Found: " + long}},
		{"/auth", 401, []string{"the server wants a bearer token and none was given", "Unauthorized: send a bearer token"}},
	} {
		c, err := mcpclient.Dial(ts.URL+tt.path, &mcpclient.Options{HTTPClient: ts.Client()})
		if err != nil {
			t.Fatal(err)
		}
		err = c.Call(testCtx(t), "ping", nil, nil)
		c.Close()
		var se *mcpclient.StatusError
		if !errors.As(err, &se) || se.Status != tt.status {
			t.Fatalf("%s: %v is no StatusError %d", tt.path, err, tt.status)
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v\nwant it to say %q", tt.path, err, w)
			}
		}
	}
}
