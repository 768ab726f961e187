package httpd

import (
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Long-lived streams (docs/http.md §1). A 2026-07-28 client keeps one
// subscriptions/listen stream open for as long as it is connected (the
// official Go SDK opens it by itself whenever the server declares
// listChanged), so if streams counted against MaxConcurrent, every
// connected client would take one request slot for good and a team the
// size of the cap would leave no room for a single tool call. A handler
// that turns its request into such a stream calls StartStream: the request
// gives its slot back and holds one of MaxStreams instead. The same goes
// for a handshake-era client's GET stream of change notifications, which
// it keeps open the same way; those are counted apart too (Load), so the
// metrics tell the two kinds of clients apart.

// slotHolder is the semaphore slot a request holds: one of MaxConcurrent
// while it is a request, one of MaxStreams once it is a stream.
type slotHolder struct {
	mu   sync.Mutex
	held chan struct{} // the semaphore a slot is held in; nil: none
	// count, when set, counts the slot apart while it is held (GET
	// streams).
	count *atomic.Int64
}

// hold records a slot taken in sem, counted in count when not nil.
func (h *slotHolder) hold(sem chan struct{}, count *atomic.Int64) {
	h.mu.Lock()
	h.held, h.count = sem, count
	h.mu.Unlock()
	if count != nil {
		count.Add(1)
	}
}

// release gives the slot back, once.
func (h *slotHolder) release() {
	h.mu.Lock()
	sem, count := h.held, h.count
	h.held, h.count = nil, nil
	h.mu.Unlock()
	if count != nil {
		count.Add(-1)
	}
	if sem != nil {
		<-sem
	}
}

// StartStream moves the request served with r from the MaxConcurrent
// bound to the MaxStreams one, for a handler about to hold it open for
// as long as the client stays (an SSE stream of events: a POST's
// subscriptions/listen, or a GET). It reports false, after answering 503
// itself, when MaxStreams streams are already open. On a request not
// served by this package it does nothing and reports true.
func StartStream(w http.ResponseWriter, r *http.Request) bool {
	ri := infoFrom(r.Context())
	if ri == nil || ri.streams == nil {
		return true
	}
	select {
	case ri.streams <- struct{}{}:
	default:
		ri.rejection = RejectStreams
		w.Header().Set("Retry-After", fmt.Sprint(int(retryAfter/time.Second)))
		writeError(w, http.StatusServiceUnavailable, codeInternal,
			fmt.Sprintf("Service unavailable: %d streams already open (the server's --max-streams); retry shortly", cap(ri.streams)), nil)
		return false
	}
	ri.slot.release()
	var count *atomic.Int64
	if r.Method == http.MethodGet {
		count = ri.getStreams
	}
	ri.slot.hold(ri.streams, count)
	ri.stream = true
	return true
}
