package selftest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agent3md/agent3md/mcpclient"
)

// TestConnTimeoutOverHTTP: a server that never answers a POST costs the
// request its timeout, says so, and counts toward giving up on the server
// (the client package's own tests cover the other answers).
func TestConnTimeoutOverHTTP(t *testing.T) {
	release := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer ts.Close()
	defer close(release) // before ts.Close, which waits for the handler
	r := &runner{o: &Options{URL: ts.URL, Timeout: 50 * time.Millisecond, MaxResponseBytes: 1 << 20, HTTPClient: ts.Client()}, httpLog: &httpLog{}}
	c, err := r.open()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.call(context.Background(), "ping", nil)
	if want := "no answer to POST ping (id 1) within 50ms"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want it to say %q", err, want)
	}
	if !c.timedOut || c.alive() {
		t.Errorf("timedOut %v, alive %v: a request that got no answer is a timeout that ends the session", c.timedOut, c.alive())
	}
}

func TestStatusProblem(t *testing.T) {
	legacy := mcpclient.ParseOutgoing([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`))
	modern := mcpclient.ParseOutgoing([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`))
	discover := mcpclient.ParseOutgoing([]byte(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`))
	note := mcpclient.ParseOutgoing([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
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
