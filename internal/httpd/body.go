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
// client is too slow, 400 when the read fails, and reports whether the
// request may go on.
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
	data, err := readAll(r, max)
	if err != nil || int64(len(data)) > max {
		// The body is not read to its end: the connection can't carry
		// another request. The read deadline stays, so net/http's attempt
		// to drain the rest after the answer can't hang.
		w.Header().Set("Connection", "close")
	}
	switch {
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

// readAll reads a body of at most max bytes (max+1 when longer, so the
// caller sees it): into one buffer of the declared length when there is
// one, without the doublings (and their garbage) of a buffer that grows,
// which for a 4 MiB body cost as much again.
func readAll(r *http.Request, max int64) ([]byte, error) {
	if n := r.ContentLength; n > 0 && n <= max {
		data := make([]byte, n)
		if _, err := io.ReadFull(r.Body, data); err != nil {
			return nil, err
		}
		return data, nil
	}
	return io.ReadAll(io.LimitReader(r.Body, max+1))
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
