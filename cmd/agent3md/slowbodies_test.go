package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent3md/agent3md/internal/httpd"
)

// slowBodyRSSCeiling is the peak RSS 64 slow 4 MiB bodies may cost the
// server: its idle 25 MB, the 64 MiB body budget, and the garbage of the
// buffers that grew (issue 29 measured 283 MB before the budget).
const slowBodyRSSCeiling = 200 << 20

// TestSlowBodiesHTTP: 64 clients each declare a 4 MiB body, send all but
// its last 64 KiB and hold back the rest, against `agent3md serve` with
// its defaults. The bodies draw on --max-body-memory (64 MiB): those that
// do not fit are answered 503 with Retry-After naming the flag at once,
// the server's peak RSS stays under slowBodyRSSCeiling, and once the
// clients go an ordinary request is answered. -bounds.bin runs it against
// another build (see TestBatchAttackHTTP); skipped with -short.
func TestSlowBodiesHTTP(t *testing.T) {
	const (
		clients  = 64
		declared = 4 << 20
		sent     = declared - 64<<10
	)
	fit := int(httpd.DefaultMaxBodyMemory / declared) // bodies the budget holds whole
	s := startBoundsServe(t)
	body := []byte(strings.Repeat("a", sent))
	var (
		mu       sync.Mutex
		answered int
		bad      []string
		conns    []net.Conn
	)
	got := make(chan struct{}, clients)
	for range clients {
		c, err := net.Dial("tcp", s.addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		go func() {
			fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n", s.addr, declared)
			c.Write(body) // and hold back the rest
		}()
		go func() {
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				return // closed at the end
			}
			b, _ := io.ReadAll(resp.Body)
			mu.Lock()
			answered++
			if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(b), "--max-body-memory") {
				bad = append(bad, fmt.Sprintf("%s %.200s", resp.Status, b))
			}
			mu.Unlock()
			got <- struct{}{}
		}()
	}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	// Wait for the refusals (bounded generously; an old build never
	// answers, and is then measured holding every body).
	deadline := time.After(30 * time.Second)
	for n := 0; n < clients-fit; n++ {
		select {
		case <-got:
		case <-deadline:
			n = clients
		}
	}
	hwm, err := procKB(s.cmd.Process.Pid, "VmHWM")
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	t.Logf("%d clients holding back the end of a %d-byte body: %d answered 503 (at least %d expected), peak RSS %d MB", clients, declared, answered, clients-fit, hwm>>10)
	if answered < clients-fit || len(bad) > 0 {
		t.Errorf("%d of %d answered, want at least %d, each 503 with Retry-After naming --max-body-memory; wrong answers: %q", answered, clients, clients-fit, bad)
	}
	mu.Unlock()
	if hwm<<10 > slowBodyRSSCeiling {
		t.Errorf("peak RSS %d MB, over %d MB", hwm>>10, slowBodyRSSCeiling>>20)
	}
	for _, c := range conns {
		c.Close()
	}
	// The held bodies' memory comes back as the server sees each of their
	// connections close, which a loaded machine can take a moment to do:
	// a later request is served once it has (a 30 s hang guard).
	url := "http://" + s.addr + "/mcp"
	for stop := time.Now().Add(30 * time.Second); time.Now().Before(stop); time.Sleep(50 * time.Millisecond) {
		if status, _, _, err := postBytes(url, []byte(`{"jsonrpc":"2.0","id":"probe","method":"ping"}`)); err == nil && status == http.StatusOK {
			break
		}
	}
	checkLaterRequest(t, url)
}
