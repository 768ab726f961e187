package httpd

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/mcp"
	"github.com/agent3md/agent3md/router"
)

// A handshake-era client's GET stream of change notifications (the mcp
// adapter's, docs/http.md §1) behind this package's chain: it passes the
// same Host, Origin and token checks as any request, holds one of
// MaxStreams (counted apart as a GET stream), ends when the server
// drains, and carries a reload.

// watchedAgent serves a copy of examples/devtools.3md, watched: the
// returned edit rewrites the file and signals the change.
func watchedAgent(t *testing.T) (http.Handler, func()) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "devtools.3md"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "devtools.3md")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	open := func(context.Context) (*loader.Agent, error) { return loader.Open(path, nil) }
	changes := make(chan struct{}, 1)
	S, err := mcp.NewServer(context.Background(), &mcp.Options{Open: open, Reopen: open, Changes: changes,
		Router: &router.Options{CacheDir: t.TempDir(), NoCache: true}, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(S.Close)
	h := S.HTTPHandler(&mcp.HTTPOptions{OnStream: StartStream, Draining: Draining, ReserveAnswer: ReserveAnswer})
	edit := func() {
		if err := os.WriteFile(path, append(src, "\n"...), 0o644); err != nil {
			t.Fatal(err)
		}
		changes <- struct{}{}
	}
	return h, edit
}

// getStream opens a GET stream with headers; its lines arrive on the
// channel until it ends.
func getStream(t *testing.T, url string, headers map[string]string) (*http.Response, <-chan string) {
	t.Helper()
	hr, _ := http.NewRequest(http.MethodGet, url, nil)
	hr.Header.Set("Accept", "text/event-stream")
	for k, v := range headers {
		hr.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return resp, lines
}

// waitLine reads lines until one contains want; false when the stream
// ends first.
func waitLine(t *testing.T, lines <-chan string, want string) bool {
	t.Helper()
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				return false
			}
			if strings.Contains(l, want) {
				return true
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("no line with %q within 20s", want)
		}
	}
}

// TestGetStreamBehindServer: the checks, the bound, the count and the
// events of a GET stream served through the whole chain.
func TestGetStreamBehindServer(t *testing.T) {
	h, edit := watchedAgent(t)
	obs := newRecordingObserver()
	r := start(t, Options{Tokens: []string{tokA}, MaxStreams: 2, Observer: obs}, Endpoints{Agents: map[string]http.Handler{"forge": h}})
	auth := map[string]string{"Authorization": "Bearer " + tokA, "MCP-Protocol-Version": "2025-11-25"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{"Accept": "text/event-stream"}
		for k, v := range auth {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	// Refused before any stream opens, each counted as what it is.
	runCases(t, r, []statusCase{
		{name: "no token", req: req{method: "GET", path: "/mcp", headers: map[string]string{"Accept": "text/event-stream"}}, status: 401,
			header: map[string]string{"WWW-Authenticate": `Bearer realm="agent3md"`}},
		{name: "wrong token", req: req{method: "GET", path: "/mcp", headers: with("Authorization", "Bearer "+tokB)}, status: 401},
		{name: "foreign origin", req: req{method: "GET", path: "/mcp", headers: with("Origin", "http://evil.example.com")}, status: 403},
		{name: "foreign host", req: req{method: "GET", path: "/mcp", headers: with(), host: "evil.example.com"}, status: 403},
	})
	// Past the checks, the adapter's own refusals (its bodies carry "id":
	// null, not this package's id-less form).
	for _, q := range []req{
		{method: "GET", path: "/mcp", headers: with("MCP-Protocol-Version", "2026-07-28")},
		{method: "GET", path: "/mcp", headers: with("Accept", "application/json")},
		{method: "DELETE", path: "/mcp", headers: with()},
	} {
		if resp, body := r.do(t, nil, q); resp.StatusCode != 405 || resp.Header.Get("Allow") != "POST" {
			t.Errorf("%s %v: %d Allow %q %s, want 405 Allow POST", q.method, q.headers, resp.StatusCode, resp.Header.Get("Allow"), body)
		}
	}
	for range 7 {
		obs.next(t)
	}
	resp, lines := getStream(t, r.url+"/mcp/forge", auth)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET stream: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if l := r.srv.Load(); l.Streams != 1 || l.GetStreams != 1 || l.InFlight != 0 {
		t.Errorf("load with one GET stream: %+v, want 1 stream, a GET one, and no request slot held", l)
	}
	// A listen stream shares the bound: with it the bound is full.
	listen := `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"notifications":{"toolsListChanged":true}}}`
	hr, _ := http.NewRequest("POST", r.url+"/mcp", strings.NewReader(listen))
	for k, v := range map[string]string{"Authorization": "Bearer " + tokA, "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen"} {
		hr.Header.Set(k, v)
	}
	lresp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer lresp.Body.Close()
	if l := r.srv.Load(); lresp.StatusCode != 200 || l.Streams != 2 || l.GetStreams != 1 {
		t.Errorf("listen beside the GET stream: %d, load %+v; want 200 and 2 streams, 1 a GET one", lresp.StatusCode, l)
	}
	runCases(t, r, []statusCase{
		{name: "a GET stream past MaxStreams", req: req{method: "GET", path: "/mcp", headers: with()}, status: 503,
			header: map[string]string{"Retry-After": "1"}, bodyHas: []string{"2 streams already open", "--max-streams"}},
	})
	if rec := obs.next(t); rec.Rejection != RejectStreams || rec.Status != 503 {
		t.Errorf("refused stream recorded as %+v, want a max_streams 503", rec)
	}
	if !waitLine(t, lines, "data: ") { // the priming event of a 2025-11-25 client
		t.Fatal("the stream ended before its priming event")
	}
	// A request that needs the skills waits for the first version: an
	// edit made while it still loads would be part of it, not a change.
	if resp, body := r.do(t, nil, req{path: "/mcp", body: `{"jsonrpc":"2.0","id":2,"method":"resources/list"}`,
		headers: map[string]string{"Authorization": "Bearer " + tokA, "Content-Type": "application/json", "Accept": "application/json"}}); resp.StatusCode != 200 || !strings.Contains(body, "skill://") {
		t.Fatalf("resources/list: %d %.300s", resp.StatusCode, body)
	}
	obs.next(t)
	edit()
	if !waitLine(t, lines, `"method":"notifications/tools/list_changed"`) {
		t.Fatal("the stream ended before the reload's tools list_changed")
	}
	// Shutdown ends the stream at once (not after ShutdownTimeout): the
	// listen's client leaves first, since a listen ends with its agent
	// (serve closes the agents as it drains), which stays open here.
	lresp.Body.Close()
	r.cancel()
	if !waitLine(t, lines, "retry: ") {
		t.Error("the stream ended on shutdown without asking its client to come back")
	}
	for l := range lines {
		if l != "" {
			t.Errorf("the stream went on after the retry field: %q", l)
		}
	}
	select {
	case err := <-r.done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
		r.done <- err // for start's cleanup
	case <-time.After(20 * time.Second):
		t.Fatal("shutdown waited on the open streams")
	}
	for range 2 { // the listen's and the GET stream's records, in either order
		if rec := obs.next(t); rec.Method == "" && (!rec.Stream || rec.Status != 200) {
			t.Errorf("GET stream recorded as %+v, want a 200 stream", rec)
		}
	}
	if l := r.srv.Load(); l.Streams != 0 || l.GetStreams != 0 {
		t.Errorf("load after shutdown: %+v, want no stream", l)
	}
}
