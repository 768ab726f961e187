package mcp

import (
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
func eofServer(t *testing.T, grace, stall time.Duration, maxInFlight int) (p *pipeServer, logs *syncBuffer, cut chan struct{}) {
	logs = &syncBuffer{}
	cut = make(chan struct{})
	p = startPipeServer(t, withConn(&Options{MaxInFlight: maxInFlight, Logger: slog.New(slog.NewTextHandler(logs, nil))}, func(c *conn) { c.grace, c.stall, c.onCut = grace, stall, func() { close(cut) } }))
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
	p, logs, cut := eofServer(t, 10*time.Millisecond, time.Hour, 0)
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
func TestEOFCutsOwedRequests(t *testing.T) {
	p, logs, cut := eofServer(t, 10*time.Millisecond, time.Hour, 1)
	wrote := p.writeEach(3, func(i int) string {
		if i == 3 {
			return `{"jsonrpc":"2.0","id":3,"method":"ping"}`
		}
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"test/wait"}`, i)
	})
	answers := map[string]string{}
	for len(answers) < 3 {
		l, err := p.out.ReadString('\n')
		if err != nil {
			t.Fatalf("after %d answers: %v", len(answers), err)
		}
		id := regexp.MustCompile(`"id":(\d+)`).FindStringSubmatch(l)
		answers[id[1]] = l
	}
	<-cut
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	if err := <-p.done; err != nil {
		t.Fatalf("Serve = %v", err)
	}
	for id, want := range map[string]string{
		"1": `"code":-32603,"message":"Cancelled: stdin closed and test/wait was still running 10ms later, so the server ended it`,
		"2": `"code":-32603,"message":"Not run: stdin closed and test/wait was still waiting for a handler 10ms later`,
		"3": `"result":{}`,
	} {
		if !strings.Contains(answers[id], want) {
			t.Errorf("id %s: %s, want %s", id, answers[id], want)
		}
	}
	if got := strings.Count(logs.String(), "level=WARN"); got != 1 || !strings.Contains(logs.String(), "running=1 not_started=1 held_cheap=0") {
		t.Errorf("want one warning counting 1 running and 1 not started:\n%s", logs)
	}
}

// TestEOFAbandonsUnreadAnswers: a client that closes stdin and never
// reads does not keep the server: once nothing has moved for the stall
// period after the cut, Serve returns nil, and the log says once how many
// requests went unanswered (the old log said requests=0, twice).
func TestEOFAbandonsUnreadAnswers(t *testing.T) {
	const n = 2000
	p, logs, _ := eofServer(t, 10*time.Millisecond, 10*time.Millisecond, 0)
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
