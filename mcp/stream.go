package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
)

// DefaultMaxLineBytes bounds one incoming stdio line (terminator excluded)
// when Options.MaxLineBytes is zero.
const DefaultMaxLineBytes = 4 << 20

// DefaultMaxInFlight is how many requests one connection may have in
// progress before the server stops reading until one is answered.
const DefaultMaxInFlight = 64

// errLineTooLong is what readLine reports for a line over the bound; the
// rest of that line has already been discarded.
var errLineTooLong = errors.New("line too long")

// lineStream is the connection's jsonrpc2.ObjectStream: newline-delimited
// JSON over a bufio.Reader (PROTOCOL §2). It answers malformed lines,
// invalid requests and batches itself, so jsonrpc2 only ever sees well-formed
// single messages; it rewrites request ids to private unsigned integers
// (jsonrpc2 cannot carry negative ids) and restores the client's id, byte
// for byte, on the way out.
//
// ReadObject is called by one goroutine (jsonrpc2's read loop); WriteObject
// is safe for concurrent use: every line goes out under one mutex.
type lineStream struct {
	r       *bufio.Reader
	maxLine int
	// maxInFlight bounds live requests: ReadObject waits for room before
	// reading another line.
	maxInFlight int
	buf         []byte   // the line being assembled, at most maxLine+1 bytes
	queue       []queued // rewritten messages not yet handed to jsonrpc2
	eof         bool     // the reader has reached end of input
	sess        *session
	tr          *tracker
	log         *slog.Logger

	wmu    sync.Mutex
	w      io.Writer
	errMu  sync.Mutex
	ioErr  error // first read or write failure (not EOF)
	closed chan struct{}
	once   sync.Once
}

func newLineStream(in io.Reader, out io.Writer, maxLine int, sess *session, log *slog.Logger) *lineStream {
	if maxLine <= 0 {
		maxLine = DefaultMaxLineBytes
	}
	return &lineStream{
		r:       bufio.NewReaderSize(in, 64<<10),
		maxLine: maxLine,
		sess:    sess,
		tr:      newTracker(),
		log:     log,
		w:       out,
		closed:  make(chan struct{}),
	}
}

// ReadObject hands jsonrpc2 the next well-formed message. Bad lines are
// answered here and skipped. On end of input it waits until every request
// already handed out has been answered (or cancelled), then returns io.EOF.
func (s *lineStream) ReadObject(v any) error {
	for {
		if len(s.queue) > 0 {
			q := s.queue[0]
			s.queue[0] = queued{}
			s.queue = s.queue[1:]
			if err := json.Unmarshal(q.msg, v); err != nil {
				// Our own rewrite failed to decode: a bug, not the client's,
				// but the request still gets its one response.
				s.log.Error("rewritten message did not decode", "err", err)
				if q.init {
					s.sess.initServed()
				}
				if q.id != 0 {
					s.writeResponse(q.id, func(rawID json.RawMessage) []byte {
						return errorLine(rawID, codeInternalError, "Internal error: the request could not be dispatched", nil)
					})
				}
				continue
			}
			return nil
		}
		if s.eof {
			s.tr.waitIdle(s.closed)
			return io.EOF
		}
		if !s.tr.waitRoom(s.maxInFlight, s.closed) {
			return io.EOF // the stream was closed while waiting
		}
		line, err := s.readLine()
		switch {
		case errors.Is(err, errLineTooLong):
			s.writeLine(tooLongLine(s.maxLine))
			continue
		case errors.Is(err, io.EOF):
			s.eof = true
		case err != nil:
			err = fmt.Errorf("reading stdin: %w", err)
			s.setErr(err)
			return err
		}
		s.accept(line)
	}
}

// tooLongLine is the -32700 answer to an oversized line.
func tooLongLine(max int) []byte {
	return errorLine(nil, codeParseError, fmt.Sprintf(
		"Parse error: line longer than %d bytes was discarded (raise the limit with --max-line-bytes)", max), nil)
}

// readLine returns the next line without its "\n" or "\r\n". A line over
// maxLine bytes is consumed to its end without being kept and reported as
// errLineTooLong. At end of input it returns the unterminated tail (if any)
// with io.EOF.
func (s *lineStream) readLine() ([]byte, error) {
	s.buf = s.buf[:0]
	tooLong := false
	for {
		chunk, err := s.r.ReadSlice('\n')
		if !tooLong {
			if len(s.buf)+len(chunk) > s.maxLine+2 {
				tooLong = true
				s.buf = s.buf[:0]
			} else {
				s.buf = append(s.buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		var line []byte
		if !tooLong {
			line = bytes.TrimSuffix(s.buf, []byte("\n"))
			line = bytes.TrimSuffix(line, []byte("\r"))
			tooLong = len(line) > s.maxLine
		}
		if !tooLong {
			return line, err
		}
		if err == nil {
			return nil, errLineTooLong
		}
		// An oversized unterminated tail still gets its -32700 before EOF.
		s.writeLine(tooLongLine(s.maxLine))
		return nil, err
	}
}

// accept classifies one line: blank (ignored), not JSON (-32700), a batch,
// or a single message.
func (s *lineStream) accept(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if !json.Valid(line) {
		s.writeLine(errorLine(nil, codeParseError, "Parse error: invalid JSON", nil))
		return
	}
	if line[0] == '[' {
		s.acceptBatch(line)
		return
	}
	if out := s.acceptOne(line, nil, 0); out != nil {
		s.writeLine(out)
	}
}

// acceptBatch handles a JSON array: only connections negotiated to
// 2025-03-26 may batch (PROTOCOL §2).
func (s *lineStream) acceptBatch(line []byte) {
	if !s.sess.batchesAllowed() {
		s.writeLine(errorLine(nil, codeInvalidRequest,
			"Invalid Request: batches are accepted only on connections initialized with protocol version 2025-03-26", nil))
		return
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(line, &elems); err != nil || len(elems) == 0 {
		s.writeLine(errorLine(nil, codeInvalidRequest, "Invalid Request: empty batch", nil))
		return
	}
	b := newBatch(s, len(elems))
	for i, e := range elems {
		if out := s.acceptOne(e, b, i); out != nil {
			b.set(i, out)
		}
	}
	b.seal()
}

// queued is a rewritten message waiting for jsonrpc2; id is its private
// request id (0 for a notification).
type queued struct {
	msg  []byte
	id   uint64
	init bool // an initialize request, counted by session.initQueued
}

// rpcIn is the shape every incoming message is checked against.
type rpcIn struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// rpcOut is a request rewritten for jsonrpc2.
type rpcOut struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      *uint64         `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// acceptOne validates one message. A valid request or notification is queued
// for jsonrpc2 (a request registered with the tracker, inside batch b when
// b is not nil, at slot); anything else returns the error line to send, or
// nil.
func (s *lineStream) acceptOne(raw []byte, b *batch, slot int) []byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return errorLine(nil, codeInvalidRequest, "Invalid Request: a message must be a JSON object", nil)
	}
	var m rpcIn
	if err := json.Unmarshal(raw, &m); err != nil {
		return errorLine(nil, codeInvalidRequest, "Invalid Request: "+err.Error(), nil)
	}
	if string(m.JSONRPC) != `"2.0"` {
		return errorLine(nil, codeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`, nil)
	}
	if m.Method == nil {
		if m.Result != nil || m.Error != nil {
			// A response: this server sends no requests, so none is awaited.
			s.log.Debug("ignoring a response from the client", "id", string(m.ID))
			return nil
		}
		return errorLine(nil, codeInvalidRequest, `Invalid Request: "method" is missing`, nil)
	}
	var method string
	if err := json.Unmarshal(m.Method, &method); err != nil {
		return errorLine(nil, codeInvalidRequest, `Invalid Request: "method" must be a string`, nil)
	}
	if m.ID == nil && method == methodCancelled {
		s.cancelled(m.Params)
		return nil
	}
	out := rpcOut{JSONRPC: "2.0", Method: method, Params: m.Params}
	if m.ID != nil {
		key, err := idKey(m.ID)
		if err != nil {
			return errorLine(nil, codeInvalidRequest, "Invalid Request: "+err.Error(), nil)
		}
		if b != nil && method == methodInitialize {
			return errorLine(m.ID, codeInvalidRequest, "Invalid Request: initialize must not be part of a batch", nil)
		}
		if method == methodInitialize {
			s.sess.initQueued()
		}
		id := s.tr.add(m.ID, key, b, slot)
		out.ID = &id
	}
	enc, err := json.Marshal(out)
	if err != nil {
		s.log.Error("re-encoding a request", "err", err)
		if out.ID != nil { // undo the registration: the error line is its answer
			s.tr.finish(*out.ID)
			s.tr.release(*out.ID)
			if b != nil {
				b.drop()
			}
			if method == methodInitialize {
				s.sess.initServed()
			}
		}
		return errorLine(m.ID, codeInternalError, "Internal error: could not re-encode the request", nil)
	}
	q := queued{msg: enc, init: out.ID != nil && method == methodInitialize}
	if out.ID != nil {
		q.id = *out.ID
	}
	s.queue = append(s.queue, q)
	return nil
}

// cancelled honours notifications/cancelled as the line is read, not in a
// handler goroutine: handlers run concurrently, so a dispatched cancellation
// could lose the race against a later request that completes the one it
// cancels. Applied here, it takes effect before the next line is looked at.
// Malformed or unknown cancellations are ignored (PROTOCOL §2).
func (s *lineStream) cancelled(params json.RawMessage) {
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
	if s.tr.cancel(key) {
		s.log.Debug("request cancelled", "id", string(p.RequestID))
	}
}

// idKey validates a request id (a string or an integer, PROTOCOL §2) and
// returns the key cancellation looks it up by.
func idKey(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", errors.New(`"id" must be a string or an integer`)
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf(`"id" is not a valid string: %w`, err)
		}
		return "s:" + s, nil
	case c == '-' || (c >= '0' && c <= '9'):
		if bytes.ContainsAny(raw, ".eE") {
			return "", errors.New(`"id" must be an integer written without a fraction or exponent`)
		}
		return "n:" + string(raw), nil
	case c == 'n':
		return "", errors.New(`"id" must be a string or an integer, not null`)
	default:
		return "", errors.New(`"id" must be a string or an integer`)
	}
}

// rpcReply is what WriteObject reads back from jsonrpc2's encoding.
type rpcReply struct {
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// WriteObject writes one message from jsonrpc2. A response gets the
// client's original id back; a response for a cancelled or unknown request
// is dropped (PROTOCOL §2: nothing more for a cancelled id).
func (s *lineStream) WriteObject(obj any) error {
	var enc []byte
	var err error
	if m, ok := obj.(json.Marshaler); ok {
		// jsonrpc2's messages encode themselves compactly already; calling
		// MarshalJSON directly saves json.Marshal's re-compaction pass.
		enc, err = m.MarshalJSON()
	} else {
		enc, err = json.Marshal(obj)
	}
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	if id, body, ok := splitResponse(enc); ok {
		return s.writeResponse(id, func(rawID json.RawMessage) []byte {
			return responseBody(rawID, unescapeHTML(body))
		})
	}
	var m rpcReply
	if err := json.Unmarshal(enc, &m); err != nil {
		return fmt.Errorf("reading back an encoded message: %w", err)
	}
	if m.Method != nil {
		return s.writeLine(enc)
	}
	id, err := strconv.ParseUint(string(m.ID), 10, 64)
	if err != nil {
		return fmt.Errorf("response id %s was not issued by this stream", m.ID)
	}
	return s.writeResponse(id, func(rawID json.RawMessage) []byte {
		return responseLine(rawID, unescapeHTML(m.Result), m.Error)
	})
}

// writeResponse sends the response for private id, built by encode with
// the client's id, into its batch or as its own line; nothing is sent for a
// cancelled request.
func (s *lineStream) writeResponse(id uint64, encode func(rawID json.RawMessage) []byte) error {
	entry := s.tr.finish(id)
	if entry == nil {
		return nil
	}
	defer s.tr.release(id)
	line := encode(entry.rawID)
	if entry.batch != nil {
		entry.batch.fill(entry.slot, line)
		return nil
	}
	return s.writeLine(line)
}

// splitResponse reads jsonrpc2's encoding of a response,
// {"id":N,"result"|"error":…,"jsonrpc":"2.0"}, without decoding it: the
// private id and the "result":… or "error":… member. ok is false for any
// other shape, which then takes the decoding path.
func splitResponse(enc []byte) (id uint64, body []byte, ok bool) {
	const pre, post = `{"id":`, `,"jsonrpc":"2.0"}`
	if !bytes.HasPrefix(enc, []byte(pre)) || !bytes.HasSuffix(enc, []byte(post)) {
		return 0, nil, false
	}
	rest := enc[len(pre) : len(enc)-len(post)]
	comma := bytes.IndexByte(rest, ',')
	if comma <= 0 {
		return 0, nil, false
	}
	id, err := strconv.ParseUint(string(rest[:comma]), 10, 64)
	if err != nil {
		return 0, nil, false
	}
	body = rest[comma+1:]
	if !bytes.HasPrefix(body, []byte(`"result":`)) && !bytes.HasPrefix(body, []byte(`"error":`)) {
		return 0, nil, false
	}
	return id, body, true
}

// responseBody encodes a response from its "result":… or "error":… member.
func responseBody(rawID json.RawMessage, body []byte) []byte {
	b := make([]byte, 0, len(body)+len(rawID)+32)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, rawID...)
	b = append(b, ',')
	b = append(b, body...)
	return append(b, '}')
}

// writeLine writes one message and its newline in one Write, serialized
// with every other write.
func (s *lineStream) writeLine(msg []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	buf := make([]byte, 0, len(msg)+1)
	buf = append(append(buf, msg...), '\n')
	if _, err := s.w.Write(buf); err != nil {
		err = fmt.Errorf("writing stdout: %w", err)
		s.setErr(err)
		return err
	}
	return nil
}

func (s *lineStream) setErr(err error) {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	if s.ioErr == nil {
		s.ioErr = err
	}
}

// err returns the first I/O failure, nil after a clean EOF.
func (s *lineStream) err() error {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	return s.ioErr
}

// Close stops waiting for in-flight requests. It is idempotent and does not
// close stdin or stdout: Serve does not own them.
func (s *lineStream) Close() error {
	s.once.Do(func() { close(s.closed) })
	s.tr.wake()
	return nil
}

// responseLine encodes a response with the client's id as sent.
func responseLine(rawID, result, rpcErr json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	if rawID == nil {
		b.WriteString("null")
	} else {
		b.Write(rawID)
	}
	if rpcErr != nil && string(rpcErr) != "null" {
		b.WriteString(`,"error":`)
		b.Write(rpcErr)
	} else {
		b.WriteString(`,"result":`)
		if result == nil {
			result = json.RawMessage("{}")
		}
		b.Write(result)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// errorLine encodes an error response; a nil id is written as null.
func errorLine(rawID json.RawMessage, code int64, msg string, data any) []byte {
	e, err := json.Marshal(wireError{Code: code, Message: msg, Data: data})
	if err != nil {
		e = []byte(`{"code":-32603,"message":"Internal error"}`)
	}
	return responseLine(rawID, nil, e)
}

// batch collects the responses of one 2025-03-26 batch and writes them as
// one array, in the order of the batch's elements, once every request in it
// is answered or cancelled. A batch of notifications only writes nothing.
type batch struct {
	s       *lineStream
	mu      sync.Mutex
	slots   [][]byte // one per element; nil for notifications and cancelled requests
	waiting int      // requests not yet answered
	sealed  bool
	written bool
}

func newBatch(s *lineStream, n int) *batch { return &batch{s: s, slots: make([][]byte, n)} }

// expect counts one more request awaiting its response.
func (b *batch) expect() {
	b.mu.Lock()
	b.waiting++
	b.mu.Unlock()
}

// set records an element's immediate error entry.
func (b *batch) set(slot int, line []byte) {
	b.mu.Lock()
	b.slots[slot] = line
	b.mu.Unlock()
}

// fill records the response of an expected request.
func (b *batch) fill(slot int, line []byte) {
	b.mu.Lock()
	b.slots[slot] = line
	b.waiting--
	b.flushLocked()
	b.mu.Unlock()
}

// drop forgets an expected request that was cancelled.
func (b *batch) drop() {
	b.mu.Lock()
	b.waiting--
	b.flushLocked()
	b.mu.Unlock()
}

// seal marks the end of the batch's elements.
func (b *batch) seal() {
	b.mu.Lock()
	b.sealed = true
	b.flushLocked()
	b.mu.Unlock()
}

func (b *batch) flushLocked() {
	if !b.sealed || b.written || b.waiting > 0 {
		return
	}
	b.written = true
	var entries [][]byte
	for _, e := range b.slots {
		if e != nil {
			entries = append(entries, e)
		}
	}
	if len(entries) == 0 {
		return
	}
	out := append([]byte{'['}, bytes.Join(entries, []byte{','})...)
	out = append(out, ']')
	b.s.writeLine(out)
}

// unescapeHTML undoes encoding/json's HTML escaping (\u003c, \u003e,
// \u0026) in encoded JSON, so skill text reads as written. Escapes are
// walked left to right, so an escaped backslash followed by "u003c" (the
// text \u003c) is left alone.
func unescapeHTML(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u00`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' || i+1 >= len(b) {
			out = append(out, c)
			continue
		}
		if b[i+1] == 'u' && i+5 < len(b) {
			switch string(b[i+2 : i+6]) {
			case "003c":
				out = append(out, '<')
				i += 5
				continue
			case "003e":
				out = append(out, '>')
				i += 5
				continue
			case "0026":
				out = append(out, '&')
				i += 5
				continue
			}
		}
		out = append(out, c, b[i+1])
		i++
	}
	return out
}
