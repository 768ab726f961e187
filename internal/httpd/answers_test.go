package httpd

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// TestReserveAnswer: the answer memory is one budget across requests. A
// request holding part of it keeps it until it ends; another that needs
// more than what is left gets 503 with Retry-After and a JSON-RPC error
// naming --max-answer-memory; one that needs more than the whole budget
// gets 503 without Retry-After (retrying cannot help) saying to raise it;
// once the holder ends its bytes are back, and the next request is
// served. Each refusal is recorded for the metrics as answer_memory.
// The body the endpoint reads is the one the client sent, taken
// over without a copy.
func TestReserveAnswer(t *testing.T) {
	hold := make(chan struct{})
	holding := make(chan struct{})
	var released atomic.Bool
	ep := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.ParseInt(r.URL.Query().Get("n"), 10, 64)
		held, ok := r.Body.(interface{ TakeBytes() []byte })
		if !ok {
			http.Error(w, "the body was not handed over whole", http.StatusInternalServerError)
			return
		}
		body := held.TakeBytes()
		if !ReserveAnswer(w, r, n) {
			return
		}
		if r.URL.Query().Get("hold") != "" {
			close(holding)
			<-hold
		}
		fmt.Fprintf(w, `{"bytes":%d,"body":%q}`, n, body)
	})
	obs := newRecordingObserver()
	srv := start(t, Options{MaxAnswerMemory: 100, Observer: obs}, Endpoints{Agents: map[string]http.Handler{"ada": ep}})
	srv.srv.answers.free = func() { released.Store(true) }
	first := make(chan string, 1)
	go func() {
		resp, err := http.Post(srv.url+"/mcp?n=60&hold=1", "application/json", strings.NewReader(`{"a":1}`))
		if err != nil {
			first <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		first <- string(b)
	}()
	select {
	case <-holding:
	case got := <-first:
		t.Fatalf("the first request ended before holding its answer: %s", got)
	}
	if got := srv.srv.answers.inUse(); got != 60 {
		t.Errorf("%d bytes in use while one request holds 60", got)
	}
	for _, tt := range []struct {
		n          int
		retryAfter bool
		says       string
	}{
		{60, true, "already hold the server's 100 bytes of answer memory (--max-answer-memory) and this one needs 60 more; retry shortly"},
		{200, false, "this answer needs 200 bytes, more than the server's whole answer memory of 100 bytes (--max-answer-memory)"},
	} {
		resp, body := srv.do(t, nil, req{path: fmt.Sprintf("/mcp?n=%d", tt.n), body: `{}`})
		var e struct {
			JSONRPC string `json:"jsonrpc"`
			Error   struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if resp.StatusCode != http.StatusServiceUnavailable || json.Unmarshal([]byte(body), &e) != nil || e.JSONRPC != "2.0" || e.Error.Code != codeInternal {
			t.Errorf("n=%d: %d %s, want 503 with a JSON-RPC error", tt.n, resp.StatusCode, body)
		}
		if !strings.Contains(e.Error.Message, tt.says) {
			t.Errorf("n=%d: message %q, want it to say %q", tt.n, e.Error.Message, tt.says)
		}
		if (resp.Header.Get("Retry-After") != "") != tt.retryAfter {
			t.Errorf("n=%d: Retry-After %q, want it set: %v", tt.n, resp.Header.Get("Retry-After"), tt.retryAfter)
		}
		if rec := obs.next(t); rec.Rejection != RejectAnswerMemory || rec.Status != http.StatusServiceUnavailable {
			t.Errorf("n=%d: recorded %+v, want the answer_memory rejection", tt.n, rec)
		}
	}
	close(hold)
	if got := <-first; got != `{"bytes":60,"body":"{\"a\":1}"}` {
		t.Errorf("the holding request got %s", got)
	}
	// The first request's bytes are given back when it has ended, which
	// its log line marks.
	resp, body := srv.do(t, nil, req{path: "/mcp?n=100", body: `{}`})
	if resp.StatusCode != http.StatusOK {
		t.Errorf("after the holder ended: %d %s", resp.StatusCode, body)
	}
	if released.Load() {
		t.Errorf("memory was returned to the system after a burst of 100 bytes")
	}
}

// TestAnswerBudgetReturnsMemory: when the budget drains after holding at
// least returnAfter bytes, freed memory is handed back to the operating
// system once; small answers never trigger it.
func TestAnswerBudgetReturnsMemory(t *testing.T) {
	b := newAnswerBudget(1 << 30)
	done := make(chan struct{}, 4)
	b.free = func() { done <- struct{}{} }
	if !b.take(1000) {
		t.Fatal("take 1000")
	}
	b.give(1000)
	for half := 0; half < 2; half++ {
		if !b.take(returnAfter / 2) {
			t.Fatal("take half of returnAfter")
		}
	}
	b.give(returnAfter / 2)
	b.give(returnAfter / 2)
	<-done // the burst's memory is returned once
	if !b.take(1000) {
		t.Fatal("take 1000 after")
	}
	b.give(1000) // the peak was reset by the return: no second one
	select {
	case <-done:
		t.Errorf("memory returned again after a small answer")
	default:
	}
	if b.inUse() != 0 {
		t.Errorf("%d bytes still in use", b.inUse())
	}
}
