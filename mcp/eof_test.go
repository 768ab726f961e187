package mcp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// eofServer is a pipe server whose EOF clocks the test sets: the grace
// before owed requests are cut and the stall after which the server ends
// without what it could not deliver; cut is closed when the cut happens.
func eofServer(t *testing.T, opts *Options, grace, stall time.Duration, maxInFlight int) (p *pipeServer, logs *syncBuffer, cut chan struct{}) {
	logs = &syncBuffer{}
	cut = make(chan struct{})
	opts.MaxInFlight, opts.Logger = maxInFlight, slog.New(slog.NewTextHandler(logs, nil))
	p = startPipeServer(t, withConn(opts, func(c *conn) { c.grace, c.stall, c.onCut = grace, stall, func() { close(cut) } }))
	return p, logs, cut
}

func toolsListRequest(i int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i)
}

// TestEOFAnswersHeldRequests: a client writes
// 2,000 tools/list, closes stdin and reads nothing until after the grace
// period. The requests held behind its unread answers are answered,
// every one with its result (none "Internal error: context canceled"),
// once it reads, and nothing is logged as cancelled: nothing was running.
func TestEOFAnswersHeldRequests(t *testing.T) {
	const n = 2000
	p, logs, cut := eofServer(t, &Options{}, 10*time.Millisecond, time.Hour, 0)
	if err := <-p.writeEach(n, toolsListRequest); err != nil {
		t.Fatal(err)
	}
	<-cut
	p.readAnswers(t, n) // and Serve's nil
	if strings.Contains(logs.String(), "level=WARN") {
		t.Errorf("warnings with nothing cut:\n%s", logs)
	}
}

// TestEOFCutsOwedRequests: a grace period after EOF, a request still
// running is cancelled and one still waiting for a handler is answered
// without being run, each with an error saying so (not "Internal error");
// a cheap request is answered; the cut is logged once, with its counts.
//
// Stdin closes only once request 1 is running (its handler says so) and
// request 2 is waiting behind it (the ping after it has been answered, so
// it was read), so what the cut finds does not depend on how soon the
// machine runs the handler: the grace period is the server's to keep,
// not a bound on the test's scheduling.
func TestEOFCutsOwedRequests(t *testing.T) {
	methods := testMethods()
	started := make(chan string, 2)
	wait := methods["test/wait"]
	blocking := wait.handle
	wait.handle = func(s *server, ctx context.Context, c *call) (any, error) {
		started <- string(requestID(ctx))
		return blocking(s, ctx, c)
	}
	methods["test/wait"] = wait
	p, logs, cut := eofServer(t, withMethods(&Options{}, methods), 10*time.Millisecond, time.Hour, 1)
	wrote := p.write(`{"jsonrpc":"2.0","id":1,"method":"test/wait"}`,
		`{"jsonrpc":"2.0","id":2,"method":"test/wait"}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if id := await(t, started, "request 1 to start"); id != "1" {
		t.Fatalf("request %s started first, want 1", id)
	}
	answers := p.answerReader()
	answers.next(t)
	if _, ok := answers.got["3"]; !ok {
		t.Fatalf("answered before the ping, with request 1 running: %v", answers.got)
	}
	if err := await(t, wrote, "the requests to be read"); err != nil {
		t.Fatal(err)
	}
	if err := p.in.Close(); err != nil {
		t.Fatal(err)
	}
	for len(answers.got) < 3 {
		answers.next(t)
	}
	await(t, cut, "the cut")
	if err := await(t, answers.err, "the end of the answers"); err != io.EOF {
		t.Fatalf("after the answers: %v, want EOF", err)
	}
	if err := await(t, p.done, "Serve to return"); err != nil {
		t.Fatalf("Serve = %v", err)
	}
	for id, want := range map[string]string{
		"1": `"code":-32603,"message":"Cancelled: stdin closed and test/wait was still running 10ms later, so the server ended it`,
		"2": `"code":-32603,"message":"Not run: stdin closed and test/wait was still waiting for a handler 10ms later`,
		"3": `"result":{}`,
	} {
		if !strings.Contains(answers.got[id], want) {
			t.Errorf("id %s: %s, want %s", id, answers.got[id], want)
		}
	}
	if len(started) > 0 {
		t.Errorf("request %s ran after the cut", <-started)
	}
	if got := strings.Count(logs.String(), "level=WARN"); got != 1 || !strings.Contains(logs.String(), "running=1 not_started=1 held_cheap=0") {
		t.Errorf("want one warning counting 1 running and 1 not started:\n%s", logs)
	}
}

// hangDeadline bounds the waits of the EOF tests on an event: only a hang
// misses it, never a slow or loaded machine.
const hangDeadline = time.Minute

// await receives from ch, failing t when nothing comes within hangDeadline.
func await[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(hangDeadline):
		t.Fatalf("waited %v for %s", hangDeadline, what)
		panic("unreachable")
	}
}

// write writes lines to the server's stdin and leaves it open; the result
// arrives on the returned channel once the server has taken them.
func (p *pipeServer) write(lines ...string) <-chan error {
	wrote := make(chan error, 1)
	go func() {
		_, err := io.WriteString(p.in, strings.Join(lines, "\n")+"\n")
		wrote <- err
	}()
	return wrote
}

// answerReader reads the server's answers on a goroutine of its own, so
// that a test waiting for one can give up on a hang.
type answerReader struct {
	lines chan string
	err   chan error
	got   map[string]string // answers by id
}

func (p *pipeServer) answerReader() *answerReader {
	r := &answerReader{lines: make(chan string), err: make(chan error, 1), got: map[string]string{}}
	go func() {
		for {
			l, err := p.out.ReadString('\n')
			if err != nil {
				r.err <- err
				return
			}
			r.lines <- l
		}
	}()
	return r
}

// next reads one answer into r.got, by id. It fails on a second answer to
// an id, and when none comes within hangDeadline.
func (r *answerReader) next(t *testing.T) {
	t.Helper()
	var l string
	select {
	case l = <-r.lines:
	case err := <-r.err:
		t.Fatalf("after %d answers: %v", len(r.got), err)
	case <-time.After(hangDeadline):
		t.Fatalf("no answer for %v after %d: %v", hangDeadline, len(r.got), r.got)
	}
	id := regexp.MustCompile(`"id":(\d+)`).FindStringSubmatch(l)
	if id == nil {
		t.Fatalf("an answer without an id: %s", l)
	}
	if _, dup := r.got[id[1]]; dup {
		t.Fatalf("id %s answered twice: %s", id[1], l)
	}
	r.got[id[1]] = l
}

// TestEOFAbandonsUnreadAnswers: a client that closes stdin and never
// reads does not keep the server: once nothing has moved for the stall
// period after the cut, Serve returns nil, and the log says once how many
// requests went unanswered (the old log said requests=0, twice).
func TestEOFAbandonsUnreadAnswers(t *testing.T) {
	const n = 2000
	p, logs, _ := eofServer(t, &Options{}, 10*time.Millisecond, 10*time.Millisecond, 0)
	if err := <-p.writeEach(n, toolsListRequest); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.done:
		if err != nil {
			t.Fatalf("Serve = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return with its client not reading")
	}
	go io.Copy(io.Discard, p.out) // lets the blocked writer go
	m := regexp.MustCompile(`msg="stdin closed and nothing moved for a grace period: ending without the answers owed" unanswered=(\d+) ignoring_cancellation=0 waiting=(\d+)`).FindAllStringSubmatch(logs.String(), -1)
	if len(m) != 1 {
		t.Fatalf("want one line saying what was left unanswered:\n%s", logs)
	}
	// At most about a megabyte of answers (answerLead, some 200
	// tools/list) is produced before the answers are behind.
	if unanswered, _ := strconv.Atoi(m[0][1]); unanswered < n/2 || m[0][1] != m[0][2] {
		t.Errorf("unanswered=%s waiting=%s, want the held requests counted (most of %d)", m[0][1], m[0][2], n)
	}
}
