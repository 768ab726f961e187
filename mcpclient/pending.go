package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Timing is when a request went out and its answer came in, and their
// sizes: what a benchmark reads of a request.
type Timing struct {
	// Written is just before the request was handed to the transport
	// (the write to stdin, the POST).
	Written time.Time
	// Answered is when the answer's last byte was read (its line, its
	// body or its event), before any decoding; zero until then.
	Answered time.Time
	// SentBytes is the request's size as written (a line's newline
	// included); AnswerBytes the answer's.
	SentBytes, AnswerBytes int
}

// RoundTrip is Answered - Written.
func (t Timing) RoundTrip() time.Duration { return t.Answered.Sub(t.Written) }

// Span is the time from the first request's write to the last answer's
// arrival: a pipelined burst's length, without the decoding of its
// answers. It is zero when some request has no answer yet.
func Span(ps []*Pending) time.Duration {
	var first, last time.Time
	for _, p := range ps {
		if p == nil {
			continue
		}
		t := p.Timing()
		if t.Answered.IsZero() {
			return 0
		}
		if first.IsZero() || t.Written.Before(first) {
			first = t.Written
		}
		if t.Answered.After(last) {
			last = t.Answered
		}
	}
	return last.Sub(first)
}

// Pending is a request in flight.
type Pending struct {
	c           *Conn
	key         string // canonical id; "" for a raw waiter
	id          json.RawMessage
	method      string
	progressKey string
	progress    chan struct{}
	done        chan struct{}
	finished    bool // guarded by c.mu
	sub         *Subscription

	raw    []byte
	err    error
	timing Timing
	stream context.CancelFunc // ends the event stream carrying the answer (HTTP)
	status int                // the HTTP status of the POST's answer
}

// HTTPStatus is the status of the HTTP answer to the request's POST; 0
// over stdio or before the answer's headers came.
func (p *Pending) HTTPStatus() int { return p.status }

// ID is the request's id as sent (nil for a raw waiter).
func (p *Pending) ID() json.RawMessage { return p.id }

// Method is the request's method.
func (p *Pending) Method() string { return p.method }

// Done is closed once the answer is in, or why none will come is known.
func (p *Pending) Done() <-chan struct{} { return p.done }

// Progress signals each notifications/progress for the request's
// progress token (Request.Progress); nil without one.
func (p *Pending) Progress() <-chan struct{} { return p.progress }

// Timing is the request's timing; read it after Done.
func (p *Pending) Timing() Timing { return p.timing }

// Raw is the answer's bytes as received, or why there are none; call it
// after Done.
func (p *Pending) Raw() ([]byte, error) { return p.raw, p.err }

// Message decodes the answer; call it after Done.
func (p *Pending) Message() (*Message, error) {
	if p.err != nil {
		return nil, p.err
	}
	return Decode(p.raw)
}

// Wait waits for the answer and decodes it. When ctx ends first, the
// request is abandoned (a late answer goes to OnUnmatched) and ctx's
// error returned.
func (p *Pending) Wait(ctx context.Context) (*Message, error) {
	select {
	case <-p.done:
		return p.Message()
	case <-ctx.Done():
		p.Abandon()
		return nil, fmt.Errorf("no answer to %s (id %s): %w", p.method, p.id, ctx.Err())
	}
}

// WaitResult is Wait that returns the result, or the error answer as an
// *RPCError.
func (p *Pending) WaitResult(ctx context.Context) (json.RawMessage, error) {
	m, err := p.Wait(ctx)
	if err != nil {
		return nil, err
	}
	if m.Error != nil {
		return nil, m.Error
	}
	return m.Result, nil
}

// Abandon stops waiting for the answer (and ends its event stream).
func (p *Pending) Abandon() {
	p.c.finish(p, nil, fmt.Errorf("%w: the request was abandoned", ErrClosed), time.Time{})
	if p.stream != nil {
		p.stream()
	}
}
