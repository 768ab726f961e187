package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/agent3md/agent3md/mcpclient"
)

// legacyVersion is the protocol revision of the legacy handshake the
// benchmark sends (docs/protocol.md §1).
const legacyVersion = "2025-11-25"

// maxLineBytes bounds one line read from the server's stdout. Route answers
// are a few KB; a larger line means the server is misbehaving.
const maxLineBytes = 16 << 20

// server is one running stdio server driven through the client package,
// which frames, matches answers to requests and stamps their times: the
// measurements read a request's Timing, so decoding an answer is never
// on the clock. Used by one goroutine at a time.
type server struct {
	c       *mcpclient.Conn
	proc    *mcpclient.Process
	timeout time.Duration

	mu         sync.Mutex
	unexpected error // the first answer no request was waiting for
}

// startServer spawns bin with args. timeout bounds every later wait.
func startServer(bin string, args []string, timeout time.Duration) (*server, error) {
	return startServerEnv(bin, args, nil, timeout)
}

// startServerEnv is startServer with env added to the inherited
// environment.
func startServerEnv(bin string, args, env []string, timeout time.Duration) (*server, error) {
	s := &server{timeout: timeout}
	c, err := mcpclient.Spawn(append([]string{bin}, args...), &mcpclient.Options{
		Env: env, MaxLineBytes: maxLineBytes, StderrBytes: 4 << 10, OnUnmatched: s.unmatched,
	})
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w (build it with 'go build ./cmd/agent3md' or pass -bin)", bin, err)
	}
	s.c, s.proc = c, c.Process()
	return s, nil
}

// unmatched keeps the first answer that matched no request in flight (an
// unexpected or repeated id), or the first line that was no message.
func (s *server) unmatched(raw []byte, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.unexpected != nil {
		return
	}
	if err != nil {
		s.unexpected = err
		return
	}
	id := "?"
	if m, derr := mcpclient.Decode(raw); derr == nil {
		id = string(m.ID)
	}
	s.unexpected = fmt.Errorf("unexpected or repeated message id %s", id)
}

// checkUnexpected fails a measurement during which an answer matched no
// request.
func (s *server) checkUnexpected() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.unexpected
}

// started is just before the process was started.
func (s *server) started() time.Time { return s.proc.Started() }

// start sends requests without waiting; over stdio they go in one write.
// The answers are read meanwhile.
func (s *server) start(reqs ...mcpclient.Request) ([]*mcpclient.Pending, error) {
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	ps, err := s.c.StartAll(ctx, reqs)
	if err != nil {
		return nil, fmt.Errorf("writing to the server's stdin: %w%s", err, s.stderrNote())
	}
	return ps, nil
}

// await waits for p's answer to arrive, at most the timeout, without
// decoding it.
func (s *server) await(p *mcpclient.Pending) error {
	timer := time.NewTimer(s.timeout)
	defer timer.Stop()
	select {
	case <-p.Done():
		return nil
	case <-timer.C:
		p.Abandon()
		return fmt.Errorf("server hung: no answer within %v (raise -timeout if this size needs longer)%s", s.timeout, s.stderrNote())
	}
}

// wait waits for p's answer and decodes it.
func (s *server) wait(p *mcpclient.Pending) (*mcpclient.Message, error) {
	if err := s.await(p); err != nil {
		return nil, err
	}
	m, err := p.Message()
	switch {
	case errors.Is(err, mcpclient.ErrClosed):
		return nil, fmt.Errorf("server closed stdout before answering%s", s.stderrNote())
	case err != nil:
		return nil, err
	}
	return m, nil
}

// waitAll waits for every answer to arrive (nil entries, notifications,
// are skipped); nothing is decoded, so a burst's clock and this client's
// JSON decoding never overlap.
func (s *server) waitAll(ps []*mcpclient.Pending) error {
	for i, p := range ps {
		if p == nil {
			continue
		}
		if err := s.await(p); err != nil {
			return fmt.Errorf("%d of %d answered: %w", i, len(ps), err)
		}
	}
	return s.checkUnexpected()
}

// call sends one request and returns its result; an error answer is an
// error.
func (s *server) call(r mcpclient.Request) (json.RawMessage, error) {
	ps, err := s.start(r)
	if err != nil {
		return nil, err
	}
	return s.result(ps[0])
}

// result waits for p and returns its result, or its error answer as an
// error.
func (s *server) result(p *mcpclient.Pending) (json.RawMessage, error) {
	m, err := s.wait(p)
	if err != nil {
		return nil, fmt.Errorf("waiting for the answer to request %s: %w", p.ID(), err)
	}
	if m.Error != nil {
		return nil, fmt.Errorf("request %s failed with JSON-RPC error %d: %s", p.ID(), m.Error.Code, m.Error.Message)
	}
	return m.Result, nil
}

// roundTrip sends one request and returns its result and the time from
// its write to the arrival of its answer's line, before it is decoded.
func (s *server) roundTrip(r mcpclient.Request) (json.RawMessage, time.Duration, error) {
	ps, err := s.start(r)
	if err != nil {
		return nil, 0, err
	}
	res, err := s.result(ps[0])
	return res, ps[0].Timing().RoundTrip(), err
}

// finish closes stdin and waits up to wait for the process to exit. It
// returns the peak RSS in MB (VmHWM where /proc has it, else rusage), or
// an error when the server does not exit promptly or exits with a
// non-zero status.
func (s *server) finish(wait time.Duration) (float64, error) {
	// The peak so far, read while the process lives: see liveHWMMB. The
	// exit itself allocates nothing worth counting.
	hwm, live := liveHWMMB(s.proc.Pid())
	code, exited := s.proc.CloseInput(wait)
	if !exited {
		s.c.Close()
		return 0, fmt.Errorf("server did not exit within %v of stdin closing (docs/protocol.md §2: at EOF it finishes its requests and exits 0)", wait)
	}
	if code != 0 {
		return 0, fmt.Errorf("server exited badly after stdin closed: %v%s", s.proc.State(), s.stderrNote())
	}
	if live {
		return hwm, nil
	}
	return peakRSSMB(s.proc.State()), nil
}

// kill ends a server whose measurement failed; it is safe after finish.
func (s *server) kill() { s.c.Close() }

// stderrNote formats the tail of the server's stderr for an error message.
func (s *server) stderrNote() string {
	tail := strings.TrimSpace(s.proc.Stderr())
	if tail == "" {
		return ""
	}
	return "\n  server stderr (tail):\n    " + strings.ReplaceAll(tail, "\n", "\n    ")
}

// request is a request of method with params; the Conn numbers it.
func request(method string, params any) mcpclient.Request {
	return mcpclient.Request{Method: method, Params: params}
}
