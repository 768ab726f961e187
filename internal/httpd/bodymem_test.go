package httpd

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// slowBody is a POST whose body is sent in part and then held back, as
// a client that trickles it does.
type slowBody struct {
	conn net.Conn
	resp chan *http.Response // the answer, once the server gives one
	body chan string
}

// startSlowBody sends the headers of a POST of declared bytes and the
// first sent of them.
func startSlowBody(t *testing.T, addr string, declared, sent int) *slowBody {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", declared)
	if _, err := conn.Write([]byte(strings.Repeat("a", sent))); err != nil {
		t.Fatal(err)
	}
	s := &slowBody{conn: conn, resp: make(chan *http.Response, 1), body: make(chan string, 1)}
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			close(s.resp)
			return
		}
		b, _ := io.ReadAll(resp.Body)
		s.resp <- resp
		s.body <- string(b)
	}()
	return s
}

// TestBodyMemory: request bodies draw on one budget, --max-body-memory,
// as their bytes arrive. With room for four 256 KiB bodies, twelve
// clients that each send 200 KiB of one and then hold back the rest: four
// are read (and held), eight are answered 503 with Retry-After and a
// message naming the flag, at once, instead of the server holding all
// twelve. The four finish and are answered; then the budget is empty.
func TestBodyMemory(t *testing.T) {
	const (
		declared = 256 << 10
		sent     = 200 << 10
		clients  = 12
	)
	r := start(t, Options{MaxBodyBytes: declared, MaxBodyMemory: 4 * declared}, oneAgent())
	addr := r.srv.Addr().String()
	var held, refused []*slowBody
	for i := range clients {
		before := r.srv.bodies.inUse()
		s := startSlowBody(t, addr, declared, sent)
		// Wait until the server holds this body whole or has refused it
		// (bounded generously; nothing here is timed).
		deadline := time.Now().Add(20 * time.Second)
		for {
			select {
			case resp, ok := <-s.resp:
				if !ok {
					t.Fatalf("client %d: no answer", i)
				}
				body := <-s.body
				if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
					!strings.Contains(body, "--max-body-memory") {
					t.Fatalf("client %d: %s %q (Retry-After %q), want 503 naming --max-body-memory", i, resp.Status, body, resp.Header.Get("Retry-After"))
				}
				refused = append(refused, s)
			default:
				if r.srv.bodies.inUse()-before < declared && time.Now().Before(deadline) {
					time.Sleep(5 * time.Millisecond)
					continue
				}
				if r.srv.bodies.inUse()-before < declared {
					t.Fatalf("client %d: neither held nor refused after 20s (%d bytes held)", i, r.srv.bodies.inUse())
				}
				held = append(held, s)
			}
			break
		}
	}
	if len(held) != 4 || len(refused) != clients-4 {
		t.Fatalf("%d bodies held and %d refused, want 4 and %d", len(held), len(refused), clients-4)
	}
	if n := r.srv.bodies.inUse(); n > 4*declared {
		t.Fatalf("%d bytes of bodies held, over the %d budget", n, 4*declared)
	}
	for i, s := range held {
		if _, err := s.conn.Write([]byte(strings.Repeat("a", declared-sent))); err != nil {
			t.Fatal(err)
		}
		resp, ok := <-s.resp
		if !ok {
			t.Fatalf("held client %d: no answer", i)
		}
		if body := <-s.body; resp.StatusCode != http.StatusOK || !strings.Contains(body, fmt.Sprintf(`"bytes":%d`, declared)) {
			t.Fatalf("held client %d: %s %q, want 200 with the whole body", i, resp.Status, body)
		}
	}
	for deadline := time.Now().Add(20 * time.Second); r.srv.bodies.inUse() != 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if n := r.srv.bodies.inUse(); n != 0 {
		t.Fatalf("%d bytes of body memory still reserved after every request ended", n)
	}
}

// TestReadAllGrowth: a body is read whole whatever its framing: declared
// or chunked, small or past the first step, or over the limit (limit+1
// bytes, for the caller to refuse); the reservation is the buffer's size.
func TestReadAllGrowth(t *testing.T) {
	for _, tt := range []struct {
		name    string
		n       int
		chunked bool
		limit   int64
		want    int // bytes returned
	}{
		{"declared small", 100, false, 1 << 20, 100},
		{"declared large", 300 << 10, false, 1 << 20, 300 << 10},
		{"chunked small", 100, true, 1 << 20, 100},
		{"chunked large", 300 << 10, true, 1 << 20, 300 << 10},
		{"chunked over the limit", 300 << 10, true, 100 << 10, 100<<10 + 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var body io.Reader = strings.NewReader(strings.Repeat("b", tt.n))
			if tt.chunked {
				body = io.MultiReader(body) // no length known
			}
			req, _ := http.NewRequest(http.MethodPost, "http://x/mcp", body)
			if tt.chunked {
				req.ContentLength = -1
			}
			hold := &answerHold{budget: newAnswerBudget(1 << 30)}
			data, err := readAll(req, tt.limit, hold)
			if err != nil || len(data) != tt.want {
				t.Fatalf("read %d bytes, %v; want %d", len(data), err, tt.want)
			}
			if got := hold.held.Load(); got != int64(cap(data)) {
				t.Errorf("reserved %d bytes for a buffer of %d", got, cap(data))
			}
			if hold.budget.inUse() != hold.held.Load() {
				t.Errorf("budget %d, hold %d", hold.budget.inUse(), hold.held.Load())
			}
		})
	}
	// A budget without room refuses the next step, reserving nothing more.
	req, _ := http.NewRequest(http.MethodPost, "http://x/mcp", strings.NewReader(strings.Repeat("c", 200<<10)))
	hold := &answerHold{budget: newAnswerBudget(100 << 10)}
	if _, err := readAll(req, 1<<20, hold); err != errBodyMemory {
		t.Fatalf("err %v, want errBodyMemory", err)
	}
	if hold.budget.inUse() > 100<<10 {
		t.Errorf("reserved %d past the budget", hold.budget.inUse())
	}
}
