package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// The reading side of a stdio connection: bounded newline-delimited lines
// (lineReader, which knows nothing of JSON-RPC), read by one goroutine
// while the pending budget allows, each classified as it is read: a
// batch, a cancellation applied at once, a notification, a cheap request
// answered now, or a request handed to the scheduler (scheduler.go).

// reader is the reading goroutine's state; nothing else uses it, so it
// needs no lock.
type reader struct {
	lr *lineReader
	// initRead is set once an initialize request has been read (handled
	// or held): the requests read before it are pre-handshake requests
	// whenever they run.
	initRead bool
}

// errLineTooLong is what readLine reports for a line over the bound; the
// rest of that line has already been discarded.
var errLineTooLong = errors.New("line too long")

// lineReader reads bounded lines from stdin with ReadSlice, so a line is
// copied at most once and an oversized one is skipped without being kept.
type lineReader struct {
	r       *bufio.Reader
	maxLine int
	buf     []byte // the line being assembled, at most maxLine+2 bytes
}

// newLineReader reads lines of at most maxLine bytes (Options.MaxLineBytes,
// its default applied by Options.withDefaults).
func newLineReader(in io.Reader, maxLine int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(in, 64<<10), maxLine: maxLine}
}

// readLine returns the next line without its "\n" or "\r\n"; the slice is
// valid until the next call. A line over maxLine bytes is consumed to its
// end without being kept and reported as errLineTooLong (an unterminated
// oversized tail too, then io.EOF comes on the next call). At end of input
// it returns the unterminated tail (if any) with io.EOF.
func (l *lineReader) readLine() ([]byte, error) {
	l.buf = l.buf[:0]
	tooLong := false
	for {
		chunk, err := l.r.ReadSlice('\n')
		if !tooLong {
			if len(l.buf)+len(chunk) > l.maxLine+2 {
				tooLong = true
				l.buf = l.buf[:0]
			} else if len(l.buf) == 0 && err == nil {
				// The whole line sits in the reader's buffer: no copy.
				return trimEOL(chunk, l.maxLine)
			} else {
				l.buf = append(l.buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if !tooLong {
			line, lerr := trimEOL(l.buf, l.maxLine)
			if lerr != nil {
				return nil, lerr
			}
			return line, err
		}
		return nil, errLineTooLong
	}
}

// trimEOL drops the line terminator and checks the bound.
func trimEOL(line []byte, max int) ([]byte, error) {
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(line) > max {
		return nil, errLineTooLong
	}
	return line, nil
}

// tooLongLine is the -32700 answer to an oversized line.
func tooLongLine(max int) []byte {
	return errorLine(nil, codeParseError, fmt.Sprintf(
		"Parse error: line longer than %d bytes was discarded (raise the limit with --max-message-bytes)", max), nil)
}

// readLoop reads and accepts lines until EOF (then waits for every
// request to be answered and closes the writer), a read failure, or the
// end of Serve.
func (c *conn) readLoop() {
	for {
		if !c.waitRoom() {
			return
		}
		line, err := c.lr.readLine()
		switch {
		case errors.Is(err, errLineTooLong):
			c.put(tooLongLine(c.lr.maxLine))
			continue
		case err != nil && !errors.Is(err, io.EOF):
			c.fail(fmt.Errorf("reading stdin: %w", err))
			return
		}
		c.accept(line)
		if err != nil {
			c.drain()
			return
		}
	}
}

// waitRoom blocks while the pending bytes are over budget; false once
// Serve is ending.
func (c *conn) waitRoom() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.pending > c.budget && !c.stopped {
		if c.onWait != nil {
			c.onWait(c.pending)
		}
		c.room.Wait()
	}
	return !c.stopped
}

// accept classifies one line: blank (ignored), a batch, or one message.
func (c *conn) accept(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if line[0] == '[' {
		c.acceptBatch(line)
		return
	}
	m, errLine := decodeMessage(line)
	if errLine != nil {
		c.put(errLine)
		return
	}
	c.acceptOne(m, len(line))
}

// acceptOne takes one valid message outside a batch: a cancellation is
// applied, another notification handled, a cheap request answered now,
// any other request queued.
func (c *conn) acceptOne(m message, size int) {
	if m.method == methodInitialize && m.rawID != nil {
		defer func() { c.initRead = true }() // after m itself is queued or handled
	}
	switch {
	case m.reply:
		// This server sends no requests, so no response is awaited.
		c.log.Debug("ignoring a response from the client", "id", string(m.rawID))
		return
	case m.rawID == nil && m.method == methodCancelled:
		c.cancelled(m.params)
		return
	case m.rawID == nil:
		if !c.hold(m, false) {
			c.srv.notify(c.sess, m.method)
		}
		return
	case c.tryInline(m):
		return
	}
	c.enqueue(c.newInflight(m, size, nil, 0))
}

// newInflight makes the tracked form of request m (size bytes on the
// wire), inside batch b at slot when b is not nil. The message's slices
// point into the line, which the next read overwrites: a queued request
// keeps its own copies.
func (c *conn) newInflight(m message, size int, b *batch, slot int) *inflight {
	return &inflight{rawID: bytes.Clone(m.rawID), key: m.key, method: m.method, params: bytes.Clone(m.params), size: int64(size) + queuedOverhead, batch: b, slot: slot,
		beforeHandshake: !c.initRead}
}

// cancelled honours notifications/cancelled as the line is read, whatever
// the queue holds: a queued request is skipped, a running one has its
// context cancelled, and neither is answered. Malformed or unknown
// cancellations are ignored.
func (c *conn) cancelled(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || p.RequestID == nil {
		return
	}
	key, err := idKey(p.RequestID)
	if err != nil {
		return
	}
	if c.tr.cancel(key) || c.dropHeld(key) {
		c.log.Debug("request cancelled", "id", string(p.RequestID))
	}
}
