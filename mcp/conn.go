package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"
)

// DefaultMaxInFlight is how many handler goroutines one connection runs at
// once; requests past it wait in the connection's queue, stdin is still
// read.
const DefaultMaxInFlight = 64

// eofGrace is how long requests still running when stdin closes may
// finish; then their contexts are cancelled, so a request that would run
// for minutes cannot keep a server whose client is gone alive.
const eofGrace = time.Second

// DefaultMaxPendingBytes bounds what one connection holds for a client
// that writes faster than it reads: the bytes of requests read and not yet
// answered plus the bytes of answers not yet written to stdout. Past it
// the server stops reading stdin until the client reads some answers.
const DefaultMaxPendingBytes = 64 << 20

// queuedOverhead is charged to the budget for each queued request on top
// of its line: the request's own bookkeeping, so a flood of tiny requests
// cannot hold several times the budget.
const queuedOverhead = 256

// conn is one JSON-RPC connection over the stdio transport: it reads lines
// as long as the pending budget allows, answers what is cheap as it reads
// (in read order, no goroutine hand-off), queues the rest for at most
// maxInFlight handler goroutines, applies notifications/cancelled at once,
// and hands every answer to one writer goroutine, so a client that does
// not read never stops the server from reading until the budget is spent.
type conn struct {
	srv        *server
	sess       *session        // the connection's one session
	ctx        context.Context // every request's context derives from it
	cancelReqs context.CancelFunc
	grace      time.Duration // eofGrace; tests shorten it
	stall      time.Duration // eofGrace: how long nothing may move after the cut (eof.go)
	log        *slog.Logger
	lr         *lineReader
	// initRead is set once the reader has read an initialize request
	// (handled or held): the requests read before it are pre-handshake
	// requests whenever they run. Only the reading goroutine uses it.
	initRead bool
	w        io.Writer
	tr       *tracker
	budget   int64

	mu      sync.Mutex
	room    *sync.Cond // the reader waits here while pending > budget
	pending int64      // request bytes not yet answered + answer bytes not yet written
	// scheduler (queue, held, in flight) and outbox (answers waiting for
	// the writer) are guarded by mu; their doc comments state their
	// invariants.
	scheduler
	outbox
	closing bool // no more answers will come: the writer ends when out is empty
	stopped bool // Serve is ending: nobody waits any more
	// cut is set a grace period after EOF when requests were still owed:
	// the running ones were cancelled, and the rest start only to be
	// answered that they were not run (eof.go).
	cut bool
	// progress counts answers put and writes done, for EOF's watchdog.
	progress uint64
	ioErr    error // the first read or write failure

	kick       chan struct{} // wakes the writer
	stop       chan struct{} // closed when Serve ends
	writerDone chan struct{}
	// abandoned is closed when, after EOF, nothing moved for a grace
	// period: Serve returns without the answers it could not deliver.
	abandoned chan struct{}

	// onWait, when set (tests), is called under mu each time the reader
	// waits for room, with the pending byte count.
	onWait func(pending int64)
	// onCut, when set (tests), is called once the requests owed a grace
	// period after EOF have been cut.
	onCut func()
}

func newConn(ctx context.Context, srv *server, in io.Reader, out io.Writer, opts *Options) *conn {
	ctx, cancel := context.WithCancel(ctx)
	c := &conn{
		srv:        srv,
		ctx:        ctx,
		cancelReqs: cancel,
		grace:      eofGrace,
		stall:      eofGrace,
		log:        srv.log,
		lr:         newLineReader(in, opts.MaxLineBytes),
		w:          out,
		tr:         newTracker(),
		scheduler:  scheduler{maxInFlight: opts.MaxInFlight},
		budget:     opts.MaxPendingBytes,
		kick:       make(chan struct{}, 1),
		stop:       make(chan struct{}),
		writerDone: make(chan struct{}),
		abandoned:  make(chan struct{}),
	}
	if c.maxInFlight <= 0 {
		c.maxInFlight = DefaultMaxInFlight
	}
	if c.budget <= 0 {
		c.budget = DefaultMaxPendingBytes
	}
	c.room = sync.NewCond(&c.mu)
	c.sess = newSession(c)
	return c
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
	if !c.tr.attach(e, cancel) {
		c.credit(e.size)
		return
	}
	params, err := decodeParams(e.params)
	var res any
	switch {
	case c.cutAtEOF():
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

// Notify sends a server notification (notifications/progress, …) on this
// connection, after whatever answers are already waiting. It is the one
// place the connection builds a message of its own (wire.go encodes it).
func (c *conn) Notify(ctx context.Context, method string, params any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	line, err := notificationLine(method, params)
	if err != nil {
		return err
	}
	c.put(line)
	return nil
}

// scratch holds reusable answer buffers.
var scratch = sync.Pool{New: func() any { return new([]byte) }}

// putAnswer encodes one answer and hands it to the writer. An answer
// encoded already (a tool result, a cached answer) goes straight into the
// output around its envelope, as appendAnswer would write it, without
// first being copied whole into a line of its own.
func (c *conn) putAnswer(rawID json.RawMessage, res any, err error) {
	if err == nil {
		var enc preEncoded
		switch r := res.(type) {
		case encodedTool:
			enc = r.enc
		case preEncoded:
			enc = r
		}
		if enc != nil {
			var hb [64]byte
			head := append(append(append(hb[:0], `{"jsonrpc":"2.0","id":`...), rawID...), `,"result":`...)
			c.putLine(head, enc, closeObject)
			if t, ok := res.(encodedTool); ok {
				releaseTool(t) // copied into the output
			}
			return
		}
	}
	sc := scratch.Get().(*[]byte)
	line := appendAnswer((*sc)[:0], rawID, res, err)
	c.put(line)
	if cap(line) <= maxPooledEncoder {
		*sc = line
		scratch.Put(sc)
	}
}

// closeObject ends an answer putAnswer writes in parts.
var closeObject = []byte{'}'}

// put appends one message line for the writer, charging it to the budget.
func (c *conn) put(line []byte) { c.putLine(line, nil, nil) }

// putLine appends the line a+b+z for the writer, charging it to the
// budget.
func (c *conn) putLine(a, b, z []byte) { c.putParts(a, b, z, nil) }

// putOwned hands the writer a line the caller gives up, with room for the
// newline: a large one (a batch's array) becomes a chunk of its own rather
// than being copied.
func (c *conn) putOwned(line []byte) {
	if len(line) < outChunk {
		c.put(line)
		return
	}
	c.putParts(nil, nil, nil, line)
}

// putParts adds the line a+b+z, or owned when it is set, to the outbox:
// the one place an answer's bytes are charged to the budget and counted
// as progress (the writer's settle is the other half).
func (c *conn) putParts(a, b, z, owned []byte) {
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return
	}
	var n int64
	if owned != nil {
		n = c.addOwned(owned)
	} else {
		n = c.add(a, b, z)
	}
	c.pending += n
	c.progress++
	c.mu.Unlock()
	c.wake()
}

// charge takes n bytes from the budget.
func (c *conn) charge(n int64) {
	c.mu.Lock()
	c.pending += n
	c.mu.Unlock()
}

// credit returns n bytes to the budget.
func (c *conn) credit(n int64) {
	c.mu.Lock()
	c.pending -= n
	if c.pending <= c.budget {
		c.room.Broadcast()
	}
	c.mu.Unlock()
}

func (c *conn) wake() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// writeLoop writes the answers that have accumulated, a chunk per Write,
// until the connection closes or a write fails.
func (c *conn) writeLoop() {
	defer close(c.writerDone)
	var bufs [][]byte
	for {
		c.mu.Lock()
		for len(c.out) == 0 {
			if c.closing || c.stopped {
				c.mu.Unlock()
				return
			}
			c.mu.Unlock()
			select {
			case <-c.kick:
			case <-c.stop:
			}
			c.mu.Lock()
		}
		bufs = c.take(bufs)
		c.mu.Unlock()
		for i, buf := range bufs {
			_, err := c.w.Write(buf)
			c.mu.Lock()
			c.written(buf)
			c.pending -= int64(len(buf))
			c.progress++
			c.startQueuedLocked()
			c.room.Broadcast()
			c.mu.Unlock()
			bufs[i] = nil
			if err != nil {
				c.fail(fmt.Errorf("writing stdout: %w", err))
				return
			}
		}
	}
}

// fail records the first I/O failure and ends the connection.
func (c *conn) fail(err error) {
	c.mu.Lock()
	if c.ioErr == nil {
		c.ioErr = err
	}
	c.mu.Unlock()
	c.shutdown()
}

// err returns the first I/O failure, nil after a clean EOF.
func (c *conn) err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ioErr
}

// shutdown stops every wait; it is idempotent. Neither stdin nor stdout is
// closed: Serve does not own them.
func (c *conn) shutdown() {
	c.cancelReqs()
	c.mu.Lock()
	if !c.stopped {
		c.stopped = true
		close(c.stop)
	}
	c.room.Broadcast()
	c.mu.Unlock()
	c.tr.wake()
}

// pendingBytes is the budget in use (tests).
func (c *conn) pendingBytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pending
}

// cutAtEOF reports whether requests owed at EOF have been cut.
func (c *conn) cutAtEOF() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cut
}

// cancelledAtEOF is the answer of a request cancelled by the cut.
func (c *conn) cancelledAtEOF(method string) error {
	return errorf(codeInternalError, "Cancelled: stdin closed and %s was still running %v later, so the server ended it (send it again on a new connection)", method, c.grace)
}

// notRunAtEOF is the answer of a request that had not started by the cut.
func (c *conn) notRunAtEOF(method string) error {
	return errorf(codeInternalError, "Not run: stdin closed and %s was still waiting for a handler %v later, so the server ended it unrun (send it again on a new connection)", method, c.grace)
}
