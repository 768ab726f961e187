package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/agent3md/agent3md/internal/jsoncheck"
)

// JSON-RPC batches (2025-03-26 only; docs/protocol.md §2, §12). A batch is
// served like the requests it holds, within the bounds of one answer:
//
//   - its requests run as separate requests do: on stdio through the
//     connection's queue and its --max-in-flight handlers (a batch never
//     has more of its requests queued or running than that bound), and
//     charged to --max-pending-bytes; over HTTP one after the other, on
//     the one request slot the POST holds;
//   - its answer array holds answers while they fit in --max-answer-bytes
//     (the first answer always does, so a batch of one request is
//     answered as that request alone would be). The request whose answer
//     does not fit, and every request of the batch answered after it or
//     not yet started, gets instead the short error tooLargeEntry, with
//     its id: every request is answered exactly once, and no request is
//     run once its answer could only be refused.
//
// A client sending the small batches 2025-03-26 clients send never meets
// the bound; one that packs thousands of requests into a line costs the
// server one answer's bytes plus about 200 bytes per request, never an
// answer per request.

// batchRefusal is the error entry of a batch element that may not be
// batched, or nil: initialize (the handshake stands alone) and 2026-07-28
// requests (a stateless revision has no batches, and one such request,
// subscriptions/listen, would hold the whole array open).
func batchRefusal(rawID json.RawMessage, method string, modern bool) []byte {
	switch {
	case method == methodInitialize:
		return errorLine(rawID, codeInvalidRequest, "Invalid Request: initialize must not be part of a batch", nil)
	case modern:
		return errorLine(rawID, codeInvalidRequest, "Invalid Request: a "+version20260728+" request is never batched; send one message per request", nil)
	}
	return nil
}

// isModern reports whether raw params carry 2026-07-28 _meta.
func isModern(raw json.RawMessage) bool {
	params, err := decodeParams(raw)
	if err != nil {
		return false
	}
	_, ok := decodeMeta(params)[metaProtocolVersion]
	return ok
}

// answerHead starts every answer, before the client's id.
const answerHead = `{"jsonrpc":"2.0","id":`

// batchEntry builds the short error entries a batch gives the requests its
// answer cannot hold: the error part is encoded once per batch, and each
// entry is answerHead, the request's id, then that part.
type batchEntry struct {
	tail []byte // from the comma after the id to the entry's end
}

// tooLargeEntry is the entry of a request whose answer passes the batch's
// bound, or that was not run once the bound was passed.
func tooLargeEntry(limit int64) batchEntry {
	return newBatchEntry(codeInvalidRequest, fmt.Sprintf(
		"Batch too large: its answers pass the %d-byte bound on one answer (--max-answer-bytes); send this request again alone or in a smaller batch", limit))
}

func newBatchEntry(code int64, msg string) batchEntry {
	line := errorLine(json.RawMessage("0"), code, msg, nil)
	return batchEntry{tail: line[len(answerHead)+1:]}
}

// size is the length of rawID's entry.
func (t batchEntry) size(rawID []byte) int { return len(answerHead) + len(rawID) + len(t.tail) }

// appendEntry appends rawID's entry to dst.
func (t batchEntry) appendEntry(dst, rawID []byte) []byte {
	return append(append(append(dst, answerHead...), rawID...), t.tail...)
}

// batchBound decides which answers a batch's array holds (the rule
// above). Not safe for concurrent use: its owner locks.
type batchBound struct {
	limit   int64
	used    int64 // bytes of the entries so far, with their commas and the brackets
	results int   // answers admitted
	full    bool  // an answer did not fit: no later one is admitted
}

func newBatchBound(limit int64) batchBound { return batchBound{limit: limit, used: 2} }

// admit reports whether an answer of n bytes goes into the array; past the
// bound it marks the batch full.
func (b *batchBound) admit(n int) bool {
	if !b.full && b.results > 0 && b.used+int64(n)+1 > b.limit {
		b.full = true
	}
	if b.full {
		return false
	}
	b.results++
	return true
}

// add counts an entry of n bytes held in the array.
func (b *batchBound) add(n int) { b.used += int64(n) + 1 }

// eachElement calls fn with the bounds of each element of arr, a valid JSON
// array with no space around it, in order, without copying: the elements
// are arr[start:end].
func eachElement(arr []byte, fn func(start, end int)) {
	i := jsoncheck.SkipSpace(arr, 1)
	for i < len(arr) && arr[i] != ']' {
		end, ok := jsoncheck.SkipValue(arr, i)
		if !ok {
			return
		}
		fn(i, end)
		i = jsoncheck.SkipSpace(arr, end)
		if i < len(arr) && arr[i] == ',' {
			i = jsoncheck.SkipSpace(arr, i+1)
		}
	}
}

// batch is one 2025-03-26 batch on a stdio connection. It keeps its own
// copy of the line (charged to the pending budget until the answer is
// written out) and the positions of its requests, and hands them to the
// connection's queue a window at a time, so a batch of any size holds at
// most maxInFlight requests queued or running. Its answer is one array,
// in element order, written once every request started is answered or
// cancelled and either every request has started or the array is full.
type batch struct {
	c      *conn
	line   []byte
	window int
	tl     batchEntry

	mu      sync.Mutex
	slots   [][]byte   // one per element; nil for notifications and cancelled requests
	reqs    []batchReq // the requests to run, in order
	next    int        // reqs[next:] have not been started
	running int        // started and not yet answered or cancelled
	held    int64      // bytes of slots, charged to the budget
	bound   batchBound
	written bool
}

// batchReq is one request of a batch: its element's slot and bounds.
type batchReq struct{ slot, start, end int }

// acceptBatch handles a JSON array: only connections negotiated to
// 2025-03-26 may batch. Notifications are applied as the elements are
// read, elements that are not requests answered at once, and the requests
// handed to the queue a window at a time.
func (c *conn) acceptBatch(line []byte) {
	if !jsoncheck.Valid(line) {
		c.put(parseErrorLine(line))
		return
	}
	if !c.sess.batchesAllowed() {
		c.put(errorLine(nil, codeInvalidRequest,
			"Invalid Request: batches are accepted only on connections initialized with protocol version 2025-03-26", nil))
		return
	}
	n := 0
	eachElement(line, func(int, int) { n++ })
	if n == 0 {
		c.put(errorLine(nil, codeInvalidRequest, "Invalid Request: empty batch", nil))
		return
	}
	limit := int64(c.srv.maxAnswerBytes())
	b := &batch{c: c, line: bytes.Clone(line), window: c.maxInFlight, tl: tooLargeEntry(limit),
		slots: make([][]byte, n), bound: newBatchBound(limit)}
	c.charge(int64(len(b.line)))
	slot := 0
	eachElement(b.line, func(start, end int) {
		i := slot
		slot++
		m, errLine := decodeMessage(b.line[start:end])
		switch {
		case errLine == nil && (m.reply || m.rawID == nil):
			c.acceptOne(m, end-start) // a notification, in read order
		case errLine == nil:
			if errLine = batchRefusal(m.rawID, m.method, isModern(m.params)); errLine == nil {
				b.reqs = append(b.reqs, batchReq{slot: i, start: start, end: end})
			}
		}
		if errLine != nil {
			b.slots[i] = errLine
			b.held += int64(len(errLine))
			b.bound.add(len(errLine))
			c.charge(int64(len(errLine)))
		}
	})
	b.pump()
}

// pump starts the batch's next requests while its window has room and the
// array is not full, then writes the answer if nothing is left to wait for.
func (b *batch) pump() {
	for {
		b.mu.Lock()
		if b.bound.full || b.next >= len(b.reqs) || b.running >= b.window {
			b.mu.Unlock()
			break
		}
		r := b.reqs[b.next]
		b.next++
		b.running++
		b.mu.Unlock()
		// The element was decoded when the line was read; decoding it again
		// costs less than keeping every request's fields until it starts.
		m, _ := decodeMessage(b.line[r.start:r.end])
		b.c.enqueue(b.c.newInflight(m, r.end-r.start, b, r.slot))
	}
	b.flush()
}

// fill records the answer of a started request: in the array while it
// fits, else the tooLargeEntry entry.
func (b *batch) fill(slot int, rawID json.RawMessage, line []byte) {
	b.mu.Lock()
	if !b.bound.admit(len(line)) {
		line = b.tl.appendEntry(nil, rawID)
	}
	b.slots[slot] = line
	b.bound.add(len(line))
	b.held += int64(len(line))
	b.running--
	b.mu.Unlock()
	b.c.charge(int64(len(line)))
	b.pump()
}

// drop forgets a started request that was cancelled: it gets no entry.
func (b *batch) drop() {
	b.mu.Lock()
	b.running--
	b.mu.Unlock()
	b.pump()
}

// flush writes the array once no started request is outstanding and no
// more will start: the held entries and, in their places, a tooLargeEntry
// entry for each request never started, in one exactly sized buffer
// handed to the writer without a copy. A batch of notifications only
// writes nothing.
func (b *batch) flush() {
	b.mu.Lock()
	if b.written || b.running > 0 || (b.next < len(b.reqs) && !b.bound.full) {
		b.mu.Unlock()
		return
	}
	b.written = true
	unstarted := b.reqs[b.next:]
	ids := make([]json.RawMessage, len(unstarted))
	size, entries := 2, 0
	for _, s := range b.slots {
		if s != nil {
			size += len(s) + 1
			entries++
		}
	}
	for i, r := range unstarted {
		m, _ := decodeMessage(b.line[r.start:r.end])
		ids[i] = m.rawID
		size += b.tl.size(m.rawID) + 1
		entries++
	}
	out := b.assemble(size, unstarted, ids)
	held := b.held + int64(len(b.line))
	b.slots, b.reqs, b.line = nil, nil, nil
	b.mu.Unlock()
	if entries > 0 {
		b.c.putOwned(out)
	}
	b.c.credit(held)
}

// assemble writes the array of flush in element order. b.mu is held.
func (b *batch) assemble(size int, unstarted []batchReq, ids []json.RawMessage) []byte {
	out := make([]byte, 0, size+1) // +1: the writer's newline
	out = append(out, '[')
	k := 0
	for slot, s := range b.slots {
		if k < len(unstarted) && unstarted[k].slot == slot {
			if len(out) > 1 {
				out = append(out, ',')
			}
			out = b.tl.appendEntry(out, ids[k])
			k++
			continue
		}
		if s != nil {
			if len(out) > 1 {
				out = append(out, ',')
			}
			out = append(out, s...)
		}
	}
	return append(out, ']')
}
