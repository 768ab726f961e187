package selftest

import (
	"fmt"
	"strings"
	"time"

	"github.com/agent3md/agent3md/internal/textclip"
	"github.com/agent3md/agent3md/mcpclient"
)

// strayWait is how long the notification probe listens for replies that
// must not come.
const strayWait = 100 * time.Millisecond

// probeChecks sends malformed and unusual messages (docs/protocol.md §2
// and §3), each followed by a ping that must still be answered.
func (r *runner) probeChecks() {
	r.check("probe/malformed-json", func() outcome {
		return r.probe(constLine(`{"jsonrpc":"2.0","id":7,"method":"ping"`), "a line that is not JSON",
			expectNullIDError(codeParseError))
	})
	r.check("probe/object-id", func() outcome {
		return r.probe(constLine(`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`), "a request with an object id",
			expectNullIDError(codeInvalidRequest))
	})
	r.check("probe/oversized-line", r.checkOversized)
	r.check("probe/unknown-method", r.checkUnknownMethod)
	r.check("probe/notification", r.checkNotifications)
}

// expectNullIDError wants an error with code and a null (or absent) id.
func expectNullIDError(code int) func(*message) string {
	return func(m *message) string {
		switch {
		case m.Error == nil:
			return fmt.Sprintf("got a result, want error %d", code)
		case m.Error.Code != code:
			return fmt.Sprintf("got %v, want code %d", m.Error, code)
		case !m.IDIsNull():
			return fmt.Sprintf("error %d carries id %s, want null", code, m.ID)
		}
		return ""
	}
}

// constLine returns a line builder for a fixed line.
func constLine(s string) func() []byte { return func() []byte { return []byte(s) } }

// probe writes the line built by line, checks the first response with
// expect, then checks the server still answers a ping.
func (r *runner) probe(line func() []byte, what string, expect func(*message) string) outcome {
	return r.probeWith(line, what, func(m *message) (string, string) {
		return expect(m), fmt.Sprintf("%s answered", m.Error)
	})
}

// probeWith is probe with a judge that also says, for a passing answer,
// what the server did.
func (r *runner) probeWith(line func() []byte, what string, judge func(*message) (problem, did string)) outcome {
	if r.overHTTP() {
		return r.probeHTTP(line(), what, func(m *message) string { p, _ := judge(m); return p })
	}
	c, err := r.session()
	if err != nil {
		return fail("%v", err)
	}
	// The first response no request claims is the probe's answer: an
	// error with a null id, or the answer to the line's own id.
	p, err := c.startRaw(r.ctx, what, line())
	if err != nil {
		return fail("sending %s: %v", what, err)
	}
	m, err := c.await(r.ctx, what, p)
	if err != nil {
		return fail("no error response to %s: %v", what, err)
	}
	problem, did := judge(m)
	if out, ok := r.ping(c); !ok {
		return fail("after %s the server stopped answering: %s", what, out.detail)
	}
	if problem != "" {
		return fail("%s: %s", what, problem)
	}
	return pass("%s; connection alive", did)
}

// oversizedLine builds a ping request exactly n bytes long (without its
// newline), padded inside a string parameter.
func oversizedLine(n int) []byte {
	head := []byte(`{"jsonrpc":"2.0","id":"` + oversizedID + `","method":"ping","params":{"pad":"`)
	tail := []byte(`"}}`)
	pad := max(n-len(head)-len(tail), 0)
	// One allocation, with room for the newline writeLine appends.
	b := make([]byte, 0, len(head)+pad+len(tail)+1)
	b = append(b, head...)
	for range pad {
		b = append(b, 'x')
	}
	return append(b, tail...)
}

// oversizedID is the id of the oversized-line probe's ping.
const oversizedID = "selftest-big"

// checkOversized sends a line longer than servers are expected to bound
// lines at, and judges the server by its own bound (docs/selftest.md §4):
// one whose bound is higher answers it as the ping it is, one whose bound
// is lower answers an error; either way it must keep serving. A crash, a
// hang or an answer that is neither fails.
func (r *runner) checkOversized() outcome {
	n := r.o.MaxLineBytes
	if r.overHTTP() {
		return r.checkOversizedBody(n)
	}
	return r.probeWith(func() []byte { return oversizedLine(n) }, fmt.Sprintf("a %d-byte line", n), func(m *message) (string, string) {
		if m.Error != nil {
			return oversizedErrorProblem(m), fmt.Sprintf("%s answered", m.Error)
		}
		if p := oversizedResultProblem(m); p != "" {
			return p, ""
		}
		return "", fmt.Sprintf("answered as the ping it is (the server's line bound is above %d bytes)", n)
	})
}

// oversizedErrorProblem says what is wrong with an error answering the
// oversized probe: it must answer the probe (its id, or null when the
// server could not read it), not another request.
func oversizedErrorProblem(m *message) string {
	if m.IDIsNull() || mcpclient.SameID(m.ID, oversizedID) {
		return ""
	}
	return fmt.Sprintf("%v carries id %s, want null or %q", m.Error, m.ID, oversizedID)
}

// oversizedResultProblem says what is wrong with a result answering the
// oversized ping: it must be the ping's answer, an object for its id.
func oversizedResultProblem(m *message) string {
	switch {
	case !mcpclient.SameID(m.ID, oversizedID):
		return fmt.Sprintf("answered a result for id %s, want the ping's answer (id %q) or an error", m.ID, oversizedID)
	case !isJSONObject(m.Result):
		return fmt.Sprintf("answered the ping with %s, want an object ({}) or an error", textclip.Bytes(string(m.Result), 60))
	}
	return ""
}

// checkUnknownMethod calls a method no server has.
func (r *runner) checkUnknownMethod() outcome {
	c, err := r.session()
	if err != nil {
		return fail("%v", err)
	}
	m, err := c.call(r.ctx, "selftest/no-such-method", map[string]any{})
	if err != nil {
		return fail("%v", err)
	}
	problem := ""
	switch {
	case m.Error == nil:
		problem = "got a result"
	case m.Error.Code != codeMethodNotFound:
		problem = fmt.Sprintf("got %v", m.Error)
	}
	if out, ok := r.ping(c); !ok {
		return fail("after an unknown method the server stopped answering: %s", out.detail)
	}
	if problem != "" {
		return fail("unknown method: %s, want code %d", problem, codeMethodNotFound)
	}
	return pass("%d", codeMethodNotFound)
}

// checkNotifications sends notifications, known and unknown, and expects
// no reply to any of them.
func (r *runner) checkNotifications() outcome {
	c, err := r.session()
	if err != nil {
		return fail("%v", err)
	}
	c.takeStrays()
	notes := []struct {
		method string
		params any
	}{
		{"notifications/selftest-unknown", nil},
		{"selftest/no-such-method", map[string]any{}},
		{"notifications/cancelled", map[string]any{"requestId": "selftest-never-sent"}},
	}
	for _, n := range notes {
		if err := c.notify(n.method, n.params); err != nil {
			return fail("sending notification %s: %v", n.method, err)
		}
	}
	if out, ok := r.ping(c); !ok {
		return fail("after %d notifications the server stopped answering: %s", len(notes), out.detail)
	}
	c.drain(strayWait)
	if strays := c.takeStrays(); len(strays) > 0 {
		return fail("notifications must get no reply, got %s", describeStrays(strays))
	}
	return pass("%d notifications, no reply", len(notes))
}

// exitCheck closes the server's stdin and expects a prompt exit with
// status 0.
func (r *runner) exitCheck() {
	r.check("exit/eof", func() outcome {
		c, err := r.session()
		if err != nil {
			return fail("%v", err)
		}
		defer r.endSession()
		proc := c.cc.Process()
		if proc == nil {
			return skip("%s", stdioOnly("a process that must exit when its stdin closes"))
		}
		start := time.Now()
		code, ok := proc.CloseInput(r.o.ExitTimeout)
		if !ok {
			return fail("still running %v after its stdin closed; a server must exit on EOF", r.o.ExitTimeout)
		}
		if code != 0 {
			return fail("exited with status %d after its stdin closed, want 0%s", code, c.stderrNote())
		}
		asked := ""
		if methods := c.askedMethods(); len(methods) > 0 {
			asked = "; during the session it asked " + strings.Join(methods, ", ") + ", each answered"
		}
		return pass("exited 0 in %v%s", time.Since(start).Round(time.Millisecond), asked)
	})
}
