package mcp

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// eofGrace is how long requests still running when stdin closes may
// finish; then their contexts are cancelled, so a request that would run
// for minutes cannot keep a server whose client is gone alive.
const eofGrace = time.Second

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
	// reader is the reading goroutine's own state (stdio.go).
	reader
	w      io.Writer
	tr     *tracker
	budget int64

	mu      sync.Mutex
	room    *sync.Cond // the reader waits here while pending > budget
	pending int64      // request bytes not yet answered + answer bytes not yet written
	// scheduler (queue, held, in flight: scheduler.go) and outbox (the
	// answers waiting for the writer: stdio.go) are guarded by mu; their
	// doc comments state their invariants.
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

func newConn(ctx context.Context, srv *server, in io.Reader, out io.Writer) *conn {
	opts := srv.opts
	ctx, cancel := context.WithCancel(ctx)
	c := &conn{
		srv:        srv,
		ctx:        ctx,
		cancelReqs: cancel,
		grace:      eofGrace,
		stall:      eofGrace,
		log:        srv.log,
		reader:     reader{lr: newLineReader(in, opts.MaxLineBytes)},
		w:          out,
		tr:         newTracker(),
		scheduler:  scheduler{maxInFlight: opts.MaxInFlight},
		budget:     opts.MaxPendingBytes,
		kick:       make(chan struct{}, 1),
		stop:       make(chan struct{}),
		writerDone: make(chan struct{}),
		abandoned:  make(chan struct{}),
	}
	c.room = sync.NewCond(&c.mu)
	c.sess = newSession(c)
	return c
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
