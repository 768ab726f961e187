package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agent3md/agent3md/internal/testkit"
	"github.com/agent3md/agent3md/loader"
)

// pipelineRequest is request i of a pipelining client: a mix of requests
// answered as they are read (ping, get_skill) and requests that go through
// the queue to a handler goroutine (test/sleep of 0 ms).
func pipelineRequest(i int) string {
	switch i % 3 {
	case 0:
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i)
	case 1:
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_skill","arguments":{"name":"style"}}}`, i)
	default:
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"test/sleep","params":{"ms":0}}`, i)
	}
}

// pipeServer runs Serve over two io.Pipes: writes to in block until the
// server reads them, and the server's writes block until out is read, as
// with a client that does not read.
type pipeServer struct {
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
}

func startPipeServer(t *testing.T, opts *Options) *pipeServer {
	t.Helper()
	opts.Source = Loaded(openAda(t))
	opts.Router = testRouterOptions(t)
	if h := hooksFor(opts); h.methods == nil {
		h.methods = testMethods()
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &pipeServer{in: inW, out: bufio.NewReader(outR), done: make(chan error, 1)}
	go func() {
		err := Serve(context.Background(), inR, outW, opts)
		outW.Close()
		p.done <- err
	}()
	return p
}

// writeAll writes requests 1..n, then closes stdin; the result arrives on
// the returned channel once every request has been taken by the server.
func (p *pipeServer) writeAll(n int) <-chan error {
	return p.writeEach(n, pipelineRequest)
}

// writeEach writes the lines request(1)..request(n), then closes stdin.
func (p *pipeServer) writeEach(n int, request func(i int) string) <-chan error {
	wrote := make(chan error, 1)
	go func() {
		w := bufio.NewWriter(p.in)
		for i := 1; i <= n; i++ {
			if _, err := io.WriteString(w, request(i)+"\n"); err != nil {
				wrote <- err
				return
			}
		}
		if err := w.Flush(); err != nil {
			wrote <- err
			return
		}
		wrote <- p.in.Close()
	}()
	return wrote
}

// readAnswers reads until EOF and checks that ids 1..n were each answered
// once, without an error.
func (p *pipeServer) readAnswers(t *testing.T, n int) {
	t.Helper()
	seen := make([]bool, n+1)
	count := 0
	for {
		l, err := p.out.ReadString('\n')
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			ID    int             `json:"id"`
			Error json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil || m.ID < 1 || m.ID > n || m.Error != nil {
			t.Fatalf("unexpected answer %q (%v)", l, err)
		}
		if seen[m.ID] {
			t.Fatalf("id %d answered twice", m.ID)
		}
		seen[m.ID] = true
		count++
	}
	if count != n {
		t.Fatalf("%d answers for %d requests", count, n)
	}
	if err := <-p.done; err != nil {
		t.Fatalf("Serve = %v", err)
	}
}

// TestPipelinedBeforeReading: a client that writes 5,000 requests, and
// closes stdin, before it reads any answer gets all 5,000 answers. The
// writes complete only if the server keeps reading while stdout is full.
func TestPipelinedBeforeReading(t *testing.T) {
	const n = 5000
	p := startPipeServer(t, &Options{})
	if err := <-p.writeAll(n); err != nil {
		t.Fatalf("writing the requests: %v", err)
	}
	p.readAnswers(t, n)
}

// TestPendingBudget: a client that does not read stdout gets back-pressure
// once the pending bytes pass the budget, and the server holds no more than
// the budget plus one request and its answer when it stops reading; once
// the client reads, every request is answered.
func TestPendingBudget(t *testing.T) {
	const n, budget = 3000, 16 << 10
	var (
		mu      sync.Mutex
		waits   int
		maxSeen int64
	)
	engaged := make(chan struct{})
	var c *conn
	opts := withConn(&Options{MaxPendingBytes: budget}, func(cn *conn) {
		c = cn
		cn.onWait = func(pending int64) {
			mu.Lock()
			defer mu.Unlock()
			if pending > maxSeen {
				maxSeen = pending
			}
			waits++
			if waits == 1 {
				close(engaged)
			}
		}
	})
	p := startPipeServer(t, opts)
	wrote := p.writeAll(n)
	<-engaged // the reader has stopped: the client's writes now block
	// One request line and its answer may land after the last check of
	// the budget; a get_skill answer is under 1 KiB.
	const slack = 2 << 10
	if got := c.pendingBytes(); got > budget+slack {
		t.Errorf("pending bytes %d with the reader stopped, budget %d", got, budget)
	}
	p.readAnswers(t, n)
	if err := <-wrote; err != nil {
		t.Fatalf("writing the requests: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if maxSeen > budget+slack {
		t.Errorf("the reader waited with %d bytes pending, over the budget %d", maxSeen, budget)
	}
	if got := c.pendingBytes(); got != 0 {
		t.Errorf("pending bytes %d after every answer was written, want 0", got)
	}
}

// TestAnswerLead: a client that writes 1,500 tools/list requests before
// reading any answer has them all read (its writes complete), but the
// server holds at most answerLead bytes of answers (plus the one being
// added) rather than all 1,500; a ping read while the answers were behind
// and then cancelled is never answered; every other request is.
func TestAnswerLead(t *testing.T) {
	const n = 1500
	var c *conn
	p := startPipeServer(t, withConn(&Options{}, func(cn *conn) { c = cn }))
	toolsList := func(i int) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i) }
	wrote := p.writeEach(n+2, func(i int) string {
		switch i {
		case n + 1:
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, 9999)
		case n + 2:
			return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9999}}`
		}
		return toolsList(i)
	})
	if err := <-wrote; err != nil {
		t.Fatalf("writing the requests: %v", err)
	}
	c.mu.Lock()
	unwritten, held := c.unwritten, len(c.held)
	c.mu.Unlock()
	first, err := p.out.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if unwritten > answerLead+int64(len(first)) {
		t.Errorf("%d bytes of answers held for a client that reads nothing, want at most answerLead %d plus one answer (%d)", unwritten, answerLead, len(first))
	}
	if held == 0 {
		t.Errorf("no request held back although %d answers of %d bytes were asked for", n, len(first))
	}
	seen := map[int]bool{}
	for l := first; ; {
		var m struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil || m.Result == nil || seen[m.ID] {
			t.Fatalf("unexpected answer %.200q (%v)", l, err)
		}
		seen[m.ID] = true
		if l, err = p.out.ReadString('\n'); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if seen[9999] {
		t.Error("the cancelled ping was answered")
	}
	if len(seen) != n {
		t.Errorf("%d answers for %d tools/list requests", len(seen), n)
	}
	if err := <-p.done; err != nil {
		t.Fatalf("Serve = %v", err)
	}
}

// TestAnswersAreValidUTF8: an id that is not valid UTF-8 is never echoed
// (the answer is -32600 with id null), and invalid UTF-8 elsewhere in a
// request comes back replaced, so every answer line is valid UTF-8.
func TestAnswersAreValidUTF8(t *testing.T) {
	h := startServer(t, "ada.3md", nil)
	lines := []string{
		"{\"jsonrpc\":\"2.0\",\"id\":\"b\xff\",\"method\":\"ping\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"no\xfe/such\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"get_skill\",\"arguments\":{\"name\":\"b\xc3\"}}}",
	}
	for _, l := range lines {
		io.WriteString(h.in, l+"\n")
	}
	got := h.byID(len(lines), 10*time.Second)
	for id, l := range got {
		if !utf8.ValidString(l) {
			t.Errorf("answer for id %s is not valid UTF-8: %q", id, l)
		}
	}
	if l := got["null"]; !strings.Contains(l, `"code":-32600`) || !strings.Contains(l, "UTF-8") {
		t.Errorf("invalid-UTF-8 id: got %q, want -32600 naming UTF-8", l)
	}
	if l := got["1"]; !strings.Contains(l, `"code":-32601`) {
		t.Errorf("unknown method: got %q", l)
	}
	if l := got["2"]; !strings.Contains(l, `"isError":true`) {
		t.Errorf("unknown skill: got %q", l)
	}
	h.finish()
}

// TestAnswerCache: tools/list and list_skills answers are encoded once per
// catalog and revision, byte for byte what the handler gives, and a new
// catalog drops them.
func TestAnswerCache(t *testing.T) {
	s := newServer(&Options{Source: Loaded(openAda(t))})
	ctx := context.Background()
	listSkills := map[string]json.RawMessage{"name": json.RawMessage(`"list_skills"`), "arguments": json.RawMessage(`{}`)}
	for _, tt := range []struct {
		method  string
		version string
		params  map[string]json.RawMessage
	}{
		{methodToolsList, version20251125, map[string]json.RawMessage{}},
		{methodToolsList, version20241105, map[string]json.RawMessage{}},
		{methodToolsCall, version20251125, listSkills},
	} {
		sess := &session{version: tt.version}
		c := &call{srv: s, sess: sess, method: tt.method, params: tt.params, version: tt.version}
		fresh, err := s.methods[tt.method].handle(s, ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := encodeResult(fresh)
		for i := 0; i < 3; i++ {
			got, err := s.dispatch(ctx, sess, tt.method, tt.params)
			if err != nil {
				t.Fatal(err)
			}
			checkCachedCall(t, got, want, i, fmt.Sprint(tt.method, " ", tt.version))
		}
	}
	if n := len(s.cur.Load().cache.entries); n != 3 {
		t.Errorf("%d cached answers, want 3 (one per method and revision)", n)
	}
	s.cur.Load().cache.put(nil, "k", preEncoded(`{}`))
	if n := len(s.cur.Load().cache.entries); n != 1 {
		t.Errorf("%d cached answers after a new catalog, want only the new one", n)
	}
	getSkill := map[string]json.RawMessage{"name": json.RawMessage(`"get_skill"`), "arguments": json.RawMessage(`{"name":"commit"}`)}
	if _, err := s.dispatch(ctx, &session{version: version20251125}, methodToolsCall, getSkill); err != nil {
		t.Fatal(err)
	}
	if n := len(s.cur.Load().cache.entries); n != 1 {
		t.Errorf("%d cached answers after get_skill on an agent that follows its file, want 1: its bodies must be read each time", n)
	}
}

// checkCachedCall checks the answer to call i (from 0) of a cacheable
// request: byte for byte the handler's encoding every time; the first is
// the handler's own result (an answer is kept from its second request, so
// a one-off read copies nothing), later ones the kept encoding.
func checkCachedCall(t *testing.T, got any, want preEncoded, i int, what string) {
	t.Helper()
	enc, kept := got.(preEncoded)
	if !kept {
		if tool, ok := got.(encodedTool); ok {
			enc = tool.enc
		} else {
			enc, _ = encodeResult(got)
		}
	}
	if string(enc) != string(want) {
		t.Fatalf("%s call %d: got %T %.200s, want the handler's encoding %.200s", what, i+1, got, enc, want)
	}
	if i > 0 && !kept {
		t.Fatalf("%s call %d: got %T, want the cached encoding (preEncoded)", what, i+1, got)
	}
}

// TestAnswerCacheKeepsFromSecondRequest: an answer is kept from its second
// request, so a client reading every skill once (a first walk of a large
// agent) copies none of them and leaves the bounds to the answers that
// are asked for again.
func TestAnswerCacheKeepsFromSecondRequest(t *testing.T) {
	a := openPinnedAda(t)
	s := newServer(&Options{Source: Loaded(a)})
	ctx := context.Background()
	sess := &session{version: version20251125}
	get := func(name string) {
		t.Helper()
		params := map[string]json.RawMessage{"name": json.RawMessage(`"get_skill"`), "arguments": json.RawMessage(`{"name":"` + name + `"}`)}
		if _, err := s.dispatch(ctx, sess, methodToolsCall, params); err != nil {
			t.Fatal(err)
		}
	}
	kept := func() int { return len(s.cur.Load().cache.entries) }
	names := []string{}
	for _, sk := range a.Skills() {
		names = append(names, sk.Name)
	}
	for _, name := range names {
		get(name)
	}
	if n := kept(); n != 0 {
		t.Fatalf("%d answers kept after one read of each skill, want 0", n)
	}
	get(names[0])
	if n := kept(); n != 1 {
		t.Fatalf("%d answers kept after a second read of %s, want 1", n, names[0])
	}
	// A new catalog forgets what the old one saw.
	s.cur.Load().cache.put(nil, "k", preEncoded(`{}`))
	get(names[1])
	if n := kept(); n != 0 {
		t.Fatalf("%d answers kept after a first read under a new catalog, want 0", n)
	}
}

// TestBodyAnswersCachedWhenPinned: on a pinned agent (one version, never
// re-scanned) get_skill and resolve_skill answers are encoded once per
// revision, byte for byte what the handler gives; a tool error (unknown
// skill) is never kept.
func TestBodyAnswersCachedWhenPinned(t *testing.T) {
	a := openPinnedAda(t)
	s := newServer(&Options{Source: Loaded(a)})
	ctx := context.Background()
	toolCall := func(tool, args string) map[string]json.RawMessage {
		return map[string]json.RawMessage{"name": json.RawMessage(`"` + tool + `"`), "arguments": json.RawMessage(args)}
	}
	for _, tt := range []struct {
		version string
		params  map[string]json.RawMessage
	}{
		{version20251125, toolCall(toolGetSkill, `{"name":"commit"}`)},
		{version20241105, toolCall(toolGetSkill, `{"name":"commit"}`)},
		{version20251125, toolCall(toolResolveSkill, `{"name":"commit"}`)},
	} {
		sess := &session{version: tt.version}
		c := &call{srv: s, sess: sess, method: methodToolsCall, params: tt.params, version: tt.version}
		fresh, err := s.methods[methodToolsCall].handle(s, ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := encodeResult(fresh)
		for i := 0; i < 3; i++ {
			got, err := s.dispatch(ctx, sess, methodToolsCall, tt.params)
			if err != nil {
				t.Fatal(err)
			}
			checkCachedCall(t, got, want, i, fmt.Sprint(string(tt.params["arguments"]), " ", tt.version))
		}
	}
	if _, err := s.dispatch(ctx, &session{version: version20251125}, methodToolsCall, toolCall(toolGetSkill, `{"name":"nope"}`)); err != nil {
		t.Fatal(err)
	}
	if n := len(s.cur.Load().cache.entries); n != 3 {
		t.Errorf("%d cached answers, want 3 (one per tool, arguments and revision; never the tool error)", n)
	}
}

// TestServeEOFCancelsLongRequests: when stdin closes, requests still
// running after the grace period are cancelled and answered with an error
// saying why; one that ignores its cancellation is abandoned a grace
// period later. Serve returns either way.
func TestServeEOFCancelsLongRequests(t *testing.T) {
	for _, method := range []string{"test/wait", "test/stuck"} {
		t.Run(method, func(t *testing.T) {
			h := startServer(t, "ada.3md", withConn(&Options{}, func(c *conn) { c.grace = 50 * time.Millisecond }))
			io.WriteString(h.in, `{"jsonrpc":"2.0","id":1,"method":"`+method+`"}`+"\n")
			h.in.Close()
			select {
			case err := <-h.done:
				if err != nil {
					t.Fatalf("Serve = %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Serve did not return after EOF with a request running")
			}
			var lines []string
			for l := range h.lines {
				lines = append(lines, l)
			}
			if method == "test/stuck" {
				if len(lines) != 0 {
					t.Errorf("an abandoned request was answered: %q", lines)
				}
				return
			}
			if len(lines) != 1 || !strings.Contains(lines[0], `"code":-32603`) || !strings.Contains(lines[0], "stdin closed") {
				t.Errorf("answers %q, want one -32603 saying stdin closed", lines)
			}
		})
	}
}

// TestServeLogsValidationErrors: an agent with validation errors is served,
// and each error is logged once, as validate prints it.
func TestServeLogsValidationErrors(t *testing.T) {
	a, err := loader.Open("../agentfile/testdata/conformance/agent3md/invalid-cycle.3md", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var logs syncBuffer
	in := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_skill","arguments":{"name":"a"}}}` + "\n"
	var out strings.Builder
	opts := &Options{Source: Loaded(a), Router: testRouterOptions(t), Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	if err := Serve(context.Background(), strings.NewReader(in), &out, opts); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), `"isError":true`) || !strings.Contains(out.String(), `"result"`) {
		t.Errorf("the agent was not served: %s", out.String())
	}
	if n := strings.Count(logs.String(), "[cycle]"); n != 1 {
		t.Errorf("the cycle error was logged %d times, want once:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), "invalid-cycle.3md:10: [cycle]") {
		t.Errorf("the finding does not name file:line and rule:\n%s", logs.String())
	}
}

// syncBuffer is a buffer a logger or command writes while the test
// reads it (testkit.SyncBuffer).
type syncBuffer = testkit.SyncBuffer
