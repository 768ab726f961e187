package mcp

import (
	"bytes"
	"context"
	"encoding/json"
)

// When each request runs: the scheduler's state and rules, and the
// connection's methods that apply them (enqueue, tryInline, hold, work,
// run).

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

// enqueue tracks e, charges it to the budget and starts it on a handler
// goroutine when the in-flight bound and the answer lead allow, else
// queues it.
func (c *conn) enqueue(e *inflight) {
	c.tr.add(e)
	c.mu.Lock()
	c.pending += e.size
	if e.method == methodListen && e.batch == nil {
		// A listen is held open until cancelled or the input ends: run
		// outside the in-flight bound, it never holds a handler slot that
		// other requests wait for (the session bounds open listens).
		c.mu.Unlock()
		go c.run(e)
		return
	}
	if c.hasSlot(c.behind()) {
		c.running++
		c.mu.Unlock()
		go c.work(e)
		return
	}
	c.queue = append(c.queue, e)
	c.mu.Unlock()
}

// startQueuedLocked starts the goroutine answering held requests, and
// handler goroutines for queued requests, while the in-flight bound and
// answerLead allow; the writer calls it as it catches up. c.mu is held.
func (c *conn) startQueuedLocked() {
	if c.stopped {
		return
	}
	if c.startDraining(c.behind()) {
		go c.answerHeld()
	}
	for c.running < c.maxInFlight {
		e := c.pop(c.behind())
		if e == nil {
			return
		}
		c.running++
		go c.work(e)
	}
}

// tryInline answers a cheap request on the reader's goroutine, in read
// order: no queue, no goroutine, one encoding straight into the output.
// It reports false for a request that must go to a handler goroutine.
func (c *conn) tryInline(m message) bool {
	if !c.srv.inlineMethod(m.method) {
		return false
	}
	params, err := decodeParams(m.params)
	if err == nil && !c.srv.cheapCall(m.method, params) {
		return false
	}
	if c.hold(m, true) {
		return true
	}
	c.answerInline(m, params, err)
	return true
}

// answerInline answers a cheap request on the calling goroutine.
func (c *conn) answerInline(m message, params map[string]json.RawMessage, err error) {
	var res any
	if err == nil {
		res, err = c.srv.safeDispatch(withRequestID(c.ctx, m.rawID), c.sess, m.method, params)
	}
	c.putAnswer(m.rawID, res, err)
}

// hold keeps a cheap request for later when the answers are behind
// (answerLead, when whenBehind is set), or a cheap request or a
// notification when earlier ones are still held, so what the reader
// handles keeps its read order (an initialize, then the notification
// that follows it). It reports false when m may be handled now.
func (c *conn) hold(m message, whenBehind bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.mustHold(whenBehind && c.behind()) {
		return false
	}
	m.rawID, m.params = bytes.Clone(m.rawID), bytes.Clone(m.params)
	h := &heldRequest{m: m, size: int64(len(m.rawID)+len(m.params)+len(m.method)) + queuedOverhead}
	c.held = append(c.held, h)
	c.pending += h.size
	c.startQueuedLocked()
	return true
}

// answerHeld answers the held requests in order while the answers are
// not behind; it is the one goroutine doing so (draining).
func (c *conn) answerHeld() {
	for {
		c.mu.Lock()
		var h *heldRequest
		if !c.stopped {
			h = c.popHeld(c.behind())
		}
		if h == nil {
			c.draining = false
			c.room.Broadcast() // drain may be waiting for the held requests
			c.startQueuedLocked()
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		switch {
		case h.dropped:
		case h.m.rawID == nil:
			c.srv.notify(c.sess, h.m.method)
		default:
			params, err := decodeParams(h.m.params)
			c.answerInline(h.m, params, err)
		}
		c.credit(h.size)
	}
}

// dropHeld marks the held request with id key as cancelled; false when
// none is held.
func (c *conn) dropHeld(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dropHeldKey(key)
}

// waitHeld blocks until no request is held, or Serve is ending.
func (c *conn) waitHeld() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for (len(c.held) > 0 || c.draining) && !c.stopped {
		c.room.Wait()
	}
}

// work runs e and then whatever waits in the queue, until it is empty.
func (c *conn) work(e *inflight) {
	for e != nil {
		c.run(e)
		c.mu.Lock()
		if e = c.pop(c.behind()); e == nil {
			c.running--
		}
		c.mu.Unlock()
	}
}

// run serves one queued request with its own cancellable context; a
// request cancelled while it waited is skipped. Its bytes leave the budget
// before it leaves the tracker, so the count is settled when EOF finds no
// request left.
func (c *conn) run(e *inflight) {
	ctx, cancel := context.WithCancel(withNotifier(c.ctx, c))
	defer cancel()
	live, cut := c.tr.attach(e, cancel)
	if !live {
		c.credit(e.size)
		return
	}
	params, err := decodeParams(e.params)
	var res any
	switch {
	case cut:
		err = c.notRunAtEOF(e.method)
	case err == nil:
		if e.beforeHandshake {
			ctx = withBeforeHandshake(ctx)
		}
		res, err = c.srv.safeDispatch(withRequestID(ctx, e.rawID), c.sess, e.method, params)
		if err != nil && ctx.Err() != nil && c.cutAtEOF() {
			err = c.cancelledAtEOF(e.method)
		}
	}
	if !c.tr.finish(e) {
		c.credit(e.size)
		return
	}
	if e.batch != nil {
		e.batch.fill(e.slot, e.rawID, appendAnswer(nil, e.rawID, res, err))
	} else {
		c.putAnswer(e.rawID, res, err)
	}
	c.credit(e.size)
	c.tr.release(e)
}

// inlineMethod reports whether requests of method are answered as they
// are read (methodSpec.inline); cheapCall then asks about the call.
func (s *server) inlineMethod(method string) bool {
	switch s.methods[method].inline {
	case inlineNever:
		return false
	case inlineLoaded:
		return s.loadedOK()
	}
	return true // inlineAlways
}

// cheapCall reports whether a call of an inline method is cheap enough to
// answer inline (methodSpec.cheap).
func (s *server) cheapCall(method string, params map[string]json.RawMessage) bool {
	cheap := s.methods[method].cheap
	return cheap == nil || cheap(s, params)
}
