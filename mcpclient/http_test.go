package mcpclient_test

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent3md/agent3md/mcpclient"
)

// TestHTTPHeaders: handshake-era requests carry the negotiated revision
// after initialize (not on it), 2026-07-28 requests their _meta revision,
// method and name, every POST the token and both media types; a minted
// session id is echoed and ended with DELETE.
func TestHTTPHeaders(t *testing.T) {
	var (
		mu      sync.Mutex
		seen    []http.Header
		deleted string
	)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.Method == http.MethodDelete {
			deleted = r.Header.Get(mcpclient.HeaderSessionID)
			return
		}
		seen = append(seen, r.Header.Clone())
		var m mcpclient.Message
		json.NewDecoder(r.Body).Decode(&m)
		if len(m.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		if m.Method == "initialize" {
			w.Header().Set(mcpclient.HeaderSessionID, "sess-1")
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"protocolVersion": "2025-06-18"}})
	}))
	defer ts.Close()
	c, err := mcpclient.Dial(ts.URL, &mcpclient.Options{Token: "tok", HTTPClient: ts.Client()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	if _, err := c.Initialize(ctx, mcpclient.LatestLegacy, mcpclient.Implementation{Name: "t", Version: "1"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "ping", nil, nil); err != nil {
		t.Fatal(err)
	}
	modern := &mcpclient.Session{Conn: c, Modern: true, Info: mcpclient.Implementation{Name: "t", Version: "1"}}
	if _, err := modern.CallTool(ctx, "wörk", nil); err != nil {
		t.Fatal(err)
	}
	c.Close()
	want := []map[string]string{
		{mcpclient.HeaderProtocolVersion: "", mcpclient.HeaderMethod: "", mcpclient.HeaderSessionID: ""},
		{mcpclient.HeaderProtocolVersion: "2025-06-18", mcpclient.HeaderMethod: "", mcpclient.HeaderSessionID: "sess-1"},
		{mcpclient.HeaderProtocolVersion: "2025-06-18", mcpclient.HeaderMethod: ""},
		{mcpclient.HeaderProtocolVersion: mcpclient.ModernVersion, mcpclient.HeaderMethod: "tools/call", mcpclient.HeaderName: "=?base64?d8O2cms=?="},
	}
	mu.Lock()
	defer mu.Unlock()
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
	if deleted != "sess-1" {
		t.Errorf("Close ended session %q, want sess-1", deleted)
	}
}

// TestHTTPAnswers: what a request gets for answers that are not its
// JSON-RPC message, and from a server that never answers.
func TestHTTPAnswers(t *testing.T) {
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
		case "/big":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":{"pad":"%s"}}`, strings.Repeat("x", 2048))
		case "/other":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":99,"result":{}}`)
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
		{"/empty", "POST ping (id 1) answered 202 Accepted with no body; a request needs its JSON-RPC answer"},
		{"/text", `answered 500 Internal Server Error (Content-Type "text/plain; charset=utf-8") with something that is not JSON: boom`},
		{"/auth", "answered 401 Unauthorized; the server wants a bearer token and none was given"},
		{"/big", "the answer to POST ping (id 1) is over 1024 bytes"},
		{"/other", "answered 200 OK with a message that is not its answer"},
		{"/hang", "no answer to POST ping (id 1)"},
	} {
		t.Run(tt.path, func(t *testing.T) {
			c, err := mcpclient.Dial(ts.URL+tt.path, &mcpclient.Options{MaxLineBytes: 1024, HTTPClient: ts.Client()})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			// Only the hanging server is meant to time out; the others
			// get all the time a loaded machine needs.
			ctx := testCtx(t)
			if tt.path == "/hang" {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 50*time.Millisecond)
				defer cancel()
			}
			err = c.Call(ctx, "ping", nil, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want it to say %q", err, tt.want)
			}
			var na *mcpclient.NoAnswerError
			if errors.As(err, &na) != (tt.path == "/hang") {
				t.Errorf("error %v: NoAnswerError only for the server that never answers", err)
			}
		})
	}
}

// streamHandler answers a notification 202 and a request on an event
// stream: the header is set, then stream writes the body for the
// request's id.
func streamHandler(stream func(w http.ResponseWriter, r *http.Request, id json.RawMessage)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var m mcpclient.Message
		json.NewDecoder(r.Body).Decode(&m)
		if len(m.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		stream(w, r, m.ID)
	}
}

// sseServer answers every POST with the event stream body, after the
// headers; a notification gets 202.
func sseServer(t *testing.T, body string) *httptest.Server {
	ts := httptest.NewServer(streamHandler(func(w http.ResponseWriter, _ *http.Request, _ json.RawMessage) {
		io.WriteString(w, body)
	}))
	t.Cleanup(ts.Close)
	return ts
}

// TestEventStreams: each data event of an answer's stream is one
// message, dispatched like a stdio line.
func TestEventStreams(t *testing.T) {
	for _, tt := range []struct {
		name, stream string
		err          string   // what the request's error says; "" for a result
		notes        []string // what OnNotification and OnUnmatched got
	}{
		{name: "progress then answer",
			stream: "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n: keep-alive\n\nid: 1\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\r\n\r\n",
			notes:  []string{"notifications/progress"}},
		{name: "data split over lines, no final blank line",
			stream: "data:{\"jsonrpc\":\"2.0\",\ndata: \"id\":7,\"result\":{}}"},
		{name: "ends without the answer",
			stream: "data: {\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{}}\n\n",
			err:    "the event stream answering POST tools/call (id 7) ended without its answer (EOF)",
			notes:  []string{`unmatched {"jsonrpc":"2.0","id":8,"result":{}}`}},
		{name: "an event over the bound",
			stream: "data: " + strings.Repeat("x", 100) + "\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n",
			err:    "an event answering POST tools/call (id 7) is over 64 bytes",
			notes:  []string{`unmatched {"jsonrpc":"2.0","id":7,"result":{}}`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ts := sseServer(t, tt.stream)
			var (
				mu    sync.Mutex
				notes []string
			)
			note := func(s string) { mu.Lock(); notes = append(notes, s); mu.Unlock() }
			c, err := mcpclient.Dial(ts.URL, &mcpclient.Options{MaxLineBytes: 64, HTTPClient: ts.Client(),
				OnNotification: func(m *mcpclient.Message) { note(m.Method) },
				OnUnmatched:    func(raw []byte, err error) { note("unmatched " + string(raw)) }})
			if err != nil {
				t.Fatal(err)
			}
			ctx := testCtx(t)
			p, err := c.Start(ctx, mcpclient.Request{ID: 7, Method: "tools/call", Params: map[string]any{"name": "x"}})
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.WaitResult(ctx)
			c.Close() // waits for the stream's reader
			if p.HTTPStatus() != http.StatusOK {
				t.Errorf("HTTPStatus %d, want 200", p.HTTPStatus())
			}
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Errorf("error %v, want %q", err, tt.err)
			}
			mu.Lock()
			defer mu.Unlock()
			if strings.Join(notes, "|") != strings.Join(tt.notes, "|") {
				t.Errorf("handlers got %q, want %q", notes, tt.notes)
			}
		})
	}
}

// TestListenHTTP: a subscription's stream stays open with its events
// until Close ends it.
func TestListenHTTP(t *testing.T) {
	ended := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m mcpclient.Message
		json.NewDecoder(r.Body).Decode(&m)
		w.Header().Set("Content-Type", "text/event-stream")
		tag := `"_meta":{"io.modelcontextprotocol/subscriptionId":` + string(m.ID) + `}`
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\"params\":{%s}}\n\n", tag)
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/list_changed\",\"params\":{%s}}\n\n", tag)
		w.(http.Flusher).Flush()
		<-r.Context().Done() // open until the client goes
		close(ended)
	}))
	defer ts.Close()
	c, err := mcpclient.Dial(ts.URL, &mcpclient.Options{HTTPClient: ts.Client()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := testCtx(t)
	s := &mcpclient.Session{Conn: c, Modern: true, Info: mcpclient.Implementation{Name: "t", Version: "1"}}
	sub, err := s.Listen(ctx, map[string]any{"resourcesListChanged": true})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"notifications/subscriptions/acknowledged", "notifications/resources/list_changed"} {
		if m := <-sub.Events(); m == nil || m.Method != want {
			t.Fatalf("event %+v, want %s", m, want)
		}
	}
	sub.Close(ctx)
	<-ended
	if _, open := <-sub.Events(); open {
		t.Error("Events still open after Close")
	}
}

// TestHTTPClientWithCA: a server with a certificate of a private CA is
// reached with that CA, and refused without it.
func TestHTTPClientWithCA(t *testing.T) {
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake
	ts.StartTLS()
	defer ts.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw})
	hc, err := mcpclient.HTTPClientWithCA(ca)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		hc   *http.Client
		want string
	}{{hc, ""}, {nil, "certificate"}} {
		c, err := mcpclient.Dial(ts.URL, &mcpclient.Options{HTTPClient: tt.hc})
		if err != nil {
			t.Fatal(err)
		}
		err = c.Call(testCtx(t), "ping", nil, nil)
		c.Close()
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("error %v, want %q", err, tt.want)
		}
	}
	if _, err := mcpclient.HTTPClientWithCA([]byte("not a certificate")); !errors.Is(err, mcpclient.ErrNoCertificate) {
		t.Errorf("a file with no certificate: %v, want ErrNoCertificate", err)
	}
}

// TestHTTPClientWithCAFile: the file's certificates are trusted; a file
// without one, a missing one and one past MaxCAFileBytes are refused, the
// last two naming the file.
func TestHTTPClientWithCAFile(t *testing.T) {
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer ts.Close()
	dir := t.TempDir()
	good, bad, big := filepath.Join(dir, "ca.pem"), filepath.Join(dir, "bad.pem"), filepath.Join(dir, "big.pem")
	os.WriteFile(good, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw}), 0o600)
	os.WriteFile(bad, []byte("not a certificate"), 0o600)
	os.WriteFile(big, make([]byte, mcpclient.MaxCAFileBytes+1), 0o600)
	hc, err := mcpclient.HTTPClientWithCAFile(good)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Get(ts.URL)
	if err != nil {
		t.Fatalf("the file's CA is not trusted: %v", err)
	}
	resp.Body.Close()
	if _, err := mcpclient.HTTPClientWithCAFile(bad); !errors.Is(err, mcpclient.ErrNoCertificate) {
		t.Errorf("no certificate: %v", err)
	}
	for _, p := range []string{filepath.Join(dir, "missing.pem"), big} {
		if _, err := mcpclient.HTTPClientWithCAFile(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v, want an error naming the file", p, err)
		}
	}
}

func TestDialURL(t *testing.T) {
	for _, u := range []string{"/mcp", "ftp://host/mcp", "http://"} {
		if _, err := mcpclient.Dial(u, nil); err == nil || !strings.Contains(err.Error(), "absolute http:// or https:// URL") {
			t.Errorf("Dial(%q): %v", u, err)
		}
	}
}

// TestOnDone: every request is handed to OnDone once, answered (with its
// answer's size), refused or abandoned.
func TestOnDone(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m mcpclient.Message
		json.NewDecoder(r.Body).Decode(&m)
		if m.Method == "slow" {
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if m.Method == "nope" {
			json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "no"}})
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{}})
	}))
	defer ts.Close()
	var (
		mu   sync.Mutex
		done = map[string][]int{}
	)
	c, err := mcpclient.Dial(ts.URL, &mcpclient.Options{OnDone: func(p *mcpclient.Pending) {
		mu.Lock()
		defer mu.Unlock()
		done[p.Method()] = append(done[p.Method()], p.Timing().AnswerBytes)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := testCtx(t)
	for range 2 {
		if err := c.Call(ctx, "ping", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Call(ctx, "nope", nil, nil); err == nil {
		t.Fatal("nope answered")
	}
	sctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := c.Call(sctx, "slow", nil, nil); err == nil {
		t.Fatal("slow answered")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(done["ping"]) != 2 || done["ping"][0] == 0 || len(done["nope"]) != 1 || done["nope"][0] == 0 || len(done["slow"]) != 1 || done["slow"][0] != 0 {
		t.Fatalf("OnDone saw %v", done)
	}
}
