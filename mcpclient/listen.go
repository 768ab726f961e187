package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ListenBuffer is how many notifications a subscription holds unread;
// one more ends it with ErrOverflow rather than stalling every other
// answer behind it.
const ListenBuffer = 1024

// ErrOverflow ends a subscription whose reader fell ListenBuffer
// notifications behind: what it missed is unknown, so it should read the
// state again and listen anew.
var ErrOverflow = errors.New("the subscription's notifications were not read in time")

// Subscription is an open subscriptions/listen (docs/protocol.md §11): a
// request the server answers only when it ends the subscription, with
// notifications meanwhile, each tagged with the request's id.
type Subscription struct {
	c      *Conn
	p      *Pending
	events chan *Message

	mu    sync.Mutex
	ended bool
	err   error
}

// Listen sends subscriptions/listen with params (a 2026-07-28 request:
// Session.Listen adds the revision's _meta) and returns at once. Every
// notification the server sends for it, its acknowledgement first,
// arrives on Events, until the server answers the request, Close, or
// the Conn ends. ctx bounds the sending.
func (c *Conn) Listen(ctx context.Context, params any) (*Subscription, error) {
	line, p, err := c.prepare(Request{Method: "subscriptions/listen", Params: params})
	if err != nil {
		return nil, err
	}
	s := &Subscription{c: c, p: p, events: make(chan *Message, ListenBuffer)}
	p.sub = s
	c.mu.Lock()
	c.subs[p.key] = s
	c.mu.Unlock()
	if err := c.register([]*Pending{p}); err != nil {
		c.dropSub(p.key)
		return nil, err
	}
	if err := c.sendLines(ctx, [][]byte{line}, []*Pending{p}); err != nil {
		c.dropSub(p.key)
		return nil, err
	}
	return s, nil
}

func (c *Conn) dropSub(key string) {
	c.mu.Lock()
	delete(c.subs, key)
	c.mu.Unlock()
}

// Events delivers the subscription's notifications; it is closed when
// the subscription ends.
func (s *Subscription) Events() <-chan *Message { return s.events }

// ID is the listen request's id, which tags its notifications.
func (s *Subscription) ID() []byte { return s.p.id }

// Err says why the subscription ended: nil when the server ended it (its
// answer is Answer's), else ErrOverflow, the Conn's end or Close's.
func (s *Subscription) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Answer is the listen request's answer once the server has ended the
// subscription.
func (s *Subscription) Answer() (*Message, error) {
	if !s.p.isDone() {
		return nil, errors.New("the subscription is still open")
	}
	return s.p.Message()
}

// Close ends the subscription: over stdio with notifications/cancelled
// (bounded by ctx), over HTTP by closing its event stream. Events is
// closed.
func (s *Subscription) Close(ctx context.Context) error {
	var err error
	if !s.c.perPOST && !s.p.isDone() {
		err = s.c.Notify(ctx, "notifications/cancelled", map[string]any{"requestId": s.p.id, "reason": "the client closed the subscription"})
	}
	s.p.Abandon()
	return err
}

// deliver queues one notification; a full queue ends the subscription.
func (s *Subscription) deliver(m *Message) {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	select {
	case s.events <- m:
		s.mu.Unlock()
		return
	default:
	}
	s.mu.Unlock()
	// Off the reading goroutine: over stdio, cancelling writes.
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.endWith(fmt.Errorf("%w: %d notifications unread", ErrOverflow, ListenBuffer))
		s.Close(ctx)
	}()
}

// end closes the subscription once its request is finished.
func (s *Subscription) end(p *Pending) {
	if p.err != nil {
		s.endWith(p.err)
	} else {
		s.endWith(nil)
	}
	s.c.dropSub(p.key)
}

// endWith closes Events with err as the reason, once.
func (s *Subscription) endWith(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	s.ended, s.err = true, err
	close(s.events)
}
