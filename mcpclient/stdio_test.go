package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent3md/agent3md/mcpclient"
)

// spawnFake starts the fake server with o (its Env gets the switch).
func spawnFake(t *testing.T, o mcpclient.Options) *mcpclient.Conn {
	t.Helper()
	o.Env = append(o.Env, fakeEnv+"=1")
	c, err := mcpclient.Spawn(fakeArgv(t), &o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// testCtx bounds a test: a guard against hangs, not a speed assertion.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestPipelinedOutOfOrder: many requests in flight, answered in reverse
// order with a notification between answers: each answer reaches its
// own request, and the notifications arrive in the order sent.
func TestPipelinedOutOfOrder(t *testing.T) {
	var (
		mu    sync.Mutex
		notes []string
	)
	c := spawnFake(t, mcpclient.Options{OnNotification: func(m *mcpclient.Message) {
		var p struct {
			Data string `json:"data"`
		}
		json.Unmarshal(m.Params, &p)
		mu.Lock()
		notes = append(notes, p.Data)
		mu.Unlock()
	}})
	ctx := testCtx(t)
	const n = 200
	reqs := make([]mcpclient.Request, n)
	for i := range reqs {
		reqs[i] = mcpclient.Request{Method: "hold"}
		if i%2 == 1 {
			reqs[i].ID = fmt.Sprintf("s-%d", i) // string ids beside the Conn's own integers
		}
	}
	ps, err := c.StartAll(ctx, reqs)
	if err != nil {
		t.Fatal(err)
	}
	flush, err := c.Start(ctx, mcpclient.Request{Method: "flush"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := flush.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	var want []string
	for i, p := range ps {
		var res struct {
			ID json.RawMessage `json:"id"`
		}
		raw, err := p.WaitResult(ctx)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		json.Unmarshal(raw, &res)
		if string(res.ID) != string(p.ID()) {
			t.Errorf("request %d (id %s) got the answer for id %s", i, p.ID(), res.ID)
		}
		tm := p.Timing()
		if tm.Written.IsZero() || tm.Answered.Before(tm.Written) || tm.AnswerBytes == 0 || tm.SentBytes == 0 {
			t.Errorf("request %d: timing %+v", i, tm)
		}
		want = append([]string{string(p.ID())}, want...)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(notes, ",") != strings.Join(want, ",") {
		t.Errorf("notifications %v, want %v", notes, want)
	}
}

// TestMalformedLine: a line that is not JSON fails the request in flight
// with what is wrong, and the Conn goes on.
func TestMalformedLine(t *testing.T) {
	c := spawnFake(t, mcpclient.Options{})
	ctx := testCtx(t)
	err := c.Call(ctx, "garbage", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "not a JSON-RPC object to stdout") || !strings.Contains(err.Error(), "this is not JSON") {
		t.Fatalf("error %v, want it to quote the line that is not JSON", err)
	}
	// The answer that followed found no request (its waiter failed) and
	// the next request is served.
	if err := c.Call(ctx, "ping", nil, nil); err != nil {
		t.Fatal(err)
	}
}

// TestLineBound: a line over MaxLineBytes is read past, fails the
// requests in flight, and the Conn goes on.
func TestLineBound(t *testing.T) {
	var unmatched []string
	var mu sync.Mutex
	c := spawnFake(t, mcpclient.Options{MaxLineBytes: 1024, OnUnmatched: func(raw []byte, err error) {
		mu.Lock()
		unmatched = append(unmatched, fmt.Sprint(string(raw), err))
		mu.Unlock()
	}})
	ctx := testCtx(t)
	err := c.Call(ctx, "long", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "server wrote a line over 1024 bytes to stdout") {
		t.Fatalf("error %v, want the line bound", err)
	}
	if err := c.Call(ctx, "ping", nil, nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(unmatched) != 1 || !strings.Contains(unmatched[0], `{"ok":true}`) {
		t.Errorf("unmatched %q, want the late answer to long", unmatched)
	}
}

// TestServerDiesMidAnswer: a server that exits halfway through a line
// fails the request waiting with ErrClosed, and so does every later one.
func TestServerDiesMidAnswer(t *testing.T) {
	c := spawnFake(t, mcpclient.Options{})
	ctx := testCtx(t)
	p, err := c.Start(ctx, mcpclient.Request{Method: "die"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Wait(ctx)
	if err == nil || !strings.Contains(err.Error(), "not a JSON-RPC object") && !errors.Is(err, mcpclient.ErrClosed) {
		t.Fatalf("error %v, want the half line or ErrClosed", err)
	}
	<-c.Done()
	if !errors.Is(c.Err(), mcpclient.ErrClosed) || !strings.Contains(c.Err().Error(), "closed stdout") {
		t.Errorf("Err() = %v", c.Err())
	}
	if _, err := c.Start(ctx, mcpclient.Request{Method: "ping"}); !errors.Is(err, mcpclient.ErrClosed) {
		t.Errorf("a request after the end: %v, want ErrClosed", err)
	}
	<-c.Process().Exited()
	if st := c.Process().State(); st == nil || st.ExitCode() != 0 {
		t.Errorf("exit state %v", st)
	}
}

// TestServerRequest: a request from the server is answered by OnRequest
// while the client's own request waits.
func TestServerRequest(t *testing.T) {
	asked := make(chan string, 1)
	c := spawnFake(t, mcpclient.Options{OnRequest: func(m *mcpclient.Message) (any, error) {
		asked <- m.Method
		return mcpclient.RefuseRequest(m, "the test client")
	}})
	var res struct {
		Asked struct {
			Roots []any `json:"roots"`
		} `json:"asked"`
	}
	if err := c.Call(testCtx(t), "ask", nil, &res); err != nil {
		t.Fatal(err)
	}
	if got := <-asked; got != "roots/list" || res.Asked.Roots == nil {
		t.Errorf("asked %q, answered %+v", got, res)
	}
}

// TestProgress: progress notifications for a request's token are
// signalled on its Pending (and reach OnNotification too).
func TestProgress(t *testing.T) {
	var notes int
	var mu sync.Mutex
	c := spawnFake(t, mcpclient.Options{OnNotification: func(*mcpclient.Message) { mu.Lock(); notes++; mu.Unlock() }})
	ctx := testCtx(t)
	p, err := c.Start(ctx, mcpclient.Request{Method: "tools/call", Params: map[string]any{"name": "x"}, Progress: "tok-1"})
	if err != nil {
		t.Fatal(err)
	}
	signals := 0
	for done := false; !done; {
		select {
		case <-p.Progress():
			signals++
		case <-p.Done():
			done = true
		}
	}
	if _, err := p.WaitResult(ctx); err != nil {
		t.Fatal(err)
	}
	// The signal coalesces: at least one, at most one per notification.
	mu.Lock()
	defer mu.Unlock()
	if signals < 1 || signals > 3 || notes != 3 {
		t.Errorf("%d progress signals, %d notifications; want 1 to 3, and 3", signals, notes)
	}
}

// TestEcho: a program that copies its input is no server: the request
// fails saying so and the Conn ends.
func TestEcho(t *testing.T) {
	argv := fakeArgv(t)
	c, err := mcpclient.Spawn(argv, &mcpclient.Options{Env: []string{fakeEnv + "=echo"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = c.Call(testCtx(t), "ping", nil, nil)
	if !errors.Is(err, mcpclient.ErrEcho) || !strings.Contains(err.Error(), "such as cat") {
		t.Fatalf("error %v, want ErrEcho", err)
	}
	<-c.Done()
}

// TestListenStdio: a subscription gets its tagged notifications (the
// untagged one goes to OnNotification) and ends on Close.
func TestListenStdio(t *testing.T) {
	untagged := make(chan string, 4)
	c := spawnFake(t, mcpclient.Options{OnNotification: func(m *mcpclient.Message) { untagged <- m.Method }})
	ctx := testCtx(t)
	s := &mcpclient.Session{Conn: c, Modern: true, Info: mcpclient.Implementation{Name: "t", Version: "1"}}
	sub, err := s.Listen(ctx, map[string]any{"resourcesListChanged": true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for len(got) < 3 {
		got = append(got, (<-sub.Events()).Method)
	}
	want := "notifications/subscriptions/acknowledged notifications/resources/list_changed notifications/tools/list_changed"
	if strings.Join(got, " ") != want {
		t.Errorf("events %v, want %s", got, want)
	}
	if m := <-untagged; m != "notifications/message" {
		t.Errorf("OnNotification got %s", m)
	}
	if err := sub.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for range sub.Events() {
	}
	if err := c.Call(ctx, "ping", nil, nil); err != nil {
		t.Fatal(err)
	}
}

// TestDuplicateID: two requests in flight cannot share an id.
func TestDuplicateID(t *testing.T) {
	c := spawnFake(t, mcpclient.Options{})
	ctx := testCtx(t)
	if _, err := c.Start(ctx, mcpclient.Request{ID: "a", Method: "hold"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Start(ctx, mcpclient.Request{ID: "a", Method: "hold"}); err == nil || !strings.Contains(err.Error(), "already in flight") {
		t.Errorf("error %v, want the duplicate id refused", err)
	}
}

// TestCloseInput: at EOF the server exits, and its exit code is read.
func TestCloseInput(t *testing.T) {
	c := spawnFake(t, mcpclient.Options{})
	if err := c.Call(testCtx(t), "ping", nil, nil); err != nil {
		t.Fatal(err)
	}
	code, exited := c.Process().CloseInput(30 * time.Second)
	if !exited || code != 0 {
		t.Errorf("exit %d, exited %v", code, exited)
	}
}
