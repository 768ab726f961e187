package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// legacyVersion is the protocol revision of the legacy handshake the
// benchmark sends (docs/protocol.md §1).
const legacyVersion = "2025-11-25"

// maxLineBytes bounds one line read from the server's stdout. Route answers
// are a few KB; a larger line means the server is misbehaving.
const maxLineBytes = 16 << 20

// message is the part of a JSON-RPC message from the server the benchmark
// looks at.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// server is one running `agent3md mcp` process driven over stdio. It is used
// by one goroutine at a time, except that send may run concurrently with
// recv.
type server struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan []byte // stdout lines; closed at EOF
	readErr error       // why lines was closed, when not a clean EOF
	stderr  *tailBuffer
	start   time.Time // just before the process was started
	timeout time.Duration
}

// startServer spawns bin with args and starts reading its stdout. timeout
// bounds every later recv.
func startServer(bin string, args []string, timeout time.Duration) (*server, error) {
	return startServerEnv(bin, args, nil, timeout)
}

// startServerEnv is startServer with env added to the inherited
// environment.
func startServerEnv(bin string, args, env []string, timeout time.Duration) (*server, error) {
	cmd := exec.Command(bin, args...)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("creating the server's stdin pipe: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("creating the server's stdout pipe: %w", err)
	}
	s := &server{cmd: cmd, stdin: stdin, lines: make(chan []byte, 256),
		stderr: &tailBuffer{max: 4 << 10}, timeout: timeout}
	cmd.Stderr = s.stderr
	s.start = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w (build it with 'go build ./cmd/agent3md' or pass -bin)", bin, err)
	}
	go s.readLines(stdout)
	return s, nil
}

// readLines feeds stdout lines to s.lines until EOF or a read error.
func (s *server) readLines(r io.Reader) {
	defer close(s.lines)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br)
		if len(line) > 0 {
			s.lines <- line
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.readErr = err
			}
			return
		}
	}
}

// readLine reads one newline-terminated line of at most maxLineBytes.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxLineBytes {
			return nil, fmt.Errorf("server wrote a line longer than %d bytes", maxLineBytes)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return bytes.TrimRight(line, "\r\n"), err
		}
	}
}

// send writes one JSON-RPC message as a line.
func (s *server) send(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("encoding a request: %w", err)
	}
	if _, err := s.stdin.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("writing to the server's stdin: %w%s", err, s.stderrNote())
	}
	return nil
}

// sendRaw writes pre-encoded request lines.
func (s *server) sendRaw(lines []byte) error {
	if _, err := s.stdin.Write(lines); err != nil {
		return fmt.Errorf("writing to the server's stdin: %w%s", err, s.stderrNote())
	}
	return nil
}

// recv returns the next message from the server, failing when none
// arrives within the timeout or stdout closes.
func (s *server) recv() (*message, error) {
	line, err := s.recvLine()
	if err != nil {
		return nil, err
	}
	return decodeMessage(line)
}

// recvLine returns the next line from the server undecoded, so that a
// timing can stop when the answer has arrived rather than after the
// client has parsed it.
func (s *server) recvLine() ([]byte, error) {
	timer := time.NewTimer(s.timeout)
	defer timer.Stop()
	select {
	case line, ok := <-s.lines:
		if !ok {
			if s.readErr != nil {
				return nil, fmt.Errorf("reading the server's stdout: %w%s", s.readErr, s.stderrNote())
			}
			return nil, fmt.Errorf("server closed stdout before answering%s", s.stderrNote())
		}
		return line, nil
	case <-timer.C:
		return nil, fmt.Errorf("server hung: no message within %v (raise -timeout if this size needs longer)%s", s.timeout, s.stderrNote())
	}
}

// decodeMessage parses one line from the server.
func decodeMessage(line []byte) (*message, error) {
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, fmt.Errorf("server wrote a line that is not JSON (%v): %.200q", err, line)
	}
	return &m, nil
}

// await reads messages until the response with the given numeric id,
// skipping notifications, and returns its result.
func (s *server) await(id int) (json.RawMessage, error) {
	want := fmt.Sprint(id)
	for {
		m, err := s.recv()
		if err != nil {
			return nil, fmt.Errorf("waiting for the answer to request %d: %w", id, err)
		}
		if m.Method != "" || string(m.ID) != want {
			if m.Method == "" {
				return nil, fmt.Errorf("waiting for the answer to request %d, got one for id %s", id, m.ID)
			}
			continue
		}
		return m.result(id)
	}
}

// result returns m's result, or its JSON-RPC error as a Go error.
func (m *message) result(id int) (json.RawMessage, error) {
	if m.Error != nil {
		return nil, fmt.Errorf("request %d failed with JSON-RPC error %d: %s", id, m.Error.Code, m.Error.Message)
	}
	if m.Result == nil {
		return nil, fmt.Errorf("answer to request %d has neither result nor error", id)
	}
	return m.Result, nil
}

// finish closes stdin and waits up to wait for the process to exit. It
// returns the peak RSS in MB (VmHWM where /proc has it, else rusage), or
// an error when the server does not exit promptly or exits with a
// non-zero status.
func (s *server) finish(wait time.Duration) (float64, error) {
	// The peak so far, read while the process lives: see liveHWMMB. The
	// exit itself allocates nothing worth counting.
	hwm, live := liveHWMMB(s.cmd.Process.Pid)
	s.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return 0, fmt.Errorf("server exited badly after stdin closed: %w%s", err, s.stderrNote())
		}
	case <-time.After(wait):
		s.cmd.Process.Kill()
		<-done
		return 0, fmt.Errorf("server did not exit within %v of stdin closing (docs/protocol.md §2: at EOF it finishes its requests and exits 0)", wait)
	}
	if live {
		return hwm, nil
	}
	return peakRSSMB(s.cmd.ProcessState), nil
}

// kill ends a server whose measurement failed; it is safe after finish.
func (s *server) kill() {
	if s.cmd.ProcessState == nil {
		s.stdin.Close()
		s.cmd.Process.Kill()
		s.cmd.Wait()
	}
}

// stderrNote formats the tail of the server's stderr for an error message.
func (s *server) stderrNote() string {
	tail := strings.TrimSpace(s.stderr.String())
	if tail == "" {
		return ""
	}
	return "\n  server stderr (tail):\n    " + strings.ReplaceAll(tail, "\n", "\n    ")
}

// tailBuffer keeps the last max bytes written to it. It is safe for
// concurrent use.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

// Write implements io.Writer.
func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// String returns what is kept.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// roundTrip writes one encoded request line and reads until the answer
// to id, skipping notifications. It returns the result and the time from
// the write to the arrival of the answer's line, before it is decoded.
func (s *server) roundTrip(req []byte, id int) (json.RawMessage, time.Duration, error) {
	want := fmt.Sprint(id)
	start := time.Now()
	if err := s.sendRaw(req); err != nil {
		return nil, 0, err
	}
	for {
		line, err := s.recvLine()
		if err != nil {
			return nil, 0, fmt.Errorf("waiting for the answer to request %d: %w", id, err)
		}
		trip := time.Since(start)
		m, err := decodeMessage(line)
		if err != nil {
			return nil, 0, err
		}
		if m.Method != "" {
			continue // a notification
		}
		if string(m.ID) != want {
			return nil, 0, fmt.Errorf("waiting for the answer to request %d, got one for id %s", id, m.ID)
		}
		res, err := m.result(id)
		return res, trip, err
	}
}
