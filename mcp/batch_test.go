package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// batchOf is a JSON array of n requests, element(i) for i = 1..n.
func batchOf(n int, element func(i int) string) string {
	elems := make([]string, n)
	for i := range elems {
		elems[i] = element(i + 1)
	}
	return "[" + strings.Join(elems, ",") + "]"
}

// batchAnswer is one entry of a batch's answer array.
type batchAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// String is the entry in short, for test failures.
func (a batchAnswer) String() string {
	if a.Error != nil {
		return fmt.Sprintf("id %s: error %d %q", a.ID, a.Error.Code, a.Error.Message)
	}
	return fmt.Sprintf("id %s: result %.80s", a.ID, a.Result)
}

// checkEveryID decodes an answer array that must answer ids 1..n exactly
// once each, and returns the entries by id.
func checkEveryID(t *testing.T, line []byte, n int) map[int]batchAnswer {
	t.Helper()
	var answers []batchAnswer
	if err := json.Unmarshal(line, &answers); err != nil {
		t.Fatalf("the answer is not a JSON array: %v: %.300s", err, line)
	}
	byID := map[int]batchAnswer{}
	for _, a := range answers {
		id, err := strconv.Atoi(string(a.ID))
		if err != nil || id < 1 || id > n {
			t.Fatalf("unknown id %s", a.ID)
		}
		if _, dup := byID[id]; dup {
			t.Fatalf("id %d answered twice", id)
		}
		byID[id] = a
	}
	if len(byID) != n {
		t.Fatalf("%d of %d ids answered", len(byID), n)
	}
	return byID
}

// TestBatchWindow: a batch's requests go through the connection's queue a
// window of --max-in-flight at a time: a batch of ten requests that block
// holds three in the tracker, not ten, and a cancelled one makes room for
// the next, so the batch still answers every request not cancelled.
func TestBatchWindow(t *testing.T) {
	opts := withMethods(&Options{Source: Loaded(openAda(t)), Router: testRouterOptions(t)}, testMethods())
	var out syncBuffer
	c := newConn(context.Background(), newServer(opts), strings.NewReader(""), &out)
	defer c.shutdown()
	go c.writeLoop()
	c.maxInFlight = 3
	c.sess.setVersion(version20250326, nil)
	c.accept([]byte(batchOf(10, func(i int) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"test/wait"}`, i) })))
	live := func() []string {
		c.tr.mu.Lock()
		defer c.tr.mu.Unlock()
		var keys []string
		for k := range c.tr.byKey {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return keys
	}
	if got := fmt.Sprint(live()); got != "[n:1 n:2 n:3]" {
		t.Fatalf("requests tracked after the batch was read: %s, want the first three", got)
	}
	c.accept([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`))
	if got := fmt.Sprint(live()); got != "[n:1 n:3 n:4]" {
		t.Fatalf("after cancelling 2: %s, want 1, 3 and the next, 4", got)
	}
	if p := c.pendingBytes(); p > 4<<10 {
		t.Errorf("%d bytes pending for a batch of ten short requests", p)
	}
}

// TestBatchOfOneIsTheRequest: the first answer always fits in a batch's
// array, so a batch of one request whose answer is past the bound (a
// tools/list of about 5 KB under a 1 KiB bound) is answered with exactly
// the answer that request gets alone.
func TestBatchOfOneIsTheRequest(t *testing.T) {
	h := startServer(t, "ada.3md", &Options{MaxAnswerBytes: 1 << 10})
	io.WriteString(h.in, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	h.next(10 * time.Second)
	io.WriteString(h.in, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`+"\n")
	alone, _ := h.next(10 * time.Second)
	io.WriteString(h.in, `[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`+"\n")
	batched, _ := h.next(10 * time.Second)
	if len(alone) <= 1<<10 || batched != "["+alone+"]" {
		t.Errorf("alone (%d bytes): %.100s\nin a batch of one: %.100s", len(alone), alone, batched)
	}
	h.finish()
}

// TestBatchBoundStdio: a batch of 3,000 tools/list on a connection whose
// answer bound is 16 KiB and pending budget 64 KiB is answered with one
// array holding each id once: results within the bound, the short error
// for the rest; a ping after it is answered, and once everything is
// written the pending budget is back to zero.
func TestBatchBoundStdio(t *testing.T) {
	const n, bound = 3000, 16 << 10
	var c *conn
	p := startPipeServer(t, withConn(&Options{MaxAnswerBytes: bound, MaxPendingBytes: 64 << 10}, func(cn *conn) { c = cn }))
	go func() {
		w := bufio.NewWriter(p.in)
		io.WriteString(w, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
		io.WriteString(w, batchOf(n, func(i int) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i) })+"\n")
		io.WriteString(w, `{"jsonrpc":"2.0","id":"after","method":"ping"}`+"\n")
		w.Flush()
		p.in.Close()
	}()
	var array []byte
	pinged := false
	for {
		line, err := p.out.ReadBytes('\n')
		if err != nil {
			break
		}
		switch {
		case line[0] == '[':
			array = line
		case bytes.Contains(line, []byte(`"id":"after","result":{}`)):
			pinged = true
		}
	}
	if err := <-p.done; err != nil {
		t.Fatal(err)
	}
	if !pinged {
		t.Error("the ping after the batch was not answered")
	}
	byID := checkEveryID(t, bytes.TrimSpace(array), n)
	resultBytes, results := 0, 0
	for id, a := range byID {
		switch {
		case a.Result != nil:
			results++
			line, _ := json.Marshal(a)
			resultBytes += len(line)
		case a.Error == nil || a.Error.Code != codeInvalidRequest || !strings.Contains(a.Error.Message, "16384-byte bound on one answer (--max-answer-bytes)"):
			t.Fatalf("id %d: %v, want a result or the batch-too-large error", id, a)
		}
	}
	if results == 0 || resultBytes > bound {
		t.Errorf("%d results of %d bytes, want some, within %d", results, resultBytes, bound)
	}
	if len(array) > bound+n*plannedEntryMax {
		t.Errorf("the array is %d bytes: more than the bound plus a short error per request", len(array))
	}
	if pb := c.pendingBytes(); pb != 0 {
		t.Errorf("%d bytes still charged to the pending budget after everything was written", pb)
	}
}

// fakeAnswerMemory stands in for serve's answer memory (httpd.ReserveAnswer):
// left bytes, a 503 when they run out.
type fakeAnswerMemory struct {
	mu    sync.Mutex
	left  int64
	taken []int64
}

func (f *fakeAnswerMemory) reserve(w http.ResponseWriter, r *http.Request, n int64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n > f.left {
		if w != nil {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32603,"message":"no answer memory"}}`)
		}
		return false
	}
	f.left -= n
	f.taken = append(f.taken, n)
	return true
}

// TestHTTPBatchAnswerMemory: a batch reserves the server's answer memory
// before it runs anything. With none, it is 503 and no element is
// served. With enough for its short errors and one result, the first
// request gets its result and the others the busy error, each id once:
// a batch that started always finishes. A single request whose answer
// cannot be reserved is 503.
func TestHTTPBatchAnswerMemory(t *testing.T) {
	S, _ := httpServer(t, nil)
	const n = 5
	body := batchOf(n, func(i int) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i) })
	var served int
	serve := func(mem *fakeAnswerMemory, body string) (*http.Response, string) {
		ts := httptest.NewServer(S.HTTPHandler(&HTTPOptions{ReserveAnswer: mem.reserve, OnMethod: func(*http.Request, string) { served++ }}))
		defer ts.Close()
		return post(t, ts.URL, body, nil)
	}

	resp, got := serve(&fakeAnswerMemory{left: 100}, body)
	if resp.StatusCode != http.StatusServiceUnavailable || served != 0 {
		t.Errorf("no memory for the short errors: %d after serving %d elements, want 503 before any: %.200s", resp.StatusCode, served, got)
	}

	planned := int64(2 + n*(plannedEntryMax+len(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)+1))
	resp, got = serve(&fakeAnswerMemory{left: planned + 6000}, body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %.300s", resp.StatusCode, got)
	}
	byID := checkEveryID(t, []byte(got), n)
	if byID[1].Result == nil {
		t.Errorf("the first request got no result: %v", byID[1])
	}
	for id := 2; id <= n; id++ {
		if e := byID[id].Error; e == nil || e.Code != codeInternalError || !strings.Contains(e.Message, "--max-answer-memory") {
			t.Errorf("id %d: %v, want the busy error naming --max-answer-memory", id, byID[id])
		}
	}

	resp, got = serve(&fakeAnswerMemory{left: 10}, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a single answer without memory: %d %v %.200s, want 503 with Retry-After", resp.StatusCode, resp.Header, got)
	}
}

// TestHTTPStreamAnswerMemory: a request answered as an event stream has
// sent its status before its answer exists, so when the answer memory
// cannot take the answer, the last event is an error with the request's
// id saying so, not the answer held anyway.
func TestHTTPStreamAnswerMemory(t *testing.T) {
	S, _ := httpServer(t, nil)
	mem := &fakeAnswerMemory{left: 10}
	ts := httptest.NewServer(S.HTTPHandler(&HTTPOptions{ReserveAnswer: mem.reserve}))
	defer ts.Close()
	resp, body := post(t, ts.URL, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_skills","arguments":{},"_meta":{"progressToken":"p"}}}`,
		map[string]string{"Accept": "application/json, text/event-stream"})
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if strings.Contains(body, `"result"`) || !strings.Contains(body, `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Service unavailable: the server's memory for answers being sent is in use (agent3md serve --max-answer-memory); retry shortly"}}`) {
		t.Errorf("the stream's last event: %.300s", body)
	}
}

// TestPlannedEntryMax: every entry a batch gives without running the
// request (its short errors, refusals, and the errors of malformed
// elements) is at most plannedEntryMax bytes besides the element it
// answers, so the memory reserved before a batch runs covers them.
func TestPlannedEntryMax(t *testing.T) {
	a := &httpBatch{tl: tooLargeEntry(1 << 30)}
	elems := []string{
		`1`, `"x"`, `null`, `{}`, `{"jsonrpc":"1.0","id":1,"method":"x"}`, `{"jsonrpc":"2.0"}`,
		`{"jsonrpc":"2.0","method":1}`, `{"jsonrpc":"2.0","id":null,"method":"x"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"x"}`, `{"jsonrpc":"2.0","id":1e3,"method":"x"}`,
		`{"jsonrpc":"2.0","id":{},"method":"x"}`, `{"jsonrpc":"2.0","id":true,"method":"x"}`,
		`{"jsonrpc":"2.0","id":"\ud800","method":"x"}`, `{"jsonrpc":"2.0","id":1,"method":"x","params":null}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize"}`, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":"a-long-id-of-forty-characters-0123456789","method":"tools/list","params":{` + httpModernMeta + `}}`,
	}
	for _, elem := range elems {
		check := func(what string, line []byte) {
			if len(line)+1 > a.planned(len(elem)) {
				t.Errorf("%s for %s: %d bytes, over the %d planned", what, elem, len(line)+1, a.planned(len(elem)))
			}
		}
		pk, ok := peek([]byte(elem))
		if line := a.fixedLine([]byte(elem), &pk, ok); line != nil {
			check("the fixed entry", line)
		}
		if ok && pk.request {
			check("the too-large entry", a.tl.appendEntry(nil, pk.msg.rawID))
			check("the busy entry", busyEntry.appendEntry(nil, pk.msg.rawID))
		}
	}
}
