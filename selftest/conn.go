package selftest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// waitDelay bounds how long Wait keeps copying stderr after the server
// exits (a grandchild may hold the pipe open).
const waitDelay = 2 * time.Second

// stderrTailBytes is how much of the server's stderr a conn keeps for
// failure details.
const stderrTailBytes = 8 << 10

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

// conn is one spawned server and the JSON-RPC client talking to it over
// stdio. It is used by one goroutine at a time; its reader and waiter
// goroutines end when the process's stdout closes or Close is called.
type conn struct {
	cmd     *exec.Cmd
	stdin   *os.File
	stdout  *os.File
	stderr  *tailWriter
	timeout time.Duration

	lines  chan rawLine // stdout lines, decoded by the reader of the conn
	maxLen int          // MaxResponseBytes
	exited chan struct{}
	quit   chan struct{}

	nextID    int
	broken    error      // set once the conn is unusable (timeout, write error)
	timedOut  bool       // the server failed to answer within the timeout
	progress  string     // progressToken of the request in flight, "" when none
	strays    []*message // responses nobody asked for, capped
	asked     []string   // methods of requests the server sent, capped
	closeOnce sync.Once
}

// maxStrays caps how many unexpected messages a conn remembers.
const maxStrays = 16

// start spawns argv with its stdio connected to a new conn.
func start(argv []string, o *Options) (*conn, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("create stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("create stdout pipe: %w", err)
	}
	c := &conn{
		stdin:   inW,
		stdout:  outR,
		stderr:  &tailWriter{max: stderrTailBytes},
		timeout: o.Timeout,
		lines:   make(chan rawLine, 16),
		maxLen:  o.MaxResponseBytes,
		exited:  make(chan struct{}),
		quit:    make(chan struct{}),
	}
	c.cmd = exec.Command(argv[0], argv[1:]...)
	c.cmd.Stdin = inR
	c.cmd.Stdout = outW
	c.cmd.Stderr = c.stderr
	c.cmd.WaitDelay = waitDelay
	err = c.cmd.Start()
	// The child holds its own copies of these ends now.
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("start server %q: %w", argv[0], err)
	}
	go c.readLoop()
	go func() {
		c.cmd.Wait() // the exit status is read from ProcessState
		close(c.exited)
	}()
	return c, nil
}

// rawLine is one line of the server's stdout.
type rawLine struct {
	b       []byte
	tooLong bool
}

// readLoop hands stdout lines to the conn until stdout closes or the conn
// is closed. Lines are decoded by the receiver, so a request's timeout
// measures the server, not the harness's JSON decoding of a large answer.
func (c *conn) readLoop() {
	defer close(c.lines)
	br := bufio.NewReaderSize(c.stdout, 64<<10)
	for {
		line, tooLong, err := readLine(br, c.maxLen)
		if tooLong || len(bytes.TrimSpace(line)) > 0 {
			select {
			case c.lines <- rawLine{line, tooLong}:
			case <-c.quit:
				return
			}
		}
		if err != nil {
			return
		}
	}
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

// writeLine writes b and a newline to the server's stdin, bounded by the
// request timeout so a server that stops reading cannot stall the harness.
func (c *conn) writeLine(b []byte) error {
	if c.broken != nil {
		return c.broken
	}
	c.stdin.SetWriteDeadline(time.Now().Add(c.timeout))
	_, err := c.stdin.Write(append(b, '\n'))
	if err != nil {
		c.fail(fmt.Errorf("could not write to the server's stdin: %w%s", err, c.exitNote()))
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
				c.fail(fmt.Errorf("server closed stdout before answering %s%s", what, c.exitNote()))
				return nil, c.broken
			}
			m := decodeMessage(l.b, l.tooLong, c.maxLen)
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
			if m := decodeMessage(l.b, l.tooLong, c.maxLen); m.bad == "" {
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
	c.kill()
}

// alive reports whether the conn can still carry requests.
func (c *conn) alive() bool {
	if c.broken != nil {
		return false
	}
	select {
	case <-c.exited:
		return false
	default:
		return true
	}
}

// closeStdin signals EOF to the server and waits up to d for it to exit.
// It returns the exit code, or ok=false when the server is still running.
func (c *conn) closeStdin(d time.Duration) (code int, ok bool) {
	c.stdin.Close()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-c.exited:
		return c.cmd.ProcessState.ExitCode(), true
	case <-timer.C:
		return 0, false
	}
}

// kill stops the process if it is still running.
func (c *conn) kill() {
	select {
	case <-c.exited:
	default:
		c.cmd.Process.Kill()
	}
}

// Close kills the server if needed and releases the pipes. It is
// idempotent.
func (c *conn) Close() {
	c.closeOnce.Do(func() {
		c.kill()
		close(c.quit)
		c.stdin.Close()
		c.stdout.Close()
		select {
		case <-c.exited:
		case <-time.After(waitDelay + time.Second):
		}
	})
}

// exitNote describes how the server ended, if it did, with its stderr tail.
func (c *conn) exitNote() string {
	select {
	case <-c.exited:
	case <-time.After(time.Second):
		return c.stderrNote()
	}
	return fmt.Sprintf(" (server exited: %v)%s", c.cmd.ProcessState, c.stderrNote())
}

// stderrNote is the last lines of the server's stderr, or "".
func (c *conn) stderrNote() string {
	tail := c.stderr.tail()
	if tail == "" {
		return ""
	}
	return "; stderr: " + tail
}

// tailWriter keeps the last max bytes written to it. Safe for concurrent
// use.
type tailWriter struct {
	mu  sync.Mutex
	max int
	buf []byte
}

// Write implements io.Writer.
func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if over := len(w.buf) - w.max; over > 0 {
		w.buf = append(w.buf[:0], w.buf[over:]...)
	}
	return len(p), nil
}

// tail returns the last few non-empty lines, at most 400 bytes.
func (w *tailWriter) tail() string {
	w.mu.Lock()
	s := string(w.buf)
	w.mu.Unlock()
	lines := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	out := strings.Join(lines, " | ")
	if cut := len(out) - 400; cut > 0 {
		for cut < len(out) && !utf8.RuneStart(out[cut]) {
			cut++
		}
		out = "…" + out[cut:]
	}
	return out
}

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

var _ io.Writer = (*tailWriter)(nil)
