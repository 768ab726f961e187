package mcp

import (
	"context"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent3md/agent3md/internal/httpd"
)

// The GET stream behind the HTTP server agent3md serve runs
// (internal/httpd, docs/http.md §1): it passes the same Host, Origin and
// token checks as any request, holds one of MaxStreams (counted apart as
// a GET stream), carries a reload and ends when the server drains.

const streamToken = "stream-test-0123456789abcdef"

// recordSink is an httpd.Observer that hands over every record.
type recordSink chan httpd.RequestRecord

func (r recordSink) Request(rec httpd.RequestRecord) { r <- rec }
func (recordSink) CredentialReload(string, error)    {}

func (r recordSink) next(t *testing.T) httpd.RequestRecord {
	t.Helper()
	select {
	case rec := <-r:
		return rec
	case <-time.After(20 * time.Second):
		t.Fatal("no request record within 20s")
	}
	return httpd.RequestRecord{}
}

// waitBlock reads a stream's blocks until one contains want; false when
// the stream ends first.
func waitBlock(t *testing.T, blocks <-chan string, want string) bool {
	t.Helper()
	for {
		b := nextBlock(t, blocks, want)
		if b == "" {
			return false
		}
		if strings.Contains(b, want) {
			return true
		}
	}
}

func TestGetStreamBehindHTTPServer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.3md")
	writeByRename(t, path, agentText(1))
	changes := make(chan struct{}, 1)
	S, err := NewServer(context.Background(), &Options{Source: changing(openPathFunc(path), changes),
		Router: testRouterOptions(t), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(S.Close)
	obs := make(recordSink, 64)
	srv, err := httpd.New(&httpd.Options{Addr: "127.0.0.1:0", Tokens: []string{streamToken}, MaxStreams: 2, Observer: obs,
		ShutdownTimeout: time.Hour, Logger: slog.New(slog.DiscardHandler)},
		httpd.Endpoints{Agents: map[string]http.Handler{"forge": S.HTTPHandler(&HTTPOptions{OnStream: httpd.StartStream, Draining: httpd.Draining})}})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx) }()
	t.Cleanup(func() {
		stop()
		<-served
	})
	url := "http://" + srv.Addr().String() + "/mcp"
	auth := map[string]string{"Accept": "text/event-stream", "Authorization": "Bearer " + streamToken, "MCP-Protocol-Version": "2025-11-25"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range auth {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	// Refused before any stream opens: the server's checks, then the
	// adapter's own refusals.
	for _, tt := range []struct {
		name, method string
		headers      map[string]string
		host         string
		status       int
	}{
		{"no token", "GET", map[string]string{"Accept": "text/event-stream"}, "", 401},
		{"wrong token", "GET", with("Authorization", "Bearer wrong-0123456789abcdef"), "", 401},
		{"foreign origin", "GET", with("Origin", "http://evil.example.com"), "", 403},
		{"foreign host", "GET", with(), "evil.example.com", 403},
		{"modern GET", "GET", with("MCP-Protocol-Version", "2026-07-28"), "", 405},
		{"no event-stream Accept", "GET", with("Accept", "application/json"), "", 405},
		{"DELETE", "DELETE", with(), "", 405},
	} {
		if resp, body := send(t, tt.method, url, "", tt.headers, tt.host); resp.StatusCode != tt.status {
			t.Errorf("%s: %d %.200s, want %d", tt.name, resp.StatusCode, body, tt.status)
		}
		if rec := obs.next(t); rec.Stream {
			t.Errorf("%s: recorded as a stream", tt.name)
		}
	}
	if l := srv.Load(); l.Streams != 0 {
		t.Fatalf("streams open after refusals: %+v", l)
	}
	resp, blocks := sseGet(t, url+"/forge", auth)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET stream: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if l := srv.Load(); l.Streams != 1 || l.GetStreams != 1 || l.InFlight != 0 {
		t.Errorf("load with one GET stream: %+v, want 1 stream, a GET one, and no request slot held", l)
	}
	// A listen shares the bound: with it the bound is full.
	lreq, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{`+httpModernMeta+`,"notifications":{"toolsListChanged":true}}}`))
	for k, v := range modernHeaders("subscriptions/listen", "") {
		lreq.Header.Set(k, v)
	}
	lreq.Header.Set("Authorization", "Bearer "+streamToken)
	lresp, err := http.DefaultClient.Do(lreq)
	if err != nil {
		t.Fatal(err)
	}
	defer lresp.Body.Close()
	if l := srv.Load(); lresp.StatusCode != 200 || l.Streams != 2 || l.GetStreams != 1 {
		t.Errorf("listen beside the GET stream: %d, load %+v; want 200 and 2 streams, 1 a GET one", lresp.StatusCode, l)
	}
	full, body := send(t, "GET", url, "", with(), "")
	if full.StatusCode != 503 || full.Header.Get("Retry-After") != "1" || !strings.Contains(body, "--max-streams") {
		t.Errorf("a GET stream past MaxStreams: %d Retry-After %q %.200s; want 503 naming --max-streams", full.StatusCode, full.Header.Get("Retry-After"), body)
	}
	if rec := obs.next(t); rec.Rejection != httpd.RejectStreams || rec.Status != 503 {
		t.Errorf("refused stream recorded as %+v, want a max_streams 503", rec)
	}
	if !waitBlock(t, blocks, "data: ") { // the priming event of a 2025-11-25 client
		t.Fatal("the stream ended before its priming event")
	}
	for !S.Loaded() { // an edit made while the first version loads is part of it
		time.Sleep(5 * time.Millisecond)
	}
	writeByRename(t, path, agentText(2))
	changes <- struct{}{}
	if !waitBlock(t, blocks, `data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`) {
		t.Fatal("the stream ended before the reload's tools list_changed")
	}
	// Shutdown ends the stream at once, not after ShutdownTimeout (an
	// hour); the listen's client leaves first, since a listen ends with
	// its agent (serve closes the agents as it drains), open here.
	lresp.Body.Close()
	stop()
	if !waitBlock(t, blocks, "retry: 2000") {
		t.Error("the stream ended on shutdown without asking its client to come back")
	}
	if b := nextBlock(t, blocks, "end"); b != "" {
		t.Errorf("the stream went on after the retry field: %q", b)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
		served <- err // for the cleanup
	case <-time.After(20 * time.Second):
		t.Fatal("shutdown waited on the open streams")
	}
	for range 2 { // the listen's and the GET stream's records, in either order
		if rec := obs.next(t); rec.Method == "" && (!rec.Stream || rec.Status != 200) {
			t.Errorf("GET stream recorded as %+v, want a 200 stream", rec)
		}
	}
	if l := srv.Load(); l.Streams != 0 || l.GetStreams != 0 {
		t.Errorf("load after shutdown: %+v, want no stream", l)
	}
}
