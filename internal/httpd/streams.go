package httpd

import (
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Long-lived streams (docs/http.md §1). A 2026-07-28 client keeps one
// subscriptions/listen stream open for as long as it is connected (the
// official Go SDK opens it by itself whenever the server declares
// listChanged), so if streams counted against MaxConcurrent, every
// connected client would take one request slot for good and a team the
// size of the cap would leave no room for a single tool call. A handler
// that turns its request into such a stream calls StartStream: the request
// gives its slot back and holds one of MaxStreams instead.

// slotHolder is the semaphore slot a request holds: one of MaxConcurrent
// while it is a request, one of MaxStreams once it is a stream.
type slotHolder struct {
	mu   sync.Mutex
	held chan struct{} // the semaphore a slot is held in; nil: none
}

func (h *slotHolder) hold(sem chan struct{}) {
	h.mu.Lock()
	h.held = sem
	h.mu.Unlock()
}

// release gives the slot back, once.
func (h *slotHolder) release() {
	h.mu.Lock()
	sem := h.held
	h.held = nil
	h.mu.Unlock()
	if sem != nil {
		<-sem
	}
}

// StartStream moves the request served with r from the MaxConcurrent
// bound to the MaxStreams one, for a handler about to hold it open for
// as long as the client stays (an SSE stream of events). It reports
// false, after answering 503 itself, when MaxStreams streams are already
// open. On a request not served by this package it does nothing and
// reports true.
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
	ri.slot.hold(ri.streams)
	ri.stream = true
	return true
}
