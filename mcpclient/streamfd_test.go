package mcpclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent3md/agent3md/internal/testkit"
	"github.com/agent3md/agent3md/mcpclient"
)

// openFDs counts this process's open descriptors (testkit.OpenFDs).
var openFDs = testkit.OpenFDs

// settledFDs waits (up to a generous bound: the server's side of a
// connection the client closed ends when its handler sees it) until
// at most limit descriptors are open, and returns the count.
func settledFDs(t *testing.T, limit int) int {
	t.Helper()
	n := openFDs(t)
	for deadline := time.Now().Add(20 * time.Second); n > limit && time.Now().Before(deadline); n = openFDs(t) {
		time.Sleep(20 * time.Millisecond)
	}
	return n
}

// holdingServer answers each request on an event stream and then keeps
// the stream open until the client goes: answer says whether it sends
// the answer at all (else only keep-alive comments).
func holdingServer(t *testing.T, answer bool) *httptest.Server {
	ts := httptest.NewServer(streamHandler(func(w http.ResponseWriter, r *http.Request, id json.RawMessage) {
		io.WriteString(w, ": keep-alive\n\n")
		if answer {
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{}}\n\n", id)
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done() // open until the client goes
	}))
	t.Cleanup(ts.Close)
	return ts
}

// TestStreamClosedOnAnswer: once a request's answer has come on its
// event stream, the client closes the stream, whatever the server does
// next: 100 requests to a server that never ends a stream leave the
// descriptors where they were (each held stream would be two, the
// client's and the server's end).
func TestStreamClosedOnAnswer(t *testing.T) {
	for _, tt := range []struct {
		name    string
		answer  bool
		timeout time.Duration
		n       int
	}{
		{"answered", true, 0, 100},
		// No answer: the request's timeout ends the stream.
		{"timed out", false, 20 * time.Millisecond, 20},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ts := holdingServer(t, tt.answer)
			c, err := mcpclient.Dial(ts.URL, &mcpclient.Options{HTTPClient: ts.Client()})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ctx := testCtx(t)
			call := func(i int) {
				rctx, cancel := ctx, context.CancelFunc(func() {})
				if tt.timeout > 0 {
					rctx, cancel = context.WithTimeout(ctx, tt.timeout)
				}
				err := c.Call(rctx, "ping", nil, nil)
				cancel()
				if tt.answer && err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
				if !tt.answer && err == nil {
					t.Fatalf("request %d answered", i)
				}
			}
			call(0) // what the client keeps from the first request on is open from here
			before := openFDs(t)
			for i := range tt.n {
				call(i + 1)
			}
			const slack = 6
			if n := settledFDs(t, before+slack); n > before+slack {
				t.Fatalf("%d descriptors open after %d requests, %d before: the streams were not closed", n, tt.n, before)
			}
		})
	}
}

// TestInitializeOnHeldStream: initialize, whose answer is read before
// anything else is sent, returns once its answer is in even when the
// server holds its stream open; before, it waited for the stream's end
// and so failed for want of an answer it had.
func TestInitializeOnHeldStream(t *testing.T) {
	ts := holdingServer(t, true)
	c, err := mcpclient.Dial(ts.URL, &mcpclient.Options{HTTPClient: ts.Client()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Initialize(ctx, mcpclient.LatestLegacy, mcpclient.Implementation{Name: "t", Version: "1"}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
}

// TestStreamEndKeepsConnection: a server that ends each stream right
// after its answer keeps one connection for 100 requests made one after
// another: the client reads on past the answer long enough to see the
// end, so the connection goes back to the pool instead of being closed
// (a TLS handshake per request against servers that answer every request
// as a stream).
func TestStreamEndKeepsConnection(t *testing.T) {
	var conns atomic.Int64
	ts := httptest.NewUnstartedServer(streamHandler(func(w http.ResponseWriter, _ *http.Request, id json.RawMessage) {
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{}}\n\n", id)
		w.(http.Flusher).Flush()
		// The end comes a moment after the answer, as over a network: a
		// client that stops at the answer never sees it.
		time.Sleep(time.Millisecond)
	}))
	ts.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	ts.Start()
	t.Cleanup(ts.Close)
	// One connection at a time: each request waits until the last one's
	// connection is back in the pool, or closed.
	tr := ts.Client().Transport.(*http.Transport).Clone()
	tr.MaxConnsPerHost = 1
	c, err := mcpclient.Dial(ts.URL, &mcpclient.Options{HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := testCtx(t)
	for i := range 100 {
		if err := c.Call(ctx, "ping", nil, nil); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	if n := conns.Load(); n > 10 {
		t.Fatalf("%d connections for 100 requests one after another, want a few: streams are cut off instead of read to their end", n)
	}
}
