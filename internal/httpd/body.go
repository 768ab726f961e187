package httpd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

// readBody reads the whole request body, at most MaxBodyBytes, within
// ReadTimeout, and puts it back as r.Body, so the endpoint gets a body
// that is complete and bounded. An MCP request is one JSON message that
// must be read whole anyway. It answers 413 past the limit, 408 when the
// client is too slow, 400 when the read fails, 503 when the server's body
// memory is spent, and reports whether the request may go on.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) bool {
	max := s.opts.MaxBodyBytes
	if r.ContentLength > max {
		s.tooLarge(w, r)
		return false
	}
	if r.ContentLength == 0 {
		return true
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(s.opts.ReadTimeout))
	data, err := readAll(r, max, &infoFrom(r.Context()).bodies)
	if err != nil || int64(len(data)) > max {
		// The body is not read to its end: the connection can't carry
		// another request. The read deadline stays, so net/http's attempt
		// to drain the rest after the answer can't hang.
		w.Header().Set("Connection", "close")
	}
	switch {
	case errors.Is(err, errBodyMemory):
		Reject(r.Context(), RejectBodyMemory)
		s.unavailable(w, fmt.Sprintf("Service unavailable: request bodies already hold the server's %d bytes of body memory (--max-body-memory); retry shortly", s.opts.MaxBodyMemory))
		return false
	case errors.Is(err, os.ErrDeadlineExceeded):
		Reject(r.Context(), RejectBodyTimeout)
		writeError(w, http.StatusRequestTimeout, codeInvalidRequest,
			fmt.Sprintf("Request timeout: body not received within %s", s.opts.ReadTimeout), nil)
		return false
	case err != nil:
		writeError(w, http.StatusBadRequest, codeInvalidRequest, "Bad request: reading the body failed", nil)
		return false
	case int64(len(data)) > max:
		s.tooLarge(w, r)
		return false
	}
	// Lift the deadline: net/http keeps reading in the background to notice
	// a client that goes away, and a deadline there would cancel the
	// request's context mid-answer.
	_ = rc.SetReadDeadline(time.Time{})
	r.Body = &heldBody{Reader: bytes.NewReader(data), data: data}
	r.ContentLength = int64(len(data))
	return true
}

// Body memory (docs/http.md §1). A body is held from its first byte read
// until its request ends, and bodies being read have a bound of their own
// (4 per --max-concurrent slot) only so that clients that trickle cannot
// take every slot: 1,024 such bodies of 4 MiB would be 4 GiB. So every
// body's buffer is reserved from one budget shared by all requests,
// Options.MaxBodyMemory, as it grows with what has arrived (not with what
// the client declares: a client that declares 4 MiB and sends a byte a
// second holds a few KiB of it), and given back when its request ends.
// A body that cannot grow within the budget is answered 503 with
// Retry-After, and the connection closed.

// errBodyMemory is readAll's error when the body memory is spent.
var errBodyMemory = errors.New("the server's body memory is spent")

// Growth of a body's buffer: a declared length up to bodyWhole is taken
// at once (most bodies: one allocation of the right size); a longer one
// starts at bodyWhole, one of unknown length at bodyFirst, and each
// doubles (up to the declared length, or max+1) as the bytes arrive.
const (
	bodyWhole = 64 << 10
	bodyFirst = 4 << 10
)

// readAll reads a body of at most limit bytes (limit+1 when longer, so the
// caller sees it), reserving its buffer from hold's budget as it grows;
// errBodyMemory when the budget has no room for the next step.
func readAll(r *http.Request, limit int64, hold *answerHold) ([]byte, error) {
	want := limit + 1
	if n := r.ContentLength; n > 0 && n <= limit {
		want = n
	}
	first := int64(bodyFirst)
	if r.ContentLength > 0 {
		first = bodyWhole
	}
	var buf []byte
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) >= want {
				return buf, nil
			}
			next := min(want, max(first, 2*int64(cap(buf))))
			if !hold.take(next - int64(cap(buf))) {
				return nil, errBodyMemory
			}
			grown := make([]byte, len(buf), next)
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			if r.ContentLength > 0 && int64(len(buf)) < want {
				return nil, io.ErrUnexpectedEOF
			}
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// heldBody is a body read whole. TakeBytes hands the endpoint the bytes
// themselves, so it need not copy them to have them in one piece, and
// lets go of them: once the endpoint drops them too they can be
// collected while the answer is still being written.
type heldBody struct {
	*bytes.Reader
	data []byte
}

func (b *heldBody) Close() error { return nil }

// TakeBytes returns the whole body, whatever has been read of it, and
// leaves the body empty.
func (b *heldBody) TakeBytes() []byte {
	data := b.data
	b.data = nil
	b.Reader.Reset(nil)
	return data
}

func (s *Server) tooLarge(w http.ResponseWriter, r *http.Request) {
	Reject(r.Context(), RejectBodyTooLarge)
	// The rest of the body is never read: close the connection rather than
	// drain it. The message names serve's flag (as BindError does): the
	// client shows it to a user, who needs to know what to ask for.
	w.Header().Set("Connection", "close")
	writeError(w, http.StatusRequestEntityTooLarge, codeInvalidRequest,
		fmt.Sprintf("Request body too large: the limit is %d bytes (the server's --max-body-bytes)", s.opts.MaxBodyBytes), nil)
}
