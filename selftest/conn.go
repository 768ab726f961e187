package selftest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agent3md/agent3md/mcpclient"
)

// message and rpcError are the client's: the checks read what it
// decodes.
type (
	message  = mcpclient.Message
	rpcError = mcpclient.RPCError
)

// maxStrays caps how many unexpected responses a conn remembers, and
// maxServerRequests how many request methods the server sent.
const (
	maxStrays         = 16
	maxServerRequests = 16
)

// conn is one server session as the checks drive it: a mcpclient.Conn (which
// frames, correlates and answers the server's requests) under the
// harness's timeout policy. Each request has the timeout to be sent and
// again to be answered; a progress notification for it restarts the
// second (docs/selftest.md §3); a request that times out breaks the
// session, and the next check starts a fresh one. It is used by one
// goroutine at a time; the client's handlers fill strays and asked.
type conn struct {
	cc       *mcpclient.Conn
	timeout  time.Duration
	nextID   int
	broken   error  // set once the conn is unusable (timeout, write error)
	timedOut bool   // the server failed to answer within the timeout
	progress string // progressToken of the request in flight, "" when none

	mu     sync.Mutex
	strays []*message // responses nobody asked for, capped
	asked  []string   // methods of requests the server sent, capped
}

// open starts a fresh session: a spawned process, or a new HTTP client
// of the URL. Nothing is sent yet.
func (r *runner) open() (*conn, error) {
	c := &conn{timeout: r.o.Timeout}
	o := &mcpclient.Options{MaxLineBytes: r.o.MaxResponseBytes, OnRequest: c.serverRequest, OnUnmatched: c.unmatched}
	var err error
	if r.overHTTP() {
		o.HTTPClient, o.Token, o.OnExchange = r.o.HTTPClient, r.o.Token, r.httpLog.add
		c.cc, err = mcpclient.Dial(r.o.URL, o)
	} else {
		c.cc, err = mcpclient.Spawn(r.o.Command, o)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// serverRequest answers a request the server sent at once (a server that
// asks and waits must never stall the run) and remembers its method for
// the report. The harness declares no client capabilities, so it answers
// as the client package's RefuseRequest does.
func (c *conn) serverRequest(m *message) (any, error) {
	c.mu.Lock()
	if len(c.asked) < maxServerRequests {
		c.asked = append(c.asked, m.Method)
	}
	c.mu.Unlock()
	return mcpclient.RefuseRequest(m, "the selftest client")
}

// unmatched remembers a response no request claims (a server that
// answers notifications, say); a bad line nobody waits for is the next
// request's to meet, if it meets one.
func (c *conn) unmatched(raw []byte, err error) {
	if err != nil {
		return
	}
	m, derr := mcpclient.Decode(raw)
	if derr != nil || !m.IsResponse() {
		return
	}
	c.mu.Lock()
	if len(c.strays) < maxStrays {
		c.strays = append(c.strays, m)
	}
	c.mu.Unlock()
}

// takeStrays returns the strays so far and forgets them.
func (c *conn) takeStrays() []*message {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.strays
	c.strays = nil
	return s
}

// askedMethods is what the server asked during the session.
func (c *conn) askedMethods() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.asked...)
}

// call sends a request with a fresh integer id and waits for its response.
func (c *conn) call(ctx context.Context, method string, params any) (*message, error) {
	c.nextID++
	return c.callID(ctx, c.nextID, method, params)
}

// callID sends a request with the given id and waits for its response.
func (c *conn) callID(ctx context.Context, id any, method string, params any) (*message, error) {
	req := mcpclient.Request{ID: id, Method: method, Params: params}
	if c.progress != "" {
		req.Progress = c.progress
	}
	what := "the " + method + " request"
	p, err := c.start(ctx, what, func(ctx context.Context) (*mcpclient.Pending, error) { return c.cc.Start(ctx, req) })
	if err != nil {
		return nil, err
	}
	return c.await(ctx, what, p)
}

// notify sends a notification (no id).
func (c *conn) notify(method string, params any) error {
	_, err := c.start(context.Background(), "notification "+method, func(ctx context.Context) (*mcpclient.Pending, error) {
		return nil, c.cc.Notify(ctx, method, params)
	})
	return err
}

// startRaw writes line as it is (a probe) and returns the waiter for
// the first response no request claims.
func (c *conn) startRaw(ctx context.Context, what string, line []byte) (*mcpclient.Pending, error) {
	return c.start(ctx, what, func(ctx context.Context) (*mcpclient.Pending, error) { return c.cc.StartRaw(ctx, line) })
}

// start sends within the timeout, so a server that stops reading cannot
// stall the harness; a failure breaks the conn.
func (c *conn) start(ctx context.Context, what string, send func(context.Context) (*mcpclient.Pending, error)) (*mcpclient.Pending, error) {
	if c.broken != nil {
		return nil, c.broken
	}
	sctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	p, err := send(sctx)
	if err == nil {
		return p, nil
	}
	var noAnswer *mcpclient.NoAnswerError
	switch {
	case errors.As(err, &noAnswer):
		c.timedOut = true
		err = fmt.Errorf("no answer to %s within %v", noAnswer.What, c.timeout)
	case errors.Is(err, mcpclient.ErrEcho):
	case errors.Is(err, mcpclient.ErrClosed) && c.cc.Process() != nil:
		err = fmt.Errorf("server closed stdout before answering %s%s", what, c.endNote())
	case c.cc.Process() != nil:
		err = fmt.Errorf("%w%s", err, c.endNote())
	}
	c.fail(err)
	return nil, c.broken
}

// await waits for p's answer. A timeout, a closed stdout or a peer that
// echoes breaks the conn; an answer that is not a message fails the
// request alone.
func (c *conn) await(ctx context.Context, what string, p *mcpclient.Pending) (*message, error) {
	timer := time.NewTimer(c.timeout)
	defer timer.Stop()
	hardStop := time.Now().Add(maxProgressWaits * c.timeout)
	for {
		select {
		case <-p.Done():
			m, err := p.Message()
			switch {
			case err == nil:
				return m, nil
			case errors.Is(err, mcpclient.ErrEcho):
				c.fail(err)
				return nil, c.broken
			case errors.Is(err, mcpclient.ErrClosed):
				c.fail(fmt.Errorf("server closed stdout before answering %s%s", what, c.endNote()))
				return nil, c.broken
			}
			return nil, err
		case <-p.Progress():
			// The server says it is working on the request: a slow
			// answer (a huge agent's first route builds its index) is
			// not a hung server.
			if time.Now().Before(hardStop) {
				timer.Reset(min(c.timeout, time.Until(hardStop)))
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

// drain lets responses that must not come arrive within d (the client
// keeps them as strays).
func (c *conn) drain(d time.Duration) {
	if c.broken != nil {
		return
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-c.cc.Done():
	}
}

// fail marks the conn unusable and stops the server.
func (c *conn) fail(err error) {
	if c.broken == nil {
		c.broken = err
	}
	c.cc.Close()
}

// alive reports whether the conn can still carry requests.
func (c *conn) alive() bool {
	if c.broken != nil {
		return false
	}
	if p := c.cc.Process(); p != nil {
		select {
		case <-p.Exited():
			return false
		default:
		}
	}
	return true
}

// Close stops the server if needed and releases the session. It is
// idempotent.
func (c *conn) Close() { c.cc.Close() }

// endNote describes how a spawned server ended, if it did within a
// second, with its stderr tail; "" over HTTP.
func (c *conn) endNote() string {
	p := c.cc.Process()
	if p == nil {
		return ""
	}
	timer := time.NewTimer(time.Second)
	defer timer.Stop()
	select {
	case <-p.Exited():
	case <-timer.C:
		return c.stderrNote()
	}
	return fmt.Sprintf(" (server exited: %v)%s", p.State(), c.stderrNote())
}

// stderrNote is the last few lines of a spawned server's stderr, at most
// 400 bytes, as "; stderr: …", or "".
func (c *conn) stderrNote() string {
	p := c.cc.Process()
	if p == nil {
		return ""
	}
	lines := strings.FieldsFunc(p.Stderr(), func(r rune) bool { return r == '\n' || r == '\r' })
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
	if out == "" {
		return ""
	}
	return "; stderr: " + out
}

// snippet shortens s to at most n bytes for a failure detail.
