package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
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

// The writing side of a stdio connection: every answer and notification
// is added to the outbox as one line (putAnswer, put), charged to the
// pending budget once (putParts), and written by one goroutine
// (writeLoop), which settles each chunk it writes and lets the scheduler
// start what waited for the answers to catch up.

// outChunk is the size of the chunks answers are gathered in: a client
// that reads slowly lets answers pile up, and appending them to one
// growing buffer copied the pile over and over.
const outChunk = 64 << 10

// maxFreeChunks bounds the written chunks kept for reuse (1 MiB).
const maxFreeChunks = 16

// answerLead is how many bytes of answers may wait for the writer before
// the connection stops producing more: further requests are still read
// and queued (a request line is small next to its answer), and run as
// the writer catches up. A pipelining client that reads more slowly than
// the server answers, the usual case for large answers such as tools/list,
// so costs the server a request queue rather than megabytes of answers
// that each need fresh memory; it matches the chunks kept for reuse.
const answerLead = maxFreeChunks * outChunk

// outbox is the answers of a stdio connection waiting for its writer
// goroutine: newline-ended lines gathered in chunks of outChunk (a line
// larger than that is a chunk of its own), and how many of their bytes
// are not yet written. It has no lock of its own: the connection's mutex
// (conn.mu) guards every field and every call.
//
// Its invariants, whenever conn.mu is free: unwritten is the bytes of the
// chunks in out plus those of the chunks the writer has taken and not yet
// settled (written); free holds at most maxFreeChunks empty chunks of
// capacity outChunk.
type outbox struct {
	out       [][]byte // chunks not yet taken by the writer
	free      [][]byte // written chunks kept for reuse
	unwritten int64
}

// behind reports whether answerLead bytes of answers wait: no request is
// started, and cheap ones are held, until the writer catches up.
func (o *outbox) behind() bool { return o.unwritten >= answerLead }

// add appends the line a+b+z and its newline; it returns the bytes added.
func (o *outbox) add(a, b, z []byte) int64 {
	size := len(a) + len(b) + len(z) + 1
	n := len(o.out)
	if n == 0 || cap(o.out[n-1])-len(o.out[n-1]) < size {
		var chunk []byte
		if k := len(o.free); k > 0 && size <= outChunk {
			chunk, o.free = o.free[k-1], o.free[:k-1]
		} else {
			chunk = make([]byte, 0, max(outChunk, size))
		}
		o.out = append(o.out, chunk)
		n++
	}
	o.out[n-1] = append(append(append(append(o.out[n-1], a...), b...), z...), '\n')
	o.unwritten += int64(size)
	return int64(size)
}

// addOwned appends line, which the caller gives up and which has room for
// the newline, as a chunk of its own; it returns the bytes added.
func (o *outbox) addOwned(line []byte) int64 {
	line = append(line, '\n')
	o.out = append(o.out, line)
	o.unwritten += int64(len(line))
	return int64(len(line))
}

// take hands the writer every waiting chunk and empties the outbox; bufs
// is the writer's previous batch, whose backing array is reused.
func (o *outbox) take(bufs [][]byte) [][]byte {
	bufs, o.out = o.out, bufs[:0]
	return bufs
}

// written settles a chunk the writer took: its bytes are no longer
// waiting, and a chunk of the usual size is kept for reuse.
func (o *outbox) written(buf []byte) {
	o.unwritten -= int64(len(buf))
	if cap(buf) == outChunk && len(o.free) < maxFreeChunks {
		o.free = append(o.free, buf[:0])
	}
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
