package httpd

import (
	"fmt"
	"net/http"
	"runtime/debug"
	"sync/atomic"
	"time"
)

// The answer memory budget (docs/http.md §1, §5). An answer is built in
// memory and held until its last byte is written, which a client that
// reads slowly, or not at all, stretches to --write-timeout; and a JSON-RPC
// batch multiplies one small body into many answers. Bounds per request
// (--max-answer-bytes, --max-concurrent) still let enough such clients
// together pin gigabytes. So every answer's bytes are reserved from one
// budget shared by all requests before the answer is held, and given back
// when its request ends (written, failed, or cut off by the write
// deadline): past the budget a request is answered 503 with Retry-After,
// and no mix of clients holds more than MaxAnswerMemory of answers.

// DefaultMaxAnswerMemory is the default budget (Options.MaxAnswerMemory):
// sixteen answers at the default bound on one answer (4 MiB), or tens of
// thousands of the usual few-kilobyte ones.
const DefaultMaxAnswerMemory = 64 << 20

// returnAfter is how many answer bytes must have been held at once for
// the budget to hand memory back to the operating system when it
// drains: the heap a burst of large answers grew stays mapped otherwise
// (Go returns it slowly, minutes later), so a server that served one
// attack would keep its peak footprint.
const returnAfter = 16 << 20

// answerBudget counts the answer bytes held across all requests.
type answerBudget struct {
	max  int64
	used atomic.Int64
	// peak is the most held since memory was last returned.
	peak      atomic.Int64
	returning atomic.Bool
	// free returns freed memory to the operating system
	// (debug.FreeOSMemory; tests count the calls).
	free func()
}

func newAnswerBudget(max int64) *answerBudget {
	return &answerBudget{max: max, free: debug.FreeOSMemory}
}

// take reserves n bytes; false, reserving nothing, past the budget.
func (b *answerBudget) take(n int64) bool {
	for {
		used := b.used.Load()
		if used+n > b.max {
			return false
		}
		if b.used.CompareAndSwap(used, used+n) {
			for p := b.peak.Load(); used+n > p && !b.peak.CompareAndSwap(p, used+n); p = b.peak.Load() {
			}
			return true
		}
	}
}

// give returns n bytes. When that leaves no answer held after a burst of
// at least returnAfter, the memory is handed back to the operating system
// in the background (one return at a time).
func (b *answerBudget) give(n int64) {
	if n == 0 || b.used.Add(-n) != 0 || b.peak.Load() < returnAfter || !b.returning.CompareAndSwap(false, true) {
		return
	}
	b.peak.Store(0)
	go func() {
		defer b.returning.Store(false)
		b.free()
	}()
}

// inUse is the bytes reserved now (tests).
func (b *answerBudget) inUse() int64 { return b.used.Load() }

// answerHold is what one request has reserved.
type answerHold struct {
	budget *answerBudget
	held   atomic.Int64
}

// take reserves n more bytes for the request; false, reserving nothing,
// past the budget (or with no budget: a request not served by Server).
func (h *answerHold) take(n int64) bool {
	if h.budget == nil {
		return true
	}
	if !h.budget.take(n) {
		return false
	}
	h.held.Add(n)
	return true
}

// release gives back everything the request reserved, once it has ended.
func (h *answerHold) release() {
	if h.budget != nil {
		h.budget.give(h.held.Swap(0))
	}
}

// ReserveAnswer reserves n more bytes of the server's answer memory
// (Options.MaxAnswerMemory) for the request served with r, before the
// handler holds an answer of that size for writing; the bytes are given
// back when the request ends. It reports false when the budget is spent,
// after answering 503 with Retry-After and a JSON-RPC error itself,
// unless w is nil (the handler has sent its status already and words the
// refusal itself). On a request not served by this package it reports
// true.
func ReserveAnswer(w http.ResponseWriter, r *http.Request, n int64) bool {
	ri := infoFrom(r.Context())
	if ri == nil || ri.answers.budget == nil || n <= 0 {
		return true
	}
	b := ri.answers.budget
	if b.take(n) {
		ri.answers.held.Add(n)
		return true
	}
	if w == nil {
		return false
	}
	Reject(r.Context(), RejectAnswerMemory)
	msg := fmt.Sprintf("Service unavailable: answers being sent already hold the server's %d bytes of answer memory (--max-answer-memory) and this one needs %d more; retry shortly", b.max, n)
	if n > b.max {
		// Retrying cannot help: say what to change.
		msg = fmt.Sprintf("Service unavailable: this answer needs %d bytes, more than the server's whole answer memory of %d bytes (--max-answer-memory): the operator raises it, or the client asks for less (a smaller batch or page)", n, b.max)
	} else {
		w.Header().Set("Retry-After", fmt.Sprint(int(retryAfter/time.Second)))
	}
	writeError(w, http.StatusServiceUnavailable, codeInternal, msg, nil)
	return false
}
