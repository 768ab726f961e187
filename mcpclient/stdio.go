package mcpclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// waitDelay bounds how long a spawned server's stderr is still copied
// after it exits (a grandchild may hold the pipe open).
const waitDelay = 2 * time.Second

// Process is a spawned server.
type Process struct {
	cmd     *exec.Cmd
	stdin   *os.File
	stderr  *tailBuffer
	started time.Time
	exited  chan struct{}
}

// Started is when the process was started (just before the exec).
func (p *Process) Started() time.Time { return p.started }

// Pid is the process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Exited is closed once the process has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// State is the exit state (with its resource usage), nil until Exited
// is closed.
func (p *Process) State() *os.ProcessState {
	select {
	case <-p.exited:
		return p.cmd.ProcessState
	default:
		return nil
	}
}

// Stderr is the tail of what the server wrote to stderr (at most
// Options.StderrBytes).
func (p *Process) Stderr() string { return p.stderr.String() }

// CloseInput closes the server's stdin (EOF: a stdio server finishes its
// requests and exits) and waits up to wait for the exit. It returns the
// exit code, or exited=false when the server is still running.
func (p *Process) CloseInput(wait time.Duration) (code int, exited bool) {
	p.stdin.Close()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-p.exited:
		return p.cmd.ProcessState.ExitCode(), true
	case <-timer.C:
		return 0, false
	}
}

// Kill kills the server if it still runs.
func (p *Process) Kill() {
	select {
	case <-p.exited:
	default:
		p.cmd.Process.Kill()
	}
}

// Spawn starts argv as a stdio MCP server (docs/protocol.md §2: one
// message a line on its stdin and stdout) and returns a Conn to it.
// Nothing is sent until the first request.
func Spawn(argv []string, o *Options) (*Conn, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("no server command given: pass its argv, e.g. agent3md mcp agent.3md")
	}
	c := newConn(o)
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
	p := &Process{stdin: inW, stderr: &tailBuffer{max: c.o.StderrBytes}, exited: make(chan struct{})}
	p.cmd = exec.Command(argv[0], argv[1:]...)
	p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = inR, outW, p.stderr
	p.cmd.Dir = c.o.Dir
	if len(c.o.Env) > 0 {
		p.cmd.Env = append(os.Environ(), c.o.Env...)
	}
	p.cmd.WaitDelay = waitDelay
	p.started = time.Now()
	err = p.cmd.Start()
	// The child holds its own copies of these ends now.
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("start server %q: %w", argv[0], err)
	}
	t := &stdioTransport{c: c, proc: p, stdout: outR, read: make(chan struct{})}
	c.t, c.proc = t, p
	go t.readLoop()
	go func() {
		p.cmd.Wait() // the exit status is read from ProcessState
		close(p.exited)
	}()
	return c, nil
}

// stdioTransport is a spawned server's pipes.
type stdioTransport struct {
	c      *Conn
	proc   *Process
	stdout *os.File
	wmu    sync.Mutex    // one write at a time: lines never interleave
	read   chan struct{} // closed when readLoop returns
}

// readLoop dispatches stdout lines until stdout closes. Lines are dispatched,
// not decoded: a request's waiter decodes its own answer.
func (t *stdioTransport) readLoop() {
	defer close(t.read)
	max := t.c.o.MaxLineBytes
	lr := NewLineReader(t.stdout, max)
	for {
		line, tooLong, err := lr.Next()
		at := time.Now()
		switch {
		case tooLong:
			t.c.failWaiting(nil, nil, fmt.Errorf("server wrote a line over %d bytes to stdout", max))
		case len(bytes.TrimSpace(line)) > 0:
			t.c.receive(line, at, nil)
		}
		if err != nil {
			why := fmt.Errorf("%w: the server closed stdout", ErrClosed)
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
				why = fmt.Errorf("%w: reading the server's stdout: %v", ErrClosed, err)
			}
			t.c.end(why)
			return
		}
	}
}

// send writes the lines to stdin in one write, within ctx: a server that
// stops reading cannot stall the client past it.
func (t *stdioTransport) send(ctx context.Context, lines [][]byte, _ []*Pending) error {
	var buf []byte
	if len(lines) == 1 {
		buf = append(lines[0], '\n')
	} else {
		n := 0
		for _, l := range lines {
			n += len(l) + 1
		}
		buf = make([]byte, 0, n)
		for _, l := range lines {
			buf = append(append(buf, l...), '\n')
		}
	}
	t.wmu.Lock()
	defer t.wmu.Unlock()
	deadline, _ := ctx.Deadline() // zero: none
	t.proc.stdin.SetWriteDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { t.proc.stdin.SetWriteDeadline(time.Unix(1, 0)) })
	_, err := t.proc.stdin.Write(buf)
	stop()
	if err != nil {
		return fmt.Errorf("could not write to the server's stdin: %w", err)
	}
	return nil
}

func (t *stdioTransport) stop() { t.proc.Kill() }

// release closes the pipes and waits (boundedly) for the process and the
// reader.
func (t *stdioTransport) release() {
	t.proc.stdin.Close()
	t.stdout.Close()
	timer := time.NewTimer(waitDelay + time.Second)
	defer timer.Stop()
	select {
	case <-t.proc.exited:
	case <-timer.C:
	}
	select {
	case <-t.read:
	case <-timer.C:
	}
}

// tailBuffer keeps the last max bytes written to it. Safe for concurrent
// use.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

// Write implements io.Writer.
func (w *tailBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if over := len(w.buf) - w.max; over > 0 {
		w.buf = append(w.buf[:0], w.buf[over:]...)
	}
	return len(p), nil
}

// String is what is kept.
func (w *tailBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.buf)
}
