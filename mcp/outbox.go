package mcp

import (
	"encoding/json"
	"fmt"
	"sync"
)

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
