package selftest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agent3md/agent3md/selftest/client"
)

// TestConnOverHTTPAnswers: what a check reads of answers that are not a
// JSON message, and of a server that never answers (a timeout, which
// counts toward giving up on the server).
func TestConnOverHTTPAnswers(t *testing.T) {
	release := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/empty":
			w.WriteHeader(http.StatusAccepted)
		case "/text":
			http.Error(w, "boom", http.StatusInternalServerError)
		case "/auth":
			w.Header().Set("WWW-Authenticate", "Bearer")
			w.WriteHeader(http.StatusUnauthorized)
		case "/hang":
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
	}))
	defer ts.Close()
	defer close(release) // before ts.Close, which waits for the handler
	for _, tt := range []struct{ path, want string }{
		{"/empty", "answered 202 Accepted with no body; a request needs its JSON-RPC answer"},
		{"/text", `answered 500 Internal Server Error (Content-Type "text/plain; charset=utf-8") with something that is not JSON: boom`},
		{"/auth", "answered 401 Unauthorized; the server wants a bearer token and none was given"},
		{"/hang", "no answer to POST ping (id 1) within 50ms"},
	} {
		t.Run(tt.path, func(t *testing.T) {
			// Only the hanging server is meant to time out; the others
			// get all the time a loaded machine needs.
			timeout := 10 * time.Second
			if tt.path == "/hang" {
				timeout = 50 * time.Millisecond
			}
			r := &runner{o: &Options{URL: ts.URL + tt.path, Timeout: timeout, MaxResponseBytes: 1 << 20, HTTPClient: ts.Client()}, httpLog: &httpLog{}}
			c, err := r.open()
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_, err = c.call(context.Background(), "ping", nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want it to say %q", err, tt.want)
			}
			if tt.path == "/hang" && !c.timedOut {
				t.Error("a request that got no answer should count as a timeout")
			}
		})
	}
}

func TestStatusProblem(t *testing.T) {
	legacy := client.ParseOutgoing([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`))
	modern := client.ParseOutgoing([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`))
	discover := client.ParseOutgoing([]byte(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`))
	note := client.ParseOutgoing([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	for _, tt := range []struct {
		name string
		x    exchange
		bad  bool
	}{
		{"legacy result 200", exchange{Outgoing: legacy, Status: 200}, false},
		{"legacy error 200", exchange{Outgoing: legacy, Status: 200, ErrorCode: -32602}, false},
		{"legacy error 404", exchange{Outgoing: legacy, Status: 404, ErrorCode: -32601}, true},
		{"legacy parse error 400", exchange{Outgoing: legacy, Status: 400, ErrorCode: -32700}, false},
		{"result 201", exchange{Outgoing: legacy, Status: 201}, true},
		{"modern unknown method 404", exchange{Outgoing: modern, Status: 404, ErrorCode: -32601}, false},
		{"modern unknown method 200", exchange{Outgoing: modern, Status: 200, ErrorCode: -32601}, true},
		{"discover unknown 200", exchange{Outgoing: discover, Status: 200, ErrorCode: -32601}, false},
		{"modern version 400", exchange{Outgoing: modern, Status: 400, ErrorCode: -32022}, false},
		{"modern version 200", exchange{Outgoing: modern, Status: 200, ErrorCode: -32022}, true},
		{"modern invalid params 400", exchange{Outgoing: modern, Status: 400, ErrorCode: -32602}, false},
		{"modern other error 200", exchange{Outgoing: modern, Status: 200, ErrorCode: -32603}, false},
		{"too large 413", exchange{Outgoing: legacy, Status: 413, ErrorCode: -32600}, false},
		{"notification 202", exchange{Outgoing: note, Status: 202}, false},
		{"notification 200", exchange{Outgoing: note, Status: 200}, true},
		{"notification refused 400", exchange{Outgoing: note, Status: 400}, false},
		{"stream", exchange{Outgoing: legacy, Status: 200, Stream: true}, false},
	} {
		if got := statusProblem(tt.x); (got != "") != tt.bad {
			t.Errorf("%s: problem %q, want bad=%v", tt.name, got, tt.bad)
		}
	}
}
