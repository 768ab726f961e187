package mcpclient

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
	// OnDone, when set, receives every request once its answer is in, or
	// why none will come is known (Pending.Raw says which; Timing holds
	// the sizes): what a client counts of what it asked. It runs on the
	// goroutine that finished the request (often the one that reads the
	// server): it must not block.
	OnDone func(*Pending)
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
	raw, err := encodeID(id)
	if err != nil {
		return nil, nil, fmt.Errorf("encode %s: %w", r.Method, err)
	}
	line, err := Encode(json.RawMessage(raw), r.Method, params)
	if err != nil {
		return nil, nil, err
	}
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
	c.completed(p)
	return true
}

// completed tells whoever follows p that it is done: its subscription,
// OnDone.
func (c *Conn) completed(p *Pending) {
	if p.sub != nil {
		p.sub.end(p)
	}
	if c.o.OnDone != nil {
		c.o.OnDone(p)
	}
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
