package mcp

import (
	"fmt"
	"net/http"

	"github.com/agent3md/agent3md/internal/jsoncheck"
)

// batch serves a JSON array of messages. 2025-03-26 is the one revision
// whose Streamable HTTP takes batches, and its clients send no
// MCP-Protocol-Version header, so a batch is served when the header is
// absent or names 2025-03-26 and refused (400, -32600) otherwise
// (docs/protocol.md §2, §12). Each element is served as a 2025-03-26
// request, in order, on this request's goroutine; the answer is one array
// without entries for notifications and responses, or 202 when nothing
// wants an answer. The array follows the batch rule of batch.go, bounded
// by MaxBatchAnswerBytes. The elements are read in place, never copied.
//
// The array's memory comes from the server's answer memory
// (ReserveAnswer) in a way that cannot leave concurrent batches each
// holding part of what they need and none finishing: before any request
// runs, the batch reserves what its array needs if every request got its
// short error entry (exact, from a first pass over the elements); past
// that, the batch is answered 503 having run nothing. A result larger
// than its entry reserves the difference as it comes; when that fails the
// request gets busyEntry instead and so does every later one, which the
// first reservation covers, so a batch that started always finishes.
func (h *httpHandler) batch(w http.ResponseWriter, r *http.Request, body []byte, hv string) {
	if hv != "" && hv != version20250326 {
		writeJSONError(w, http.StatusBadRequest, codeInvalidRequest,
			fmt.Sprintf("Invalid Request: batches are accepted only at protocol version %s (header %s is %q); send one message per request", version20250326, headerProtocolVersion, hv))
		return
	}
	if !jsoncheck.Valid(body) {
		writeLine(w, http.StatusBadRequest, parseErrorLine(body))
		return
	}
	a := &httpBatch{h: h, w: w, r: r, tl: tooLargeEntry(h.o.MaxBatchAnswerBytes), bound: newBatchBound(h.o.MaxBatchAnswerBytes)}
	n := 0
	eachElement(body, func(start, end int) {
		n++
		a.rest += a.planned(end - start)
	})
	if n == 0 {
		writeJSONError(w, http.StatusBadRequest, codeInvalidRequest, "Invalid Request: empty batch")
		return
	}
	if !a.reserve(a.rest + 2) {
		return // answered 503
	}
	a.out = make([]byte, 0, a.rest+2)
	eachElement(body, func(start, end int) {
		if !a.gone {
			a.serve(body[start:end])
		}
	})
	switch {
	case a.gone:
	case len(a.out) == 0: // notifications and responses only
		w.WriteHeader(http.StatusAccepted)
	default:
		writeLine(w, http.StatusOK, append(a.out, ']'))
	}
}

// plannedEntryMax bounds the part of an entry answered without running
// anything (a short error, a refusal, a malformed element's error) other
// than the id it echoes (TestPlannedEntryMax holds every such message to
// it).
const plannedEntryMax = 256

// busyEntry is the entry of a request a batch could not run because the
// server's answer memory was in use.
var busyEntry = newBatchEntry(codeInternalError,
	"Service unavailable: the server's memory for answers being sent is in use (agent3md serve --max-answer-memory); send this request again shortly")

// httpBatch is one batch's answer being built.
type httpBatch struct {
	h     *httpHandler
	w     http.ResponseWriter
	r     *http.Request
	tl    batchEntry
	bound batchBound
	out   []byte // '[' and the entries so far; cap(out) is reserved
	// rest is the bytes (with a comma each) the elements not yet served
	// are planned to take: their entry, or a request's short error.
	rest int
	busy bool // a result could not be reserved: no more requests run
	gone bool // the client went away
}

// planned bounds the bytes an element of n bytes takes in the array, with
// its comma, unless it is a request whose result is admitted: every other
// entry is a message of at most plannedEntryMax bytes around an id taken
// from the element. Planning from sizes alone keeps the first pass free
// of decoding, so a batch refused 503 costs next to nothing.
func (a *httpBatch) planned(n int) int { return plannedEntryMax + n + 1 }

// fixedLine is the entry of an element answered without running anything:
// a nested array, a malformed message, a request that may not be batched.
func (a *httpBatch) fixedLine(elem []byte, pk *peeked, ok bool) []byte {
	switch {
	case elem[0] == '[':
		return errorLine(nil, codeInvalidRequest, "Invalid Request: a batch element must be a JSON-RPC message, not an array", nil)
	case !ok:
		return pk.errLine // nil for a response
	case pk.request:
		return batchRefusal(pk.msg.rawID, pk.method, pk.modern)
	}
	return nil
}

// serve answers one element and appends its entry, if it has one.
func (a *httpBatch) serve(elem []byte) {
	pk, ok := peek(elem)
	if a.h.o.OnMethod != nil && pk.method != "" {
		a.h.o.OnMethod(a.r, pk.method)
	}
	a.rest -= a.planned(len(elem))
	if line := a.fixedLine(elem, &pk, ok); line != nil {
		a.add(line)
		return
	}
	x := &Exchange{Body: elem, ProtocolVersion: version20250326}
	if !ok || !pk.request {
		a.h.S.exchange(a.r.Context(), x, &pk) // a notification: no answer
		return
	}
	id := pk.msg.rawID
	switch {
	case a.busy:
		a.add(busyEntry.appendEntry(nil, id))
	case a.bound.full:
		a.add(a.tl.appendEntry(nil, id))
	default:
		line := a.h.S.exchange(a.r.Context(), x, &pk).Line
		switch {
		case a.r.Context().Err() != nil:
			a.gone = true
		case !a.bound.admit(len(line)):
			a.add(a.tl.appendEntry(nil, id))
		case !a.room(len(line)):
			a.busy = true
			a.add(busyEntry.appendEntry(nil, id))
		default:
			a.add(line)
		}
	}
}

// room makes sure the buffer can take an entry of n bytes and still every
// planned one, reserving more answer memory if it must (false: not
// available).
func (a *httpBatch) room(n int) bool {
	need := len(a.out) + n + 1 + a.rest + 1
	if need <= cap(a.out) {
		return true
	}
	grown := max(need, cap(a.out)+cap(a.out)/4)
	if !a.reserveQuiet(grown - cap(a.out)) {
		grown = need
		if !a.reserveQuiet(grown - cap(a.out)) {
			return false
		}
	}
	buf := make([]byte, len(a.out), grown)
	copy(buf, a.out)
	a.out = buf
	return true
}

// add appends an entry the buffer has room for.
func (a *httpBatch) add(line []byte) {
	a.bound.add(len(line))
	if len(a.out) == 0 {
		a.out = append(a.out, '[')
	} else {
		a.out = append(a.out, ',')
	}
	a.out = append(a.out, line...)
}

// reserve takes n bytes of the server's answer memory, or answers 503.
func (a *httpBatch) reserve(n int) bool {
	return a.h.o.ReserveAnswer == nil || a.h.o.ReserveAnswer(a.w, a.r, int64(n))
}

// reserveQuiet takes n bytes of the server's answer memory, reporting
// false rather than answering.
func (a *httpBatch) reserveQuiet(n int) bool {
	return a.h.o.ReserveAnswer == nil || a.h.o.ReserveAnswer(nil, a.r, int64(n))
}
