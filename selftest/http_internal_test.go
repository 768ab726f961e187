package selftest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// quietTransport is an httpTransport whose queue is read by the test
// instead of a pump.
func quietTransport(max int) *httpTransport {
	ctx, cancel := context.WithCancel(context.Background())
	return &httpTransport{maxLen: max, ctx: ctx, cancel: cancel, log: &httpLog{},
		q: &lineQueue{wake: make(chan struct{}, 1)}}
}

// queued is what the transport delivered: each message's text, or
// "BAD: " and why it is not one.
func (t *httpTransport) queued() []string {
	var out []string
	for _, l := range t.q.items {
		if l.bad != "" {
			out = append(out, "BAD: "+l.bad)
		} else {
			out = append(out, string(l.b))
		}
	}
	return out
}

func TestReadEvents(t *testing.T) {
	req := peekMessage([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}`))
	note := peekMessage([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	for _, tt := range []struct {
		name   string
		p      peeked
		stream string
		want   []string
	}{
		{"progress then answer", req,
			"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n: keep-alive\n\nid: 1\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\r\n\r\n",
			[]string{`{"jsonrpc":"2.0","method":"notifications/progress"}`, `{"jsonrpc":"2.0","id":7,"result":{}}`}},
		{"data split over lines, no final blank line", req,
			"data:{\"jsonrpc\":\"2.0\",\ndata: \"id\":7,\"result\":{}}",
			[]string{"{\"jsonrpc\":\"2.0\",\n\"id\":7,\"result\":{}}"}},
		{"ends without the answer", req,
			"data: {\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{}}\n\n",
			[]string{`{"jsonrpc":"2.0","id":8,"result":{}}`, "BAD: the event stream answering POST tools/call (id 7) ended without its answer (EOF)"}},
		{"an event over the bound", req,
			"data: " + strings.Repeat("x", 100) + "\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n",
			[]string{"BAD: an event answering POST tools/call (id 7) is over 64 bytes", `{"jsonrpc":"2.0","id":7,"result":{}}`}},
		{"comments only, for a notification", note, ": hi\n\n", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr := quietTransport(64)
			tr.readEvents(strings.NewReader(tt.stream), tt.p)
			if got := tr.queued(); strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("delivered\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func FuzzEventStream(f *testing.F) {
	f.Add("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n")
	f.Add(": c\r\ndata:\ndata\n\nevent: x\nid: 3\nretry: 5\n\n")
	f.Add("data: " + strings.Repeat("y", 200))
	req := peekMessage([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	f.Fuzz(func(t *testing.T, stream string) {
		tr := quietTransport(128)
		tr.readEvents(strings.NewReader(stream), req)
		for _, l := range tr.q.items {
			if len(l.b) > 128 {
				t.Fatalf("delivered %d bytes past the 128-byte bound", len(l.b))
			}
		}
	})
}

func TestPeekAndHeaderSafe(t *testing.T) {
	p := peekMessage([]byte(`{"jsonrpc":"2.0","id": 3 ,"method":"resources/read","params":{"uri":"skill://a b/SKILL.md","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`))
	if !p.request() || p.method != "resources/read" || string(p.id) != "3" || p.modern != modernRev || p.name != "skill://a b/SKILL.md" {
		t.Errorf("peek = %+v", p)
	}
	for _, body := range []string{`not json`, `[1]`, `{"id":{"x":1},"method":5}`, `{"method":"ping","params":null}`} {
		peekMessage([]byte(body)) // must not panic
	}
	for in, want := range map[string]string{
		"tools/call": "tools/call",
		"héllo":      "=?base64?aMOpbGxv?=",
		" edge":      "=?base64?IGVkZ2U=?=",
		"a\nb":       "=?base64?YQpi?=",
	} {
		if got := headerSafe(in); got != want {
			t.Errorf("headerSafe(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestHTTPTransportHeaders: legacy requests carry the negotiated revision
// after initialize (not on it), 2026-07-28 requests their _meta revision,
// method and name, and every POST the token and both media types.
func TestHTTPTransportHeaders(t *testing.T) {
	var (
		mu   sync.Mutex
		seen []http.Header
	)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Clone())
		mu.Unlock()
		var m message
		json.NewDecoder(r.Body).Decode(&m)
		if len(m.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"protocolVersion": "2025-06-18"}})
	}))
	defer ts.Close()
	c := dial(&Options{URL: ts.URL, Token: "tok", Timeout: 5 * time.Second, MaxResponseBytes: 1 << 20, HTTPClient: ts.Client()}, &httpLog{})
	defer c.Close()
	ctx := context.Background()
	if _, err := c.call(ctx, "initialize", map[string]any{"protocolVersion": latestLegacy}); err != nil {
		t.Fatal(err)
	}
	if err := c.notify("notifications/initialized", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.call(ctx, "ping", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.call(ctx, "tools/call", modernParams(modernRev, map[string]any{"name": "wörk"})); err != nil {
		t.Fatal(err)
	}
	want := []map[string]string{
		{headerProtocolVersion: "", headerMethod: ""},
		{headerProtocolVersion: "2025-06-18", headerMethod: ""},
		{headerProtocolVersion: "2025-06-18", headerMethod: ""},
		{headerProtocolVersion: modernRev, headerMethod: "tools/call", headerName: "=?base64?d8O2cms=?="},
	}
	if len(seen) != len(want) {
		t.Fatalf("%d POSTs, want %d", len(seen), len(want))
	}
	for i, h := range seen {
		for k, v := range want[i] {
			if got := h.Get(k); got != v {
				t.Errorf("POST %d: %s = %q, want %q", i, k, got, v)
			}
		}
		if h.Get("Authorization") != "Bearer tok" || h.Get("Accept") != "application/json, text/event-stream" || h.Get("Content-Type") != "application/json" {
			t.Errorf("POST %d: headers %v", i, h)
		}
	}
}

// TestHTTPTransportAnswers: what the conn gets for answers that are not
// a JSON message, and a server that never answers.
func TestHTTPTransportAnswers(t *testing.T) {
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
			c := dial(&Options{URL: ts.URL + tt.path, Timeout: timeout, MaxResponseBytes: 1 << 20, HTTPClient: ts.Client()}, &httpLog{})
			defer c.Close()
			_, err := c.call(context.Background(), "ping", nil)
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
	legacy := peekMessage([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`))
	modern := peekMessage([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`))
	discover := peekMessage([]byte(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`))
	note := peekMessage([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	for _, tt := range []struct {
		name string
		x    exchange
		bad  bool
	}{
		{"legacy result 200", exchange{peeked: legacy, status: 200}, false},
		{"legacy error 200", exchange{peeked: legacy, status: 200, code: -32602}, false},
		{"legacy error 404", exchange{peeked: legacy, status: 404, code: -32601}, true},
		{"legacy parse error 400", exchange{peeked: legacy, status: 400, code: -32700}, false},
		{"result 201", exchange{peeked: legacy, status: 201}, true},
		{"modern unknown method 404", exchange{peeked: modern, status: 404, code: -32601}, false},
		{"modern unknown method 200", exchange{peeked: modern, status: 200, code: -32601}, true},
		{"discover unknown 200", exchange{peeked: discover, status: 200, code: -32601}, false},
		{"modern version 400", exchange{peeked: modern, status: 400, code: -32022}, false},
		{"modern version 200", exchange{peeked: modern, status: 200, code: -32022}, true},
		{"modern invalid params 400", exchange{peeked: modern, status: 400, code: -32602}, false},
		{"modern other error 200", exchange{peeked: modern, status: 200, code: -32603}, false},
		{"too large 413", exchange{peeked: legacy, status: 413, code: -32600}, false},
		{"notification 202", exchange{peeked: note, status: 202}, false},
		{"notification 200", exchange{peeked: note, status: 200}, true},
		{"notification refused 400", exchange{peeked: note, status: 400}, false},
		{"stream", exchange{peeked: legacy, status: 200, stream: true}, false},
	} {
		if got := statusProblem(tt.x); (got != "") != tt.bad {
			t.Errorf("%s: problem %q, want bad=%v", tt.name, got, tt.bad)
		}
	}
}

// FuzzPeekMessage: any body, however malformed (the probes send such
// bodies), frames into a valid request without a panic.
func FuzzPeekMessage(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
	f.Add(`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"`)
	f.Add(`{"method":"resources/read","params":{"uri":"skill://é\n/SKILL.md"}}`)
	f.Fuzz(func(t *testing.T, body string) {
		p := peekMessage([]byte(body))
		tr := &httpTransport{url: "http://127.0.0.1/mcp", token: "t", version: "2025-11-25"}
		req, err := tr.newRequest(context.Background(), []byte(body), p)
		if err != nil {
			t.Fatal(err)
		}
		for k, vs := range req.Header {
			for _, v := range vs {
				if strings.ContainsAny(v, "\r\n\x00") {
					t.Fatalf("header %s carries a control character: %q", k, v)
				}
			}
		}
	})
}
