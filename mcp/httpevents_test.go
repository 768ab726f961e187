package mcp

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The handshake-era GET stream (httpevents.go, docs/protocol.md §12).

// watchedHTTP serves a reloadable agent (agentText) over HTTP with opts
// and waits for its first version.
func watchedHTTP(t testing.TB, opts *HTTPOptions) (S *Server, url, path string, changes chan struct{}) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "agent.3md")
	writeByRename(t, path, agentText(1))
	changes = make(chan struct{}, 1)
	S, err := NewServer(context.Background(), &Options{Source: changing(openPathFunc(path), changes),
		Router: testRouterOptions(t), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(S.HTTPHandler(opts))
	t.Cleanup(func() { ts.Close(); S.Close() })
	for deadline := time.Now().Add(10 * time.Second); !S.Loaded(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the agent never loaded")
		}
	}
	return S, ts.URL, path, changes
}

// send sends a request (to Host host, unless "") and returns its answer
// and body.
func send(t *testing.T, method, url, body string, headers map[string]string, host string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// sseGet opens a GET with headers and returns the answer and, for an
// event stream, its blocks (an event, a comment or a retry field, as
// the text between blank lines), closed when the stream ends.
func sseGet(t *testing.T, url string, headers map[string]string) (*http.Response, <-chan string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	blocks := make(chan string, 64)
	go func() {
		defer close(blocks)
		sc := bufio.NewScanner(resp.Body)
		var b []string
		for sc.Scan() {
			if sc.Text() != "" {
				b = append(b, sc.Text())
				continue
			}
			if len(b) > 0 {
				blocks <- strings.Join(b, "\n")
			}
			b = nil
		}
	}()
	return resp, blocks
}

// nextBlock is the stream's next block; "" when it ended.
func nextBlock(t *testing.T, blocks <-chan string, what string) string {
	t.Helper()
	select {
	case b, ok := <-blocks:
		if !ok {
			return ""
		}
		return b
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s within 10s", what)
	}
	return ""
}

var eventStreamAccept = map[string]string{"Accept": "text/event-stream"}

func withHeaders(base map[string]string, kv ...string) map[string]string {
	h := map[string]string{}
	for k, v := range base {
		h[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		h[kv[i]] = kv[i+1]
	}
	return h
}

// TestHTTPGetRefused: a GET opens a stream only for a handshake-era client
// that accepts event streams, on a watched agent; everything else is
// refused with the status the transport rules give and a message saying
// why.
func TestHTTPGetRefused(t *testing.T) {
	_, url, _, _ := watchedHTTP(t, nil)
	_, still := httpServer(t, nil) // not watched
	for _, tt := range []struct {
		name, url string
		method    string
		headers   map[string]string
		status    int
		want      string
	}{
		{"no Accept", url, "GET", nil, 405, "only with Accept: text/event-stream"},
		{"JSON only", url, "GET", map[string]string{"Accept": "application/json"}, 405, "only with Accept: text/event-stream"},
		{"any type", url, "GET", map[string]string{"Accept": "*/*"}, 405, "only with Accept: text/event-stream"},
		{"2026-07-28", url, "GET", withHeaders(eventStreamAccept, "MCP-Protocol-Version", "2026-07-28"), 405, "subscriptions/listen"},
		{"modern Mcp-Method", url, "GET", withHeaders(eventStreamAccept, "Mcp-Method", "subscriptions/listen"), 405, "subscriptions/listen"},
		{"unknown revision", url, "GET", withHeaders(eventStreamAccept, "MCP-Protocol-Version", "1999-01-01"), 400, `"code":-32022`},
		{"not watched", still.URL, "GET", withHeaders(eventStreamAccept, "MCP-Protocol-Version", "2025-11-25"), 405, "not watched"},
		{"DELETE", url, "DELETE", withHeaders(eventStreamAccept, "MCP-Protocol-Version", "2025-11-25"), 405, "takes POST"},
		{"PUT", url, "PUT", eventStreamAccept, 405, "takes POST"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := send(t, tt.method, tt.url, "", tt.headers, "")
			if resp.StatusCode != tt.status || !strings.Contains(body, tt.want) {
				t.Errorf("status %d body %.300s; want %d containing %q", resp.StatusCode, body, tt.status, tt.want)
			}
			if tt.status == 405 && resp.Header.Get("Allow") != "POST" {
				t.Errorf("405 with Allow %q, want POST", resp.Header.Get("Allow"))
			}
		})
	}
}

// TestHTTPGetStreamCarriesReloads: a handshake-era GET is an event stream
// that tells of each reload with every list_changed the agent declares,
// without params, each under an id naming the new version; a 2025-11-25
// client gets an empty priming event first, naming the version it
// started on; keep-alive comments flow meanwhile.
func TestHTTPGetStreamCarriesReloads(t *testing.T) {
	S, url, path, changes := watchedHTTP(t, &HTTPOptions{KeepAlive: 20 * time.Millisecond})
	first := S.srv.versionTag()
	resp, blocks := sseGet(t, url, withHeaders(eventStreamAccept, "MCP-Protocol-Version", "2025-11-25"))
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" || resp.Header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("GET: %d %q session %q", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Mcp-Session-Id"))
	}
	prime := nextBlock(t, blocks, "priming event")
	if !strings.HasPrefix(prime, "id: "+first+".") || !strings.HasSuffix(prime, "\ndata: ") {
		t.Fatalf("first block %q, want an empty event with an id naming version %s", prime, first)
	}
	if b := nextBlock(t, blocks, "keep-alive"); b != ": keep-alive" {
		t.Fatalf("block %q, want a keep-alive comment", b)
	}
	writeByRename(t, path, agentText(2))
	changes <- struct{}{}
	want := []string{methodToolsChanged, methodResChanged, methodPromptsChanged}
	var second string
	ids := map[string]bool{strings.Fields(prime)[1]: true}
	for len(want) > 0 {
		b := nextBlock(t, blocks, want[0])
		if b == ": keep-alive" {
			continue
		}
		lines := strings.Split(b, "\n")
		if len(lines) != 3 || lines[1] != "event: message" || lines[2] != `data: {"jsonrpc":"2.0","method":"`+want[0]+`"}` {
			t.Fatalf("event %q, want %s without params", b, want[0])
		}
		id := strings.TrimPrefix(lines[0], "id: ")
		tag, _, _ := strings.Cut(id, ".")
		if second == "" {
			second = tag
		}
		if tag != second || tag == first || ids[id] {
			t.Errorf("event id %q: want a new id naming the reloaded version (not %s)", id, first)
		}
		ids[id] = true
		want = want[1:]
	}
	if second != S.srv.versionTag() {
		t.Errorf("events name version %s, the server serves %s", second, S.srv.versionTag())
	}
}

// TestHTTPGetStreamPrimingByRevision: the empty priming event goes only
// to 2025-11-25 clients; earlier revisions' clients may fail on an event
// without data, so theirs starts with nothing but keep-alives.
func TestHTTPGetStreamPrimingByRevision(t *testing.T) {
	_, url, _, _ := watchedHTTP(t, &HTTPOptions{KeepAlive: 20 * time.Millisecond})
	for _, v := range []string{"", "2025-03-26", "2025-06-18", "2024-11-05"} {
		_, blocks := sseGet(t, url, withHeaders(eventStreamAccept, "MCP-Protocol-Version", v))
		if b := nextBlock(t, blocks, "keep-alive"); b != ": keep-alive" {
			t.Errorf("revision %q: first block %q, want a keep-alive comment", v, b)
		}
	}
}

// TestHTTPGetStreamResume: a client reconnecting with the Last-Event-ID
// of another version (a reload it missed, a replica serving other files,
// an id that is not ours) is told at once; one that saw the version in
// force is told nothing.
func TestHTTPGetStreamResume(t *testing.T) {
	S, url, _, _ := watchedHTTP(t, &HTTPOptions{KeepAlive: 20 * time.Millisecond})
	tag := S.srv.versionTag()
	for _, tt := range []struct {
		last string
		told bool
	}{
		{eventID(tag, "0badc0de", 7), false},
		{eventID("0123456789abcdef", "0badc0de", 7), true},
		{"42", true},
		{"", false},
	} {
		_, blocks := sseGet(t, url, withHeaders(eventStreamAccept, "Last-Event-ID", tt.last))
		b := nextBlock(t, blocks, "first block")
		if told := strings.Contains(b, methodToolsChanged); told != tt.told {
			t.Errorf("Last-Event-ID %q: first block %q; told of a reload %v, want %v", tt.last, b, told, tt.told)
		}
	}
}

// TestHTTPGetStreamEnds: a stream ends, asking its client to reconnect
// shortly, when the HTTP server drains and when the agent closes; a
// closed agent opens none.
func TestHTTPGetStreamEnds(t *testing.T) {
	drain := make(chan struct{})
	_, url, _, _ := watchedHTTP(t, &HTTPOptions{KeepAlive: time.Hour, Draining: func(context.Context) <-chan struct{} { return drain }})
	_, draining := sseGet(t, url, eventStreamAccept)
	close(drain)
	if b := nextBlock(t, draining, "retry"); b != "retry: 2000" {
		t.Errorf("on drain: %q, want a retry field", b)
	}
	if b := nextBlock(t, draining, "end"); b != "" {
		t.Errorf("after the retry field: %q, want the end", b)
	}

	S2, url2, _, _ := watchedHTTP(t, &HTTPOptions{KeepAlive: time.Hour})
	_, closing := sseGet(t, url2, eventStreamAccept)
	if S2.srv.changes.count() != 1 { // registered before its headers, which sseGet waited for
		t.Fatalf("%d streams registered, want 1", S2.srv.changes.count())
	}
	S2.Close()
	if b := nextBlock(t, closing, "retry"); b != "retry: 2000" {
		t.Errorf("on Close: %q, want a retry field", b)
	}
	if b := nextBlock(t, closing, "end"); b != "" {
		t.Errorf("after the retry field: %q, want the end", b)
	}
	resp, _ := sseGet(t, url2, eventStreamAccept)
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("GET on a closed agent: %d, want 503", resp.StatusCode)
	}
}

// TestHTTPGetStreamOnStream: a GET stream asks OnStream first, and when
// the hook refuses (having answered) nothing is opened or registered.
func TestHTTPGetStreamOnStream(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	S, url, _, _ := watchedHTTP(t, &HTTPOptions{OnStream: func(w http.ResponseWriter, r *http.Request) bool {
		mu.Lock()
		asked = append(asked, r.Method)
		mu.Unlock()
		w.WriteHeader(http.StatusServiceUnavailable)
		return false
	}})
	resp, _ := sseGet(t, url, eventStreamAccept)
	if resp.StatusCode != http.StatusServiceUnavailable || S.srv.changes.count() != 0 {
		t.Errorf("refused stream: %d with %d streams registered, want the hook's 503 and none", resp.StatusCode, S.srv.changes.count())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || asked[0] != "GET" {
		t.Errorf("OnStream asked for %q, want the GET", asked)
	}
}

// stallWriter is a ResponseWriter whose writes can be held, as a client
// that stops reading holds them once the connection's buffers are full.
type stallWriter struct {
	header  http.Header
	headers chan struct{} // closed at WriteHeader
	mu      sync.Mutex
	hold    chan struct{} // non-nil: writes wait for it to close
	entered chan struct{} // a write is waiting
	wrote   chan string   // every write, once done
	fail    error
	out     strings.Builder
}

func newStallWriter() *stallWriter {
	return &stallWriter{header: http.Header{}, headers: make(chan struct{}), entered: make(chan struct{}, 64), wrote: make(chan string, 64)}
}

func (w *stallWriter) Header() http.Header { return w.header }
func (w *stallWriter) WriteHeader(int)     { close(w.headers) }
func (w *stallWriter) Flush()              {}

func (w *stallWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	hold, fail := w.hold, w.fail
	w.mu.Unlock()
	if fail != nil {
		return 0, fail
	}
	if hold != nil {
		w.entered <- struct{}{}
		<-hold
	}
	w.mu.Lock()
	w.out.Write(b)
	w.mu.Unlock()
	select { // the test reads the first few; a runaway writer must not block
	case w.wrote <- string(b):
	default:
	}
	return len(b), nil
}

// TestChangeStreamSlowReader: a client that stops reading holds one
// pending mark however many reloads pass (a reload never waits on it),
// and hears them as one announcement once it reads again; a write that
// fails drops the stream.
func TestChangeStreamSlowReader(t *testing.T) {
	S, _, _, _ := watchedHTTP(t, nil)
	h := S.HTTPHandler(&HTTPOptions{KeepAlive: time.Hour})
	run := func(w *stallWriter) (cancel func(), done chan struct{}) {
		ctx, cancel := context.WithCancel(context.Background())
		req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/", nil)
		req.Header.Set("Accept", "text/event-stream")
		done = make(chan struct{})
		go func() { defer close(done); h.ServeHTTP(w, req) }()
		<-w.headers
		return cancel, done
	}

	w := newStallWriter()
	hold := make(chan struct{})
	w.hold = hold
	cancel, done := run(w)
	S.srv.changes.pokeAll()
	<-w.entered // the first announcement is stuck in its write
	for range 10000 {
		S.srv.changes.pokeAll()
	}
	S.srv.changes.mu.Lock()
	for cs := range S.srv.changes.open {
		if len(cs.changed) != 1 {
			t.Errorf("%d marks pending, want one", len(cs.changed))
		}
	}
	S.srv.changes.mu.Unlock()
	w.mu.Lock()
	w.hold = nil
	w.mu.Unlock()
	close(hold)
	<-w.wrote // the stuck one
	<-w.wrote // the 10,000 coalesced
	cancel()
	<-done
	if n := strings.Count(w.out.String(), methodToolsChanged); n != 2 {
		t.Errorf("tools list_changed written %d times, want 2:\n%s", n, w.out.String())
	}

	w = newStallWriter()
	w.fail = errors.New("connection reset")
	_, done = run(w)
	S.srv.changes.pokeAll()
	<-done
	if n := S.srv.changes.count(); n != 0 {
		t.Errorf("%d streams registered after the write failed, want 0", n)
	}
}

func TestMissedReload(t *testing.T) {
	for _, tt := range []struct {
		last, tag string
		want      bool
	}{
		{"", "abc", false},
		{"abc.1234.1", "abc", false},
		{"abd.1234.1", "abc", true},
		{"abc", "abc", false},
		{"garbage", "abc", true},
		{"abc.1.1", "", true},
	} {
		if got := missedReload(tt.last, tt.tag); got != tt.want {
			t.Errorf("missedReload(%q, %q) = %v, want %v", tt.last, tt.tag, got, tt.want)
		}
	}
}

func TestAcceptsEventStream(t *testing.T) {
	for _, tt := range []struct {
		accept []string
		want   bool
	}{
		{nil, false},
		{[]string{"text/event-stream"}, true},
		{[]string{"application/json, Text/Event-Stream;q=0.9"}, true},
		{[]string{"application/json", "text/event-stream"}, true},
		{[]string{"*/*"}, false},
		{[]string{"text/event-streams"}, false},
	} {
		if got := acceptsEventStream(tt.accept); got != tt.want {
			t.Errorf("acceptsEventStream(%q) = %v, want %v", tt.accept, got, tt.want)
		}
	}
}
