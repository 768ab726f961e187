package mcp

import "time"

// The end of the input (docs/protocol.md §2). EOF on stdin means the
// client will send nothing more, not that it has stopped reading: the
// server answers every request it has read, as long as the answers can be
// delivered, and then ends, with status 0. Two clocks keep that prompt:
//
//   - a grace period after EOF, requests still owed are cut: handlers
//     still running are cancelled and answer an error saying so, and
//     requests that have not started (waiting for a handler) are answered
//     the same way without being run. Cheap requests held behind answers
//     the client has not read yet are answered normally: they cost less
//     than the error. Nothing is answered "Internal error";
//   - after that, whenever a stall period (also a grace period) passes
//     with no answer produced and no byte written (handlers that ignore
//     their cancellation, or a client that has stopped reading), the
//     server ends without the answers it cannot deliver, and logs once
//     how many requests they were.

// drain runs at EOF, on the reading goroutine: it waits for every request
// read to be answered and written, cutting and abandoning as above.
func (c *conn) drain() {
	// Open subscriptions/listen requests end with the input: they are
	// answered at once rather than held for the grace period.
	c.sess.eachListen(func(l *listen) { l.stop() })
	answered := make(chan struct{})
	go func() {
		c.waitHeld()
		c.tr.waitIdle(c.stop)
		close(answered)
	}()
	t := time.NewTimer(c.grace)
	defer t.Stop()
	seen := c.progressCount()
	cut := false
	done := answered
	for {
		select {
		case <-done:
			if done == c.writerDone {
				return
			}
			// Every request is answered: the writer ends once the rest
			// is written.
			c.mu.Lock()
			c.closing = true
			c.mu.Unlock()
			c.wake()
			done = c.writerDone
			continue
		case <-c.stop:
			return
		case <-t.C:
		}
		if !cut {
			cut = true
			c.cutOwed()
			if c.onCut != nil {
				c.onCut()
			}
		} else if now := c.progressCount(); now == seen {
			c.abandon()
			return
		}
		seen = c.progressCount()
		t.Reset(c.stall)
	}
}

// cutOwed cuts the requests still owed a grace period after EOF, and logs
// what it cut, if anything.
func (c *conn) cutOwed() {
	c.mu.Lock()
	c.cut = true
	held := c.heldCount()
	c.mu.Unlock()
	running, queued := c.tr.cutOwed()
	if running+queued > 0 {
		c.log.Warn("stdin closed with requests still owed a grace period later: cancelling those running, answering those not started without running them",
			"running", running, "not_started", queued, "held_cheap", held, "grace", c.grace)
	}
}

// abandon ends the connection without the answers it could not deliver,
// logging once how many requests they were.
func (c *conn) abandon() {
	running, queued := c.tr.counts()
	c.mu.Lock()
	held := c.heldCount()
	unwritten := c.unwritten
	c.mu.Unlock()
	c.log.Warn("stdin closed and nothing moved for a grace period: ending without the answers owed",
		"unanswered", running+queued+held, "ignoring_cancellation", running, "waiting", queued+held,
		"unwritten_bytes", unwritten, "grace", c.grace)
	close(c.abandoned)
}

func (c *conn) progressCount() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.progress
}
