package mcp

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
