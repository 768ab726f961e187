package selftest

import (
	"bufio"
	"bytes"
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

// stdioTransport is a spawned server process: messages are lines on its
// stdin and stdout (docs/protocol.md §2).
type stdioTransport struct {
	cmd     *exec.Cmd
	stdin   *os.File
	stdout  *os.File
	stderr  *tailWriter
	timeout time.Duration
	exited  chan struct{}
}

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
	t := &stdioTransport{
		stdin:   inW,
		stdout:  outR,
		stderr:  &tailWriter{max: stderrTailBytes},
		timeout: o.Timeout,
		exited:  make(chan struct{}),
	}
	c := newConn(t, o)
	t.cmd = exec.Command(argv[0], argv[1:]...)
	t.cmd.Stdin = inR
	t.cmd.Stdout = outW
	t.cmd.Stderr = t.stderr
	t.cmd.WaitDelay = waitDelay
	err = t.cmd.Start()
	// The child holds its own copies of these ends now.
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("start server %q: %w", argv[0], err)
	}
	go t.readLoop(c.lines, c.quit, c.maxLen)
	go func() {
		t.cmd.Wait() // the exit status is read from ProcessState
		close(t.exited)
	}()
	return c, nil
}

// newConn is a conn over t with o's bounds.
func newConn(t transport, o *Options) *conn {
	return &conn{
		t:       t,
		timeout: o.Timeout,
		lines:   make(chan rawLine, 16),
		maxLen:  o.MaxResponseBytes,
		quit:    make(chan struct{}),
	}
}

// readLoop hands stdout lines to lines until stdout closes or quit is
// closed. Lines are decoded by the receiver, so a request's timeout
// measures the server, not the harness's JSON decoding of a large answer.
func (t *stdioTransport) readLoop(lines chan<- rawLine, quit <-chan struct{}, maxLen int) {
	defer close(lines)
	br := bufio.NewReaderSize(t.stdout, 64<<10)
	for {
		line, tooLong, err := readLine(br, maxLen)
		if tooLong || len(bytes.TrimSpace(line)) > 0 {
			select {
			case lines <- rawLine{b: line, tooLong: tooLong}:
			case <-quit:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// send writes b and a newline to the server's stdin within the timeout.
func (t *stdioTransport) send(b []byte) error {
	t.stdin.SetWriteDeadline(time.Now().Add(t.timeout))
	if _, err := t.stdin.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("could not write to the server's stdin: %w%s", err, t.endNote())
	}
	return nil
}

func (t *stdioTransport) done() <-chan struct{} { return t.exited }

// stop kills the process if it is still running.
func (t *stdioTransport) stop() {
	select {
	case <-t.exited:
	default:
		t.cmd.Process.Kill()
	}
}

// release closes the pipes and waits (boundedly) for the process.
func (t *stdioTransport) release() {
	t.stdin.Close()
	t.stdout.Close()
	select {
	case <-t.exited:
	case <-time.After(waitDelay + time.Second):
	}
}

// closeStdin signals EOF to the server and waits up to d for it to exit.
// It returns the exit code, or ok=false when the server is still running.
func (t *stdioTransport) closeStdin(d time.Duration) (code int, ok bool) {
	t.stdin.Close()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-t.exited:
		return t.cmd.ProcessState.ExitCode(), true
	case <-timer.C:
		return 0, false
	}
}

// endNote describes how the server ended, if it did, with its stderr tail.
func (t *stdioTransport) endNote() string {
	select {
	case <-t.exited:
	case <-time.After(time.Second):
		return t.stderrNote()
	}
	return fmt.Sprintf(" (server exited: %v)%s", t.cmd.ProcessState, t.stderrNote())
}

// stderrNote is the last lines of the server's stderr, or "".
func (t *stdioTransport) stderrNote() string {
	tail := t.stderr.tail()
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

var _ io.Writer = (*tailWriter)(nil)
