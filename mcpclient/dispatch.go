package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// failWaiting fails the requests an answer that is not a usable message
// may have been meant for: over HTTP the one whose POST it answers (from),
// over stdio every request in flight (a bad line could be anyone's). With
// none waiting, it goes to OnUnmatched.
func (c *Conn) failWaiting(from *Pending, raw []byte, err error) {
	var waiting []*Pending
	switch {
	case c.perPOST && from != nil:
		waiting = []*Pending{from}
	case !c.perPOST:
		c.mu.Lock()
		waiting = c.waitingLocked()
		c.mu.Unlock()
	}
	failed := false
	for _, p := range waiting {
		failed = c.finish(p, nil, err, time.Now()) || failed
	}
	if !failed && c.o.OnUnmatched != nil {
		c.o.OnUnmatched(raw, err)
	}
}

// receive dispatches one message the server sent; from is the Pending whose
// POST it answers (HTTP), nil over stdio.
func (c *Conn) receive(raw []byte, at time.Time, from *Pending) {
	env, err := peekEnvelope(raw)
	if err != nil {
		if _, derr := Decode(raw); derr != nil {
			err = derr
		}
		c.failWaiting(from, raw, err)
		return
	}
	switch {
	case env.request():
		c.serverRequest(raw, env, from)
	case env.hasMethod:
		c.notification(raw, from)
	default:
		c.response(raw, env, at)
	}
}

// response completes the request raw answers, else the oldest raw
// waiter, else hands it to OnUnmatched.
func (c *Conn) response(raw []byte, env envelope, at time.Time) {
	id := canonicalID(env.id)
	c.mu.Lock()
	p := c.pending[string(id)] // no allocation: the hot path of a pipelined burst
	if p == nil && len(c.catchAll) > 0 {
		p = c.catchAll[0]
	}
	if p != nil {
		c.unfile(p)
	}
	c.mu.Unlock()
	if p == nil {
		if c.o.OnUnmatched != nil {
			c.o.OnUnmatched(raw, nil)
		}
		return
	}
	p.raw = raw
	p.timing.Answered, p.timing.AnswerBytes = at, len(raw)
	close(p.done)
	c.completed(p)
}

// serverRequest queues a request the server sent for answerLoop, so a
// server that asks and waits never stalls reading.
// A request that is one of ours coming back ends the Conn.
func (c *Conn) serverRequest(raw []byte, env envelope, from *Pending) {
	id := canonicalID(env.id)
	c.mu.Lock()
	ours := c.pending[string(id)]
	c.mu.Unlock()
	if ours != nil && ours.method == env.method {
		err := &EchoError{Method: env.method, ID: ours.id}
		c.end(err)
		c.t.stop()
		return
	}
	m, err := Decode(raw)
	if err != nil {
		c.failWaiting(from, raw, err)
		return
	}
	c.answerOnce.Do(func() { go c.answerLoop() })
	select {
	case c.requests <- m:
	case <-c.closed:
	}
}

// answerLoop answers the server's requests in the order they came, off
// the reading goroutine; a full queue makes reading wait (the server
// must read its answers to go on).
func (c *Conn) answerLoop() {
	for {
		select {
		case m := <-c.requests:
			c.answer(m)
		case <-c.closed:
			return
		}
	}
}

// answer writes the reply to a server request; one that cannot be
// written is dropped (the server is gone, and the requests waiting on
// it will say so).
func (c *Conn) answer(m *Message) {
	result, err := c.o.OnRequest(m)
	resp := map[string]any{"jsonrpc": "2.0", "id": m.ID}
	var rpcErr *RPCError
	switch {
	case errors.As(err, &rpcErr):
		resp["error"] = rpcErr
	case err != nil:
		resp["error"] = &RPCError{Code: CodeInternalError, Message: err.Error()}
	case result == nil:
		resp["result"] = map[string]any{}
	default:
		resp["result"] = result
	}
	b, err := marshal(resp)
	if err != nil {
		return
	}
	// Bounded by the Conn's life: a server that stops reading its input
	// cannot hold this goroutine past Close.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-c.closed:
			cancel()
		case <-ctx.Done():
		}
	}()
	c.t.send(ctx, [][]byte{b}, []*Pending{nil})
}

// notification delivers a notification: progress to its request's
// waiter, a subscription's events to it, the rest to OnNotification.
func (c *Conn) notification(raw []byte, from *Pending) {
	c.mu.Lock()
	dispatched := len(c.progress) > 0 || len(c.subs) > 0 || (from != nil && from.sub != nil)
	c.mu.Unlock()
	if !dispatched && c.o.OnNotification == nil {
		return
	}
	m, err := Decode(raw)
	if err != nil {
		c.failWaiting(from, raw, err)
		return
	}
	var p struct {
		Token json.RawMessage            `json:"progressToken"`
		Meta  map[string]json.RawMessage `json:"_meta"`
	}
	json.Unmarshal(m.Params, &p)
	if sub := c.subscriptionOf(p.Meta[MetaSubscriptionID], from); sub != nil {
		sub.deliver(m)
		return
	}
	if m.Method == "notifications/progress" && len(p.Token) > 0 {
		c.mu.Lock()
		w := c.progress[string(canonicalID(p.Token))]
		c.mu.Unlock()
		if w != nil {
			select {
			case w.progress <- struct{}{}:
			default:
			}
		}
	}
	if c.o.OnNotification != nil {
		c.o.OnNotification(m)
	}
}

// subscriptionOf is the subscription a notification belongs to: the one
// its _meta names, else the listen whose event stream carried it.
func (c *Conn) subscriptionOf(tag json.RawMessage, from *Pending) *Subscription {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(tag) > 0 {
		if s := c.subs[string(canonicalID(tag))]; s != nil {
			return s
		}
	}
	if from != nil {
		return from.sub
	}
	return nil
}

// RefuseRequest is how a client that declared no capabilities answers a
// server's request: ping gets {}, roots/list an empty list (it owns no
// roots, and a server that asks regardless gets a well-formed answer),
// and anything else (sampling/createMessage, elicitation/create, …)
// "method not found", naming who in the message.
func RefuseRequest(m *Message, who string) (any, error) {
	switch m.Method {
	case "ping":
		return map[string]any{}, nil
	case "roots/list":
		return map[string]any{"roots": []any{}}, nil
	}
	return nil, &RPCError{Code: CodeMethodNotFound,
		Message: fmt.Sprintf("%s does not offer %s (it declared no client capabilities)", who, m.Method)}
}
