package selftest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"
)

// message is one JSON-RPC message read from the server.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`

	// bad says why the line is not a usable message ("" when it is).
	bad string
}

// isResponse reports whether m answers a request (it has no method).
func (m *message) isResponse() bool { return m.Method == "" }

// idIsNull reports whether m's id is null or absent, as JSON-RPC requires
// for errors about a request whose id could not be read.
func (m *message) idIsNull() bool {
	return len(m.ID) == 0 || string(bytes.TrimSpace(m.ID)) == "null"
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rpcError) String() string { return fmt.Sprintf("error %d %q", e.Code, e.Message) }

// conn is the JSON-RPC client side of one server session. Its transport
// (stdio or HTTP) delivers what it writes and feeds what the server says
// to lines; conn only matches answers to requests. It is used by one
// goroutine at a time.
type conn struct {
	t       transport
	timeout time.Duration

	lines  chan rawLine // server messages, decoded by the reader of the conn
	maxLen int          // MaxResponseBytes
	quit   chan struct{}

	nextID   int
	broken   error  // set once the conn is unusable (timeout, write error)
	timedOut bool   // the server failed to answer within the timeout
	progress string // progressToken of the request in flight, "" when none
	// awaited is the request in flight, for telling an echo of it from a
	// request of the server's own.
	awaited struct {
		method string
		id     []byte
	}
	strays    []*message // responses nobody asked for, capped
	asked     []string   // methods of requests the server sent, capped
	closeOnce sync.Once
}

// transport carries one session's messages: framing and delivery live
// here, request matching in conn (docs/selftest.md §7).
type transport interface {
	// send delivers one message. What the server says in return arrives
	// on the conn's lines; an error wrapping errNoAnswer means the server
	// did not answer in time.
	send(b []byte) error
	// stop ends the server side: kills the process, cancels open
	// requests. It is idempotent.
	stop()
	// done is closed once the server side has ended by itself; nil when
	// it never does (HTTP).
	done() <-chan struct{}
	// endNote describes how the server ended, if it did, for a failure
	// detail ("" or " (…)").
	endNote() string
	// stderrNote is the tail of the server's stderr ("" or "; stderr: …").
	stderrNote() string
	// release frees what the transport holds, once stop has been called
	// and the conn's quit channel is closed.
	release()
}

// errNoAnswer marks a transport error that is a timeout.
var errNoAnswer = errors.New("no answer")

// maxStrays caps how many unexpected messages a conn remembers.
const maxStrays = 16

// rawLine is one message's bytes as the transport received them.
type rawLine struct {
	b       []byte
	tooLong bool
	// bad, when set, says why the transport could not get a message
	// (an HTTP answer that is no JSON-RPC message, say).
	bad string
}

// readLine reads one '\n'-terminated line of at most max bytes; the rest of
// a longer line is discarded without buffering it, and tooLong is set.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+1 { // +1: the '\n' itself
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		return line, tooLong, err
	}
}

// decode parses what the transport received.
func (l rawLine) decode(max int) *message {
	if l.bad != "" {
		return &message{bad: l.bad}
	}
	return decodeMessage(l.b, l.tooLong, max)
}

// decodeMessage parses one line; a line that is not a JSON-RPC object
// becomes a message whose bad field says so.
func decodeMessage(line []byte, tooLong bool, max int) *message {
	if tooLong {
		return &message{bad: fmt.Sprintf("server wrote a line over %d bytes to stdout", max)}
	}
	m := &message{}
	if err := json.Unmarshal(line, m); err != nil {
		return &message{bad: fmt.Sprintf("server wrote something that is not a JSON-RPC object to stdout (%v): %s", err, snippet(string(line), 120))}
	}
	if m.JSONRPC != "2.0" {
		m.bad = fmt.Sprintf("server message lacks \"jsonrpc\":\"2.0\": %s", snippet(string(line), 120))
	} else if m.isResponse() && m.Result == nil && m.Error == nil {
		m.bad = fmt.Sprintf("server response has neither result nor error: %s", snippet(string(line), 120))
	}
	return m
}

// call sends a request with a fresh integer id and waits for its response.
func (c *conn) call(ctx context.Context, method string, params any) (*message, error) {
	c.nextID++
	return c.callID(ctx, c.nextID, method, params)
}

// callID sends a request with the given id and waits for its response.
func (c *conn) callID(ctx context.Context, id any, method string, params any) (*message, error) {
	b, err := encodeMessage(id, method, params)
	if err != nil {
		return nil, err
	}
	want, _ := json.Marshal(id)
	if err := c.writeLine(b); err != nil {
		return nil, err
	}
	c.awaited.method, c.awaited.id = method, want
	defer func() { c.awaited.method, c.awaited.id = "", nil }()
	return c.await(ctx, "the "+method+" request", func(m *message) bool {
		return m.isResponse() && sameID(m.ID, want)
	})
}

// notify sends a notification (no id).
func (c *conn) notify(method string, params any) error {
	b, err := encodeMessage(nil, method, params)
	if err != nil {
		return err
	}
	return c.writeLine(b)
}

// encodeMessage renders a request (id non-nil) or a notification. Params
// that encode as JSON null — a nil interface, or a nil map or slice inside
// one — are left out: JSON-RPC allows params to be omitted or structured,
// never null, and servers built on the official TypeScript SDK drop such a
// message without answering.
func encodeMessage(id any, method string, params any) ([]byte, error) {
	req := map[string]any{"jsonrpc": "2.0", "method": method}
	if id != nil {
		req["id"] = id
	}
	if params != nil {
		p, err := json.Marshal(params)
		if err != nil {
			return nil, fmt.Errorf("encode %s params: %w", method, err)
		}
		if string(p) != "null" {
			req["params"] = json.RawMessage(p)
		}
	}
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", method, err)
	}
	return b, nil
}

// sameID reports whether a received id is the JSON value want.
func sameID(got json.RawMessage, want []byte) bool {
	var buf bytes.Buffer
	if err := json.Compact(&buf, got); err != nil {
		return false
	}
	return bytes.Equal(buf.Bytes(), want)
}

// writeLine sends one message through the transport, bounded by the
// request timeout so a server that stops reading cannot stall the harness.
func (c *conn) writeLine(b []byte) error {
	if c.broken != nil {
		return c.broken
	}
	if err := c.t.send(b); err != nil {
		c.timedOut = errors.Is(err, errNoAnswer)
		c.fail(err)
		return c.broken
	}
	return nil
}

// await reads messages until one satisfies match, remembering the others
// as strays. Notifications from the server are skipped. A timeout or a
// closed stdout breaks the conn.
func (c *conn) await(ctx context.Context, what string, match func(*message) bool) (*message, error) {
	if c.broken != nil {
		return nil, c.broken
	}
	timer := time.NewTimer(c.timeout)
	defer timer.Stop()
	hardStop := time.Now().Add(maxProgressWaits * c.timeout)
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				c.fail(fmt.Errorf("server closed stdout before answering %s%s", what, c.t.endNote()))
				return nil, c.broken
			}
			m := l.decode(c.maxLen)
			if m.bad != "" {
				return nil, errors.New(m.bad)
			}
			if match(m) {
				return m, nil
			}
			if c.isOurProgress(m) && time.Now().Before(hardStop) {
				// The server says it is working on the request: a slow
				// answer (a huge agent's first route builds its index) is
				// not a hung server.
				timer.Reset(min(c.timeout, time.Until(hardStop)))
				continue
			}
			if err := c.noteMessage(m); err != nil {
				return nil, err
			}
		case <-timer.C:
			c.timedOut = true
			c.fail(fmt.Errorf("no answer to %s within %v%s", what, c.timeout, c.stderrNote()))
			return nil, c.broken
		case <-ctx.Done():
			c.fail(ctx.Err())
			return nil, c.broken
		}
	}
}

// maxProgressWaits bounds how far progress notifications can stretch one
// request's wait: to this many request timeouts in all.
const maxProgressWaits = 30

// isOurProgress reports whether m is a progress notification for the
// request in flight.
func (c *conn) isOurProgress(m *message) bool {
	if c.progress == "" || m.Method != "notifications/progress" {
		return false
	}
	var p struct {
		Token json.RawMessage `json:"progressToken"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return false
	}
	want, _ := json.Marshal(c.progress)
	return sameID(p.Token, want)
}

// drain collects every response arriving within d as strays.
func (c *conn) drain(d time.Duration) {
	if c.broken != nil {
		return
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				return
			}
			if m := l.decode(c.maxLen); m.bad == "" {
				if c.noteMessage(m) != nil {
					return
				}
			}
		case <-timer.C:
			return
		}
	}
}

// fail marks the conn unusable and stops the server.
func (c *conn) fail(err error) {
	if c.broken == nil {
		c.broken = err
	}
	c.t.stop()
}

// alive reports whether the conn can still carry requests.
func (c *conn) alive() bool {
	if c.broken != nil {
		return false
	}
	select {
	case <-c.t.done():
		return false
	default:
		return true
	}
}

// Close stops the server if needed and releases the transport. It is
// idempotent.
func (c *conn) Close() {
	c.closeOnce.Do(func() {
		c.t.stop()
		close(c.quit)
		c.t.release()
	})
}

// stderrNote is the last lines of the server's stderr, or "".
func (c *conn) stderrNote() string { return c.t.stderrNote() }

// snippet shortens s to at most n bytes for a failure detail.
// The cut never splits a UTF-8 sequence.
func snippet(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
