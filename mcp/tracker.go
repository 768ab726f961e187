package mcp

import (
	"context"
	"encoding/json"
	"sync"
)

// inflight is one request read and not yet answered: queued for a handler
// goroutine, or running in one.
type inflight struct {
	id     uint64          // private, unique for the connection's life
	rawID  json.RawMessage // the client's id, as sent
	key    string          // idKey(rawID), for notifications/cancelled
	method string
	params json.RawMessage
	size   int64  // bytes charged to the pending budget until it is answered
	batch  *batch // nil outside a batch
	slot   int    // the request's position in its batch
	// beforeHandshake is set when no initialize had been handled when the
	// request was read: it is served as such even if one is handled
	// while it waits in the queue (docs/protocol.md §1).
	beforeHandshake bool
	cancel          context.CancelFunc
	// writing is set once its answer is claimed: a cancellation then
	// comes too late.
	writing bool
}

// tracker knows which requests still owe a response, finds them by the
// client's id for notifications/cancelled, and lets EOF wait for them.
// Safe for concurrent use.
type tracker struct {
	mu    sync.Mutex
	cond  *sync.Cond // signalled whenever live shrinks
	next  uint64
	live  map[uint64]*inflight
	byKey map[string]uint64 // client id key -> newest private id
	cut   bool              // set by cutOwed: no queued request starts
}

func newTracker() *tracker {
	t := &tracker{live: map[uint64]*inflight{}, byKey: map[string]uint64{}}
	t.cond = sync.NewCond(&t.mu)
	return t
}

// add registers a request and gives it its private id.
func (t *tracker) add(e *inflight) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.next++
	e.id = t.next
	t.live[e.id] = e
	t.byKey[e.key] = e.id
}

// attach gives a request's handler context cancel function to the tracker
// as its handler is about to start. live is false when the request is no
// longer live (it was cancelled while it waited in the queue); cut is true
// when the cut at EOF (cutOwed) came first: the request was counted as not
// started, and is answered without running.
func (t *tracker) attach(e *inflight, cancel context.CancelFunc) (live, cut bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.live[e.id] != e {
		return false, false
	}
	if t.cut {
		return true, true
	}
	e.cancel = cancel
	return true, false
}

// finish claims a request's response: it returns false when the request
// was cancelled, so its response must not be sent.
func (t *tracker) finish(e *inflight) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.live[e.id] != e || e.writing {
		return false
	}
	e.writing = true
	if t.byKey[e.key] == e.id {
		delete(t.byKey, e.key)
	}
	return true
}

// release forgets a request once its response is on its way.
func (t *tracker) release(e *inflight) {
	t.mu.Lock()
	delete(t.live, e.id)
	t.cond.Broadcast()
	t.mu.Unlock()
}

// cancel honours notifications/cancelled for the client id key: the
// handler's context is cancelled (or the queued request is skipped) and no
// response will be sent. Unknown or already answered ids are ignored.
func (t *tracker) cancel(key string) bool {
	t.mu.Lock()
	id, ok := t.byKey[key]
	var e *inflight
	if ok {
		e = t.live[id]
	}
	if e == nil || e.writing {
		t.mu.Unlock()
		return false
	}
	delete(t.byKey, key)
	delete(t.live, id)
	cancel := e.cancel
	t.cond.Broadcast()
	t.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	if e.batch != nil {
		e.batch.drop()
	}
	return true
}

// waitIdle blocks until no request is live or stop is closed.
func (t *tracker) waitIdle(stop <-chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for len(t.live) > 0 {
		select {
		case <-stop:
			return
		default:
		}
		t.cond.Wait()
	}
}

// wake rouses waitIdle so it can notice stop. Broadcasting under the lock
// means a waiter between its stop check and cond.Wait cannot miss it.
func (t *tracker) wake() {
	t.mu.Lock()
	t.cond.Broadcast()
	t.mu.Unlock()
}

// cutOwed is the cut at EOF: it cancels the context of every request
// whose handler has started and whose answer is not yet claimed, leaving
// them tracked (each still answers, with an error saying why), and from
// then on attach tells a queued request not to run. It returns how many
// it cancelled (running) and how many were queued, counted in the same
// pass under the lock: counted after the cancels, a queued request could
// take the slot a cancelled one had just freed and be counted as neither.
func (t *tracker) cutOwed() (running, queued int) {
	t.mu.Lock()
	t.cut = true
	var cancels []context.CancelFunc
	for _, e := range t.live {
		switch {
		case e.cancel == nil:
			queued++
		case !e.writing:
			cancels = append(cancels, e.cancel)
		}
	}
	t.mu.Unlock()
	for _, cancel := range cancels {
		cancel()
	}
	return len(cancels), queued
}

// counts is how many requests owe a response: running (their handler has
// started) and queued (waiting for one).
func (t *tracker) counts() (running, queued int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, e := range t.live {
		if e.cancel != nil {
			running++
		} else {
			queued++
		}
	}
	return running, queued
}
