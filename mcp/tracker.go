package mcp

import (
	"context"
	"encoding/json"
	"sync"
)

// inflight is one request handed to jsonrpc2 and not yet answered.
type inflight struct {
	rawID   json.RawMessage // the client's id, as sent
	key     string          // idKey(rawID), for notifications/cancelled
	batch   *batch          // nil outside a batch
	slot    int             // the request's position in its batch
	cancel  context.CancelFunc
	writing bool // its response is being written
}

// tracker maps the stream's private request ids to the client's ids and
// tracks which requests still owe a response. Safe for concurrent use.
type tracker struct {
	mu    sync.Mutex
	cond  *sync.Cond // signalled whenever live shrinks
	next  uint64
	live  map[uint64]*inflight
	byKey map[string]uint64 // client id key -> newest private id
}

func newTracker() *tracker {
	t := &tracker{live: map[uint64]*inflight{}, byKey: map[string]uint64{}}
	t.cond = sync.NewCond(&t.mu)
	return t
}

// add registers a request and returns its private id.
func (t *tracker) add(rawID json.RawMessage, key string, b *batch, slot int) uint64 {
	if b != nil {
		b.expect()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.next++
	id := t.next
	t.live[id] = &inflight{rawID: append(json.RawMessage(nil), rawID...), key: key, batch: b, slot: slot}
	t.byKey[key] = id
	return id
}

// attach gives a request's handler context cancel function to the tracker.
// It returns false when the request is no longer live (it was cancelled
// before its handler started).
func (t *tracker) attach(id uint64, cancel context.CancelFunc) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.live[id]
	if !ok {
		return false
	}
	e.cancel = cancel
	return true
}

// finish claims a request's response slot: it returns nil when the request
// was cancelled (or never existed), so its response must not be sent.
func (t *tracker) finish(id uint64) *inflight {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.live[id]
	if !ok || e.writing {
		return nil
	}
	e.writing = true
	if t.byKey[e.key] == id {
		delete(t.byKey, e.key)
	}
	return e
}

// release forgets a request once its response is written.
func (t *tracker) release(id uint64) {
	t.mu.Lock()
	delete(t.live, id)
	t.mu.Unlock()
	t.cond.Broadcast()
}

// cancel honours notifications/cancelled for the client id key: the
// handler's context is cancelled and no response will be sent. Unknown or
// already answered ids are ignored (PROTOCOL §2).
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
	t.mu.Unlock()
	if e.cancel != nil {
		e.cancel()
	}
	if e.batch != nil {
		e.batch.drop()
	}
	t.cond.Broadcast()
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

// waitRoom blocks while max or more requests are live. It returns false
// when stop is closed first.
func (t *tracker) waitRoom(max int, stop <-chan struct{}) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for len(t.live) >= max {
		select {
		case <-stop:
			return false
		default:
		}
		t.cond.Wait()
	}
	return true
}

// wake rouses waitIdle so it can notice stop. Broadcasting under the lock
// means a waiter between its stop check and cond.Wait cannot miss it.
func (t *tracker) wake() {
	t.mu.Lock()
	t.cond.Broadcast()
	t.mu.Unlock()
}
