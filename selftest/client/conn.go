package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults for Options fields left zero.
const (
	// DefaultMaxLineBytes bounds one line from a stdio server, one HTTP
	// answer and one event of an event stream: listing 100,000 skills is
	// an answer of about 85 MB.
	DefaultMaxLineBytes = 128 << 20
	// DefaultStderrBytes is how much of a spawned server's stderr is kept
	// for error messages.
	DefaultStderrBytes = 8 << 10
	// maxAnswering bounds the server's requests waiting for their
	// answers; past it, reading waits (the server must read to go on).
	maxAnswering = 64
)

// Options configures a Conn. The zero value is usable.
type Options struct {
	// MaxLineBytes bounds one incoming message: a stdio line, an HTTP
	// answer, an event's data (default DefaultMaxLineBytes). A longer one
	// is read past without being held, and fails the requests waiting.
	MaxLineBytes int
	// OnNotification, when set, receives every notification the server
	// sends, but those of an open subscription (Listen), which go to it.
	// It runs on the goroutine that reads the server: it must not block.
	OnNotification func(*Message)
	// OnRequest answers a request the server sends (ping, roots/list,
	// sampling/createMessage, …): it returns the result, or an *RPCError
	// to answer with. Default: RefuseRequest for "the client". It runs on
	// a goroutine of its own, one request at a time in the order they
	// came, so it may take its time.
	OnRequest func(*Message) (any, error)
	// OnUnmatched, when set, receives what no waiting request claims: a
	// response to no request in flight (err nil), or a line that is not a
	// message while no request waits (err says what is wrong with it).
	// It runs on the goroutine that reads the server: it must not block.
	OnUnmatched func(raw []byte, err error)

	// Env is added to the environment a spawned server inherits; Dir is
	// its working directory ("" for this process's).
	Env []string
	Dir string
	// StderrBytes is how much of a spawned server's stderr is kept for
	// Process.Stderr (default DefaultStderrBytes).
	StderrBytes int

	// HTTPClient sends the HTTP requests (default: a client of its own,
	// with no overall timeout: each call's context bounds it). Give one
	// from HTTPClientWithCA to trust a private CA.
	HTTPClient *http.Client
	// Token, when set, is sent as "Authorization: Bearer <token>".
	Token string
	// ProtocolVersion is the MCP-Protocol-Version header a handshake-era
	// request carries before an initialize answer names one: set it to
	// skip the handshake with a stateless server.
	ProtocolVersion string
	// OnExchange, when set, receives every POST and its answer's status,
	// once the answer is in (or its event stream begins).
	OnExchange func(Exchange)
}

// Request is one message to send.
type Request struct {
	// ID is the request's id: a string or an integer; nil lets the Conn
	// take its next integer. Two requests in flight cannot share one.
	ID any
	// Method and Params are the JSON-RPC method and params; params that
	// encode as null are left out.
	Method string
	Params any
	// Notification sends the message without an id: nothing answers it.
	Notification bool
	// Progress, when set, is sent as params._meta.progressToken (params
	// must then be nil or a map[string]any, which is copied), and each
	// notifications/progress for it is signalled on Pending.Progress.
	Progress any
}

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

// ErrClosed is wrapped by the errors of requests that cannot be answered
// any more: the server closed its output or the Conn was closed.
var ErrClosed = errors.New("the connection is closed")

// ErrEcho is wrapped by the error that ends a Conn whose peer sent one
// of the requests in flight back instead of answering it: a program that
// copies its input (cat), not an MCP server.
var ErrEcho = errors.New("the peer sent our request back")

// EchoError is what ends a Conn whose peer echoed a request in flight.
type EchoError struct {
	Method string
	ID     json.RawMessage
}

func (e *EchoError) Error() string {
	return fmt.Sprintf("the server sent our %s request (id %s) back instead of answering it: is it an MCP server? A program that copies its input, such as cat, does this", e.Method, e.ID)
}

// Is makes errors.Is(err, ErrEcho) hold.
func (e *EchoError) Is(target error) bool { return target == ErrEcho }

// transport carries messages: framing and delivery live there,
// correlation in Conn.
type transport interface {
	// send delivers the messages (lines without newlines) in order,
	// bounded by ctx; ps[i] is the Pending waiting for lines[i]'s answer
	// (nil for a notification or a response). What the server says
	// arrives through Conn.receive.
	send(ctx context.Context, lines [][]byte, ps []*Pending) error
	// stop ends the server side at once (kills the process, cancels
	// open requests); it is idempotent.
	stop()
	// release waits for the transport's goroutines and frees what it
	// holds, after stop.
	release()
}

// Conn is one client of one MCP server: it sends requests, matches each
// answer to its request by id (many may be in flight), and hands the
// server's notifications and requests to the Options' handlers. It is
// safe for concurrent use.
type Conn struct {
	o    Options
	t    transport
	proc *Process // nil over HTTP
	// perPOST: every answer belongs to the POST that carried it (HTTP),
	// so a bad one fails that request alone.
	perPOST bool
	nextID  atomic.Int64
	// requests from the server, answered in order by answerLoop
	requests   chan *Message
	answerOnce sync.Once

	mu       sync.Mutex
	pending  map[string]*Pending // by canonical id
	catchAll []*Pending          // StartRaw waiters, oldest first
	progress map[string]*Pending // by canonical progress token
	subs     map[string]*Subscription
	closeErr error
	closed   chan struct{}

	stopOnce sync.Once
}

func newConn(o *Options) *Conn {
	c := &Conn{
		pending:  map[string]*Pending{},
		progress: map[string]*Pending{},
		subs:     map[string]*Subscription{},
		closed:   make(chan struct{}),
		requests: make(chan *Message, maxAnswering),
	}
	if o != nil {
		c.o = *o
	}
	if c.o.MaxLineBytes <= 0 {
		c.o.MaxLineBytes = DefaultMaxLineBytes
	}
	if c.o.StderrBytes <= 0 {
		c.o.StderrBytes = DefaultStderrBytes
	}
	if c.o.OnRequest == nil {
		c.o.OnRequest = func(m *Message) (any, error) { return RefuseRequest(m, "the client") }
	}
	return c
}

// Process is the spawned server, nil over HTTP.
func (c *Conn) Process() *Process { return c.proc }

// Done is closed once no more answers can come: the server closed its
// output (stdio), the peer echoed a request, or Close was called.
func (c *Conn) Done() <-chan struct{} { return c.closed }

// Err says why Done is closed; nil while it is open.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closeErr
}

// Close stops the server side at once (a spawned server is killed; open
// HTTP requests are cancelled, and a session a server minted is ended)
// and fails every request still waiting. It is idempotent. To let a
// stdio server exit by itself, call Process().CloseInput first.
func (c *Conn) Close() error {
	c.end(fmt.Errorf("%w by the client", ErrClosed))
	c.stopOnce.Do(func() {
		c.t.stop()
		c.t.release()
	})
	return nil
}

// Call sends method with params, waits for the answer and decodes its
// result into result (when not nil). An error answer is an *RPCError.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	p, err := c.Start(ctx, Request{Method: method, Params: params})
	if err != nil {
		return err
	}
	raw, err := p.WaitResult(ctx)
	if err != nil {
		return err
	}
	if result != nil {
		if err := json.Unmarshal(raw, result); err != nil {
			return fmt.Errorf("the %s result is not what the client reads: %w", method, err)
		}
	}
	return nil
}

// Notify sends a notification.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	_, err := c.StartAll(ctx, []Request{{Method: method, Params: params, Notification: true}})
	return err
}

// Start sends a request and returns its Pending at once; ctx bounds the
// sending (a stdio write, an HTTP POST up to its answer's headers or,
// for a JSON answer, its body), Pending.Wait the waiting.
func (c *Conn) Start(ctx context.Context, r Request) (*Pending, error) {
	ps, err := c.StartAll(ctx, []Request{r})
	if err != nil {
		return nil, err
	}
	return ps[0], nil
}

// StartAll sends the requests in order, over stdio in one write, and
// returns their Pendings (nil for notifications). A pipelining client
// writes thousands at once: the answers are read meanwhile.
func (c *Conn) StartAll(ctx context.Context, reqs []Request) ([]*Pending, error) {
	lines := make([][]byte, len(reqs))
	ps := make([]*Pending, len(reqs))
	for i, r := range reqs {
		line, p, err := c.prepare(r)
		if err != nil {
			c.forget(ps[:i])
			return nil, err
		}
		lines[i], ps[i] = line, p
	}
	if err := c.register(ps); err != nil {
		return nil, err
	}
	if err := c.sendLines(ctx, lines, ps); err != nil {
		return nil, err
	}
	return ps, nil
}

// StartRaw writes line as one message, whatever it holds (a probe's
// malformed JSON, an object id, a line over a server's bound), and
// returns a Pending that the first response no other request claims
// completes: an error with a null id, or the answer to line's own id.
func (c *Conn) StartRaw(ctx context.Context, line []byte) (*Pending, error) {
	p := &Pending{c: c, method: "(raw)", done: make(chan struct{})}
	c.mu.Lock()
	if c.closeErr != nil {
		err := c.closeErr
		c.mu.Unlock()
		return nil, err
	}
	c.catchAll = append(c.catchAll, p)
	c.mu.Unlock()
	if err := c.sendLines(ctx, [][]byte{line}, []*Pending{p}); err != nil {
		return nil, err
	}
	return p, nil
}

// SendRaw writes line as one message, waiting for nothing.
func (c *Conn) SendRaw(ctx context.Context, line []byte) error {
	return c.sendLines(ctx, [][]byte{line}, []*Pending{nil})
}

// sendLines stamps the pendings and hands the lines to the transport; a
// request that could not be sent is forgotten.
func (c *Conn) sendLines(ctx context.Context, lines [][]byte, ps []*Pending) error {
	now := time.Now()
	for i, p := range ps {
		if p != nil {
			p.timing.Written, p.timing.SentBytes = now, len(lines[i])+1
		}
	}
	if err := c.t.send(ctx, lines, ps); err != nil {
		c.forget(ps)
		return err
	}
	return nil
}

// prepare encodes r and makes its Pending (nil for a notification).
func (c *Conn) prepare(r Request) ([]byte, *Pending, error) {
	params := r.Params
	if r.Progress != nil {
		var err error
		if params, err = withProgress(params, r.Progress); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", r.Method, err)
		}
	}
	if r.Notification {
		line, err := Encode(nil, r.Method, params)
		return line, nil, err
	}
	id := r.ID
	if id == nil {
		id = c.nextID.Add(1)
	}
	line, err := Encode(id, r.Method, params)
	if err != nil {
		return nil, nil, err
	}
	raw, _ := encodeID(id)
	p := &Pending{c: c, key: string(raw), id: raw, method: r.Method, done: make(chan struct{})}
	if r.Progress != nil {
		tok, _ := encodeID(r.Progress)
		p.progressKey = string(tok)
		p.progress = make(chan struct{}, 1)
	}
	return line, p, nil
}

// withProgress is params with _meta.progressToken set, copied.
func withProgress(params, token any) (map[string]any, error) {
	if _, err := encodeID(token); err != nil {
		return nil, fmt.Errorf("progress token: %w", err)
	}
	in, ok := params.(map[string]any)
	if params != nil && !ok {
		return nil, fmt.Errorf("a progress token needs params as a map[string]any, got %T", params)
	}
	out := make(map[string]any, len(in)+1)
	for k, v := range in {
		out[k] = v
	}
	meta := map[string]any{}
	if m, ok := in["_meta"].(map[string]any); ok {
		for k, v := range m {
			meta[k] = v
		}
	}
	meta["progressToken"] = token
	out["_meta"] = meta
	return out, nil
}

// register files the pendings under their ids before anything is
// written, so no answer can come first.
func (c *Conn) register(ps []*Pending) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closeErr != nil {
		return c.closeErr
	}
	for i, p := range ps {
		if p == nil {
			continue
		}
		if _, dup := c.pending[p.key]; dup {
			for _, q := range ps[:i] {
				if q != nil {
					delete(c.pending, q.key)
					delete(c.progress, q.progressKey)
				}
			}
			return fmt.Errorf("%s: a request with id %s is already in flight; ids of requests in flight must differ", p.method, p.id)
		}
		c.pending[p.key] = p
		if p.progressKey != "" {
			c.progress[p.progressKey] = p
		}
	}
	return nil
}

// forget drops pendings whose requests were never sent.
func (c *Conn) forget(ps []*Pending) {
	for _, p := range ps {
		if p != nil {
			c.finish(p, nil, errors.New("the request was not sent"), time.Time{})
		}
	}
}

// finish completes p with its answer or why none came, once; it reports
// whether this call did.
func (c *Conn) finish(p *Pending, raw []byte, err error, at time.Time) bool {
	c.mu.Lock()
	if p.finished {
		c.mu.Unlock()
		return false
	}
	c.unfile(p)
	c.mu.Unlock()
	p.raw, p.err = raw, err
	p.timing.Answered, p.timing.AnswerBytes = at, len(raw)
	close(p.done)
	if p.sub != nil {
		p.sub.end(p)
	}
	return true
}

// unfile removes p from every index and marks it finished; c.mu is held.
func (c *Conn) unfile(p *Pending) {
	p.finished = true
	if c.pending[p.key] == p {
		delete(c.pending, p.key)
	}
	if p.progressKey != "" && c.progress[p.progressKey] == p {
		delete(c.progress, p.progressKey)
	}
	if p.key == "" {
		for i, q := range c.catchAll {
			if q == p {
				c.catchAll = append(c.catchAll[:i], c.catchAll[i+1:]...)
				break
			}
		}
	}
}

// end closes the Conn for answers with err and fails every waiting
// request with it; the first reason wins.
func (c *Conn) end(err error) {
	c.mu.Lock()
	if c.closeErr != nil {
		c.mu.Unlock()
		return
	}
	c.closeErr = err
	close(c.closed)
	waiting := c.waitingLocked()
	c.mu.Unlock()
	for _, p := range waiting {
		c.finish(p, nil, err, time.Time{})
	}
}

// waitingLocked lists every waiting request; c.mu is held.
func (c *Conn) waitingLocked() []*Pending {
	out := make([]*Pending, 0, len(c.pending)+len(c.catchAll))
	for _, p := range c.pending {
		out = append(out, p)
	}
	return append(out, c.catchAll...)
}

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

// receive routes one message the server sent; from is the Pending whose
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
	if p.sub != nil {
		p.sub.end(p)
	}
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
	routed := len(c.progress) > 0 || len(c.subs) > 0 || (from != nil && from.sub != nil)
	c.mu.Unlock()
	if !routed && c.o.OnNotification == nil {
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
}

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
