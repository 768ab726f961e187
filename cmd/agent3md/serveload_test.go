package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// serveLoad is how long each load run keeps its clients busy. The default
// keeps `go test` quick; `go test ./cmd/agent3md -run TestServeLoad
// -serve.load=30s` runs longer.
var serveLoad = flag.Duration("serve.load", 2*time.Second, "how long TestServeLoad keeps its 64 clients busy")

// loadClients is the number of concurrent keep-alive clients.
const loadClients = 64

// loadWordList names the skills of the load agent: one word each, so a
// route names exactly one skill.
var loadWordList = []string{"amber", "birch", "cedar", "delta", "ember", "fjord", "gable", "heron",
	"iris", "jasper", "kelp", "lotus", "maple", "nectar", "onyx", "pebble",
	"quartz", "raven", "sorrel", "thistle", "umber", "violet", "willow", "yarrow"}

// loadAgent is the load agent in one edition. Every skill's description
// and body and the identity name the edition, so each answer says which
// version of the file it came from; every skill but the first depends on
// the first, so prompts/get spans two skills of one version.
func loadAgent(edition string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\n3md: 1.0\ntitle: Loadtest\nagent: loadtest\n---\n@plane z=0 kind=identity\n# Loadtest\n\nEdition %s of the load test agent.\n", edition)
	for i, w := range loadWordList {
		fmt.Fprintf(&b, "\n@plane z=%d label=\"task-%s\" kind=skill triggers=\"%s job, run %s\" inputs=\"target:string\"\n# Task %s\n\nEdition %s of task %s: use this to run the %s job.\n",
			i+1, w, w, w, w, edition, w, w)
		if i > 0 {
			b.WriteString("\nFirst see [[z=1]].\n")
		}
	}
	return b.String()
}

// editionsIn lists the editions an answer mentions.
func editionsIn(text string) []string {
	var out []string
	for _, e := range []string{"ALPHA", "BRAVO"} {
		if strings.Contains(text, "Edition "+e) {
			out = append(out, e)
		}
	}
	return out
}

// logWatch is the in-process server's stderr: it finds the bound address
// and the reload, and keeps the lines that are not per-request logs.
type logWatch struct {
	mu       sync.Mutex
	partial  []byte
	kept     bytes.Buffer
	addr     chan string
	reloaded chan struct{}
	once     sync.Once
}

func newLogWatch() *logWatch {
	return &logWatch{addr: make(chan string, 1), reloaded: make(chan struct{})}
}

func (l *logWatch) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		line := string(l.partial[:i])
		l.partial = l.partial[i+1:]
		if m := listeningRE.FindStringSubmatch(line); m != nil {
			select {
			case l.addr <- m[1]:
			default:
			}
		}
		if strings.Contains(line, `msg="agent reloaded"`) {
			l.once.Do(func() { close(l.reloaded) })
		}
		if !strings.Contains(line, `msg="http request"`) && l.kept.Len() < 1<<20 {
			l.kept.WriteString(line + "\n")
		}
	}
	return len(p), nil
}

func (l *logWatch) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.kept.String()
}

// loadStats are the counts of one run.
type loadStats struct {
	sent, answered, unavailable atomic.Int64
	alpha, bravo                atomic.Int64
	mu                          sync.Mutex
	errors                      []string
	seen                        map[int64]bool // ids answered
}

func (s *loadStats) fail(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.errors) < 20 {
		s.errors = append(s.errors, fmt.Sprintf(format, args...))
	}
}

// loadRequest is one request of the mix and how to check its answer.
type loadRequest struct {
	method string
	params map[string]any
	name   string                             // Mcp-Name, for the methods that carry one
	check  func(result json.RawMessage) error // checks what the answer says
	text   func(result json.RawMessage) string
}

// loadMix is the k-th request of the mix for skill word w.
func loadMix(k int, w string) loadRequest {
	skill := "task-" + w
	toolText := func(raw json.RawMessage) string {
		var r struct {
			Content []struct{ Text string } `json:"content"`
		}
		json.Unmarshal(raw, &r)
		if len(r.Content) == 0 {
			return ""
		}
		return r.Content[0].Text
	}
	switch k % 6 {
	case 0:
		return loadRequest{method: "tools/call", name: "route_skill",
			params: map[string]any{"name": "route_skill", "arguments": map[string]any{"text": "please run " + w + " now"}},
			check: func(raw json.RawMessage) error {
				if t := toolText(raw); !strings.HasPrefix(t, skill+"  (score ") {
					return fmt.Errorf("route_skill %q answered %.80q, want %s first", w, t, skill)
				}
				return nil
			}}
	case 1:
		return loadRequest{method: "tools/call", name: "get_skill",
			params: map[string]any{"name": "get_skill", "arguments": map[string]any{"name": skill}},
			text:   toolText,
			check: func(raw json.RawMessage) error {
				if t := toolText(raw); !strings.Contains(t, "of task "+w+":") {
					return fmt.Errorf("get_skill %s answered %.80q", skill, t)
				}
				return nil
			}}
	case 2:
		uri := "skill://" + skill + "/SKILL.md"
		text := func(raw json.RawMessage) string {
			var r struct {
				Contents []struct{ Text string } `json:"contents"`
			}
			json.Unmarshal(raw, &r)
			if len(r.Contents) == 0 {
				return ""
			}
			return r.Contents[0].Text
		}
		return loadRequest{method: "resources/read", name: uri, params: map[string]any{"uri": uri}, text: text,
			check: func(raw json.RawMessage) error {
				if t := text(raw); !strings.Contains(t, "name: \""+skill+"\"") && !strings.Contains(t, "name: "+skill+"\n") {
					return fmt.Errorf("resources/read %s answered %.80q", uri, t)
				}
				return nil
			}}
	case 3:
		return loadRequest{method: "skills/list", params: map[string]any{},
			text: func(raw json.RawMessage) string { return string(raw) },
			check: func(raw json.RawMessage) error {
				var r struct {
					Skills []json.RawMessage `json:"skills"`
				}
				if err := json.Unmarshal(raw, &r); err != nil || len(r.Skills) != len(loadWordList) {
					return fmt.Errorf("skills/list: %d skills (%v), want %d", len(r.Skills), err, len(loadWordList))
				}
				return nil
			}}
	case 4:
		return loadRequest{method: "prompts/get", name: skill,
			params: map[string]any{"name": skill, "arguments": map[string]any{"target": "x"}},
			text:   func(raw json.RawMessage) string { return string(raw) },
			check: func(raw json.RawMessage) error {
				if !strings.Contains(string(raw), "### "+skill) {
					return fmt.Errorf("prompts/get %s answered %.120s", skill, raw)
				}
				return nil
			}}
	default:
		return loadRequest{method: "tools/list",
			check: func(raw json.RawMessage) error {
				var r struct {
					Tools []json.RawMessage `json:"tools"`
				}
				if err := json.Unmarshal(raw, &r); err != nil || len(r.Tools) != 5 {
					return fmt.Errorf("tools/list: %d tools (%v), want 5", len(r.Tools), err)
				}
				return nil
			}}
	}
}

// loadClient is one keep-alive client: its own connection pool, one
// request at a time, every other client in the 2026-07-28 era.
type loadClient struct {
	url    string
	http   *http.Client
	modern bool
	ids    *atomic.Int64
	stats  *loadStats
	last   string // the newest edition this client has been answered with
}

// do sends the k-th request of the mix and checks its answer.
func (c *loadClient) do(k int) {
	w := loadWordList[k%len(loadWordList)]
	q := loadMix(k/len(loadWordList)+k, w)
	id := c.ids.Add(1)
	params := q.params
	if params == nil {
		params = map[string]any{}
	}
	hdr := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	if c.modern {
		p := map[string]any{}
		for k, v := range params {
			p[k] = v
		}
		p["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": map[string]any{}}
		params = p
		hdr.Set("MCP-Protocol-Version", "2026-07-28")
		hdr.Set("Mcp-Method", q.method)
		if q.name != "" {
			hdr.Set("Mcp-Name", q.name)
		}
	} else {
		hdr.Set("MCP-Protocol-Version", "2025-11-25")
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": q.method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
	req.Header = hdr
	c.stats.sent.Add(1)
	resp, err := c.http.Do(req)
	if err != nil {
		c.stats.fail("%s id %d: lost: %v", q.method, id, err)
		return
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		c.stats.fail("%s id %d: answer cut off: %v", q.method, id, err)
		return
	}
	if resp.StatusCode == http.StatusServiceUnavailable {
		if resp.Header.Get("Retry-After") == "" {
			c.stats.fail("%s id %d: 503 without Retry-After", q.method, id)
		}
		c.stats.unavailable.Add(1)
		return
	}
	if resp.StatusCode != http.StatusOK {
		c.stats.fail("%s id %d: status %d: %.200s", q.method, id, resp.StatusCode, data)
		return
	}
	a, err := decodeAnswer(resp, data)
	if err != nil {
		c.stats.fail("%s id %d: %v", q.method, id, err)
		return
	}
	if string(a.ID) != fmt.Sprint(id) {
		c.stats.fail("%s id %d: answered with id %s (mismatched)", q.method, id, a.ID)
		return
	}
	c.stats.mu.Lock()
	dup := c.stats.seen[id]
	c.stats.seen[id] = true
	c.stats.mu.Unlock()
	if dup {
		c.stats.fail("%s id %d: answered twice", q.method, id)
		return
	}
	if a.Error != nil {
		c.stats.fail("%s id %d: error %d %s", q.method, id, a.Error.Code, a.Error.Message)
		return
	}
	if err := q.check(a.Result); err != nil {
		c.stats.fail("id %d: %v", id, err)
		return
	}
	if q.text != nil {
		eds := editionsIn(q.text(a.Result))
		switch {
		case len(eds) != 1:
			c.stats.fail("%s id %d: answer names editions %v; want exactly one version: %.200s", q.method, id, eds, a.Result)
			return
		case eds[0] < c.last:
			c.stats.fail("%s id %d: answered from %s after this client saw %s: the old version came back", q.method, id, eds[0], c.last)
		}
		c.last = eds[0]
		if eds[0] == "ALPHA" {
			c.stats.alpha.Add(1)
		} else {
			c.stats.bravo.Add(1)
		}
	}
	c.stats.answered.Add(1)
}

// startInProcessServe runs `agent3md serve` inside the test process (so
// its goroutines and heap are the test's to count) and returns its URL,
// its log and a stop function that waits for it to exit 0.
func startInProcessServe(t *testing.T, args ...string) (url string, log *logWatch, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	log = newLogWatch()
	done := make(chan int, 1)
	full := append([]string{"serve", "--addr", "127.0.0.1:0", "--cache-dir", t.TempDir()}, args...)
	go func() { done <- run(ctx, full, strings.NewReader(""), io.Discard, log) }()
	select {
	case addr := <-log.addr:
		url = "http://" + addr + "/mcp"
	case code := <-done:
		cancel()
		t.Fatalf("agent3md serve exited %d before listening:\n%s", code, log)
	case <-time.After(60 * time.Second):
		cancel()
		t.Fatalf("agent3md serve did not listen within 60s:\n%s", log)
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case code := <-done:
				if code != 0 {
					t.Errorf("agent3md serve exited %d:\n%s", code, log)
				}
			case <-time.After(30 * time.Second):
				t.Errorf("agent3md serve did not stop within 30s of its context ending")
			}
		})
	}
	t.Cleanup(stop)
	return url, log, stop
}

// settle waits, for a bounded time, until the goroutine count is at most
// limit, and returns the last count seen.
func settle(limit int) int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(10 * time.Second); n > limit && time.Now().Before(deadline); n = runtime.NumGoroutine() {
		time.Sleep(50 * time.Millisecond)
	}
	return n
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// openListen opens a 2026-07-28 subscriptions/listen stream for list
// changes and returns once it is acknowledged; its lines keep arriving on
// the returned channel until close is called.
func openListen(t *testing.T, url string) (events <-chan string, closeStream func()) {
	t.Helper()
	tr := &http.Transport{}
	ev, cl := openListenWith(t, &http.Client{Transport: tr}, url)
	return ev, func() { cl(); tr.CloseIdleConnections() }
}

// openListenWith is openListen over the given client; the channel closes
// when the stream ends.
func openListenWith(t *testing.T, client *http.Client, url string) (events <-chan string, closeStream func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	body := `{"jsonrpc":"2.0","id":"listen-1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"resourcesListChanged":true},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header = http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
		"MCP-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"subscriptions/listen"}}
	resp, err := client.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("subscriptions/listen: %v", err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		t.Fatalf("subscriptions/listen: status %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	ch := make(chan string, 64)
	acked := make(chan struct{})
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(resp.Body)
		var once sync.Once
		for sc.Scan() {
			line := sc.Text()
			if strings.Contains(line, "notifications/subscriptions/acknowledged") {
				once.Do(func() { close(acked) })
			}
			select {
			case ch <- line:
			default:
			}
		}
	}()
	select {
	case <-acked:
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("subscriptions/listen was not acknowledged within 30s")
	}
	return ch, func() { cancel(); resp.Body.Close() }
}

// runLoad keeps loadClients clients busy until the time is up and until
// (when wait is set) the server has reloaded, then closes their
// connections.
func runLoad(t *testing.T, url string, d time.Duration, wait <-chan struct{}, stats *loadStats) {
	t.Helper()
	var ids atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	clients := make([]*loadClient, loadClients)
	for i := range clients {
		clients[i] = &loadClient{url: url, modern: i%2 == 1, ids: &ids, stats: stats,
			http: &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1}}}
		wg.Add(1)
		go func(c *loadClient, k int) {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				c.do(k)
				k += 7
			}
		}(clients[i], i)
	}
	time.Sleep(d)
	if wait != nil {
		select {
		case <-wait:
		case <-time.After(60 * time.Second):
			t.Error("the rewritten file was not reloaded within 60s of the end of the run")
		}
	}
	close(stop)
	wg.Wait()
	for _, c := range clients {
		c.http.CloseIdleConnections()
	}
}

// TestServeLoad: 64 concurrent keep-alive clients on loopback send a mix of
// route_skill, get_skill, resources/read, skills/list, prompts/get and
// tools/list, half of them in the 2026-07-28 era, while the agent file is
// replaced by rename so the server reloads mid-run. Every request is
// answered once, with its own id, from one version of the file (and no
// client sees the old version after the new), nothing is 5xx, a listen
// stream hears of the reload, and the server's goroutines and heap come
// back to where they were. A second run caps concurrent requests so that
// some are refused with 503 and Retry-After, and the rest still answered
// right.
func TestServeLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("a load run; skipped with -short")
	}
	d := *serveLoad
	t.Run("reload", func(t *testing.T) {
		dir := t.TempDir()
		file := filepath.Join(dir, "loadtest.3md")
		if err := os.WriteFile(file, []byte(loadAgent("ALPHA")), 0o644); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		g0, h0 := runtime.NumGoroutine(), heapInUse()
		url, log, stop := startInProcessServe(t, file)
		// Warm up (the routing index, the rendered files) before the
		// baseline of the running server is taken.
		warm := &loadStats{seen: map[int64]bool{}}
		c := &loadClient{url: url, ids: new(atomic.Int64), stats: warm, http: &http.Client{Transport: &http.Transport{}}}
		for k := range 12 {
			c.do(k)
		}
		c.http.CloseIdleConnections()
		if len(warm.errors) > 0 {
			t.Fatalf("warm-up: %v\n%s", warm.errors, log)
		}
		time.Sleep(200 * time.Millisecond) // the warm-up's connections close on the server side
		g1, h1 := runtime.NumGoroutine(), heapInUse()

		events, closeListen := openListen(t, url)
		stats := &loadStats{seen: map[int64]bool{}}
		go func() {
			// Rewrite the file by rename a third of the way in, as editors
			// and deploy tools do.
			time.Sleep(d / 3)
			tmp := filepath.Join(dir, ".loadtest.3md.tmp")
			if err := os.WriteFile(tmp, []byte(loadAgent("BRAVO")), 0o644); err != nil {
				t.Error(err)
				return
			}
			if err := os.Rename(tmp, file); err != nil {
				t.Error(err)
			}
		}()
		runLoad(t, url, d, log.reloaded, stats)

		changed := false
		for deadline := time.After(30 * time.Second); !changed; {
			select {
			case line, ok := <-events:
				if !ok {
					t.Fatal("the listen stream ended before it told of the reload")
				}
				changed = strings.Contains(line, "notifications/tools/list_changed")
			case <-deadline:
				t.Fatal("the listen stream did not carry notifications/tools/list_changed within 30s of the reload")
			}
		}
		closeListen()

		t.Logf("%d requests, %d answered (%d from the first version, %d from the second), %d refused with 503; %.0f requests/s",
			stats.sent.Load(), stats.answered.Load(), stats.alpha.Load(), stats.bravo.Load(), stats.unavailable.Load(),
			float64(stats.sent.Load())/d.Seconds())
		for _, e := range stats.errors {
			t.Error(e)
		}
		if stats.unavailable.Load() != 0 {
			t.Errorf("%d requests refused with 503 under the default --max-concurrent", stats.unavailable.Load())
		}
		if stats.answered.Load() != stats.sent.Load() || stats.sent.Load() == 0 {
			t.Errorf("%d requests sent, %d answered right", stats.sent.Load(), stats.answered.Load())
		}
		// After the reload, a request is answered from the new version.
		after := &loadStats{seen: map[int64]bool{}}
		c = &loadClient{url: url, ids: new(atomic.Int64), stats: after, last: "BRAVO", http: &http.Client{Transport: &http.Transport{}}}
		c.do(1)
		c.http.CloseIdleConnections()
		if after.bravo.Load() != 1 {
			t.Errorf("after the reload, get_skill was not answered from the new version: %v", after.errors)
		}

		// Back to where the idle server was: its goroutines, and a heap of
		// the same order (the new version replaced the old; a leak of the
		// run's answers would be megabytes).
		if g := settle(g1 + 4); g > g1+4 {
			buf := make([]byte, 1<<20)
			t.Errorf("goroutines: %d after the run, %d before it\n%s", g, g1, buf[:runtime.Stack(buf, true)])
		}
		if h := heapInUse(); h > 2*h1+16<<20 {
			t.Errorf("heap in use: %d MiB after the run, %d MiB before it", h>>20, h1>>20)
		}
		stop()
		if g := settle(g0 + 4); g > g0+4 {
			buf := make([]byte, 1<<20)
			t.Errorf("goroutines: %d after the server stopped, %d before it started\n%s", g, g0, buf[:runtime.Stack(buf, true)])
		}
		if h := heapInUse(); h > h0+16<<20 {
			t.Errorf("heap in use: %d MiB after the server stopped, %d MiB before it started", h>>20, h0>>20)
		}
	})

	t.Run("max-concurrent", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "loadtest.3md")
		if err := os.WriteFile(file, []byte(loadAgent("ALPHA")), 0o644); err != nil {
			t.Fatal(err)
		}
		const limit = 4
		url, log, _ := startInProcessServe(t, "--no-watch", "--max-concurrent", fmt.Sprint(limit), file)
		// Requests whose body has not arrived yet hold no --max-concurrent
		// slot, but every one of the bodies being read, four per slot
		// (docs/http.md), so the next request is certainly refused; then
		// half of them end, and the other half stay for the run (or until
		// the body read timeout, 30 s). A listen stream opened first takes
		// none of them.
		const bodies = 4 * limit
		_, closeListen := openListen(t, url)
		defer closeListen()
		var closers []func()
		for range bodies {
			closers = append(closers, holdSlot(t, url))
		}
		probe := &loadStats{seen: map[int64]bool{}}
		c := &loadClient{url: url, ids: new(atomic.Int64), stats: probe, http: &http.Client{Transport: &http.Transport{}}}
		c.do(0)
		c.http.CloseIdleConnections()
		if probe.unavailable.Load() != 1 || len(probe.errors) > 0 {
			t.Fatalf("with every body slot held, a request got no 503: %v\n%s", probe.errors, log)
		}
		for _, cl := range closers[bodies/2:] {
			cl()
		}
		stats := &loadStats{seen: map[int64]bool{}}
		runLoad(t, url, d, nil, stats)
		for _, cl := range closers[:bodies/2] {
			cl()
		}
		t.Logf("%d requests: %d answered, %d refused with 503 and Retry-After", stats.sent.Load(), stats.answered.Load(), stats.unavailable.Load())
		for _, e := range stats.errors {
			t.Error(e)
		}
		if stats.answered.Load()+stats.unavailable.Load() != stats.sent.Load() || stats.answered.Load() == 0 {
			t.Errorf("%d sent, %d answered, %d refused: some were lost or wrong", stats.sent.Load(), stats.answered.Load(), stats.unavailable.Load())
		}
	})
}

// holdSlot holds one of serve's slots for bodies being read: a POST whose
// body the server asks for (its "100 Continue" comes once it starts
// reading) and never gets. The returned func lets it go.
func holdSlot(t *testing.T, url string) func() {
	t.Helper()
	addr := strings.TrimPrefix(strings.TrimSuffix(url, "/mcp"), "http://")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	conn.SetDeadline(time.Now().Add(30 * time.Second)) // a hang fails, not blocks
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 64\r\n\r\n", addr)
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "HTTP/1.1 100 ") {
		conn.Close()
		t.Fatalf("holding a slot: got %q, %v; want 100 Continue", line, err)
	}
	return func() { conn.Close() }
}
