package mcp

// scheduler decides when each request read on a stdio connection runs:
// at once on the reading goroutine (conn.tryInline), held in read order
// while the answers are behind, or queued for a handler goroutine. It has
// no lock of its own: the connection's mutex (conn.mu) guards every field
// and every call.
//
// Its invariants, whenever conn.mu is free:
//
//   - queue is the requests read and not started, in read order; held is
//     the cheap requests and notifications read while the answers were
//     behind (outbox.behind) or while earlier ones were still held, in
//     read order;
//   - running ≤ maxInFlight is the handler goroutines; each runs a
//     request, then the queue's head while one may start (a
//     subscriptions/listen runs outside the bound: it is held open until
//     cancelled, and must not hold a slot others wait for);
//   - a queued request starts only while nothing is held or being
//     answered from held, so what was read before it is handled before
//     it (an initialize held there is in place before the requests
//     behind it), and while the answers are not behind;
//   - at most one goroutine answers the held requests (draining), in
//     order, and only while the answers are not behind.
type scheduler struct {
	maxInFlight int
	queue       []*inflight
	running     int
	held        []*heldRequest
	draining    bool
}

// heldRequest is a cheap request, or a notification, read while the
// answers were behind or while earlier ones were held.
type heldRequest struct {
	m       message // rawID and params are the request's own copies
	size    int64   // charged to the budget
	dropped bool    // cancelled before it was answered
}

// mayStart reports whether a queued request may start; behind is
// outbox.behind().
func (s *scheduler) mayStart(behind bool) bool {
	return !behind && len(s.held) == 0 && !s.draining
}

// hasSlot reports whether a request may start on a new handler goroutine.
func (s *scheduler) hasSlot(behind bool) bool {
	return s.running < s.maxInFlight && s.mayStart(behind)
}

// pop takes the queue's head when it may start; nil otherwise.
func (s *scheduler) pop(behind bool) *inflight {
	if len(s.queue) == 0 || !s.mayStart(behind) {
		return nil
	}
	e := s.queue[0]
	s.queue[0] = nil
	s.queue = s.queue[1:]
	return e
}

// startDraining reports whether a goroutine should start answering the
// held requests (there are some, none does yet, and the answers are not
// behind), and marks it started.
func (s *scheduler) startDraining(behind bool) bool {
	if len(s.held) == 0 || s.draining || behind {
		return false
	}
	s.draining = true
	return true
}

// mustHold reports whether a cheap request read now waits in held: the
// answers are behind (when the caller counts that), or earlier ones are
// still held, so that what the reader handles keeps its read order.
func (s *scheduler) mustHold(behind bool) bool {
	return len(s.held) > 0 || s.draining || behind
}

// popHeld takes the first held request while the answers are not behind;
// nil otherwise.
func (s *scheduler) popHeld(behind bool) *heldRequest {
	if len(s.held) == 0 || behind {
		return nil
	}
	h := s.held[0]
	s.held[0] = nil
	s.held = s.held[1:]
	return h
}

// dropHeldKey marks the held request with id key as cancelled; false when
// none is held.
func (s *scheduler) dropHeldKey(key string) bool {
	for _, h := range s.held {
		if h != nil && !h.dropped && h.m.key == key {
			h.dropped = true
			return true
		}
	}
	return false
}

// heldCount is the held requests not cancelled (notifications are not
// counted: nothing answers them).
func (s *scheduler) heldCount() int {
	n := 0
	for _, h := range s.held {
		if h != nil && !h.dropped && h.m.rawID != nil {
			n++
		}
	}
	return n
}
