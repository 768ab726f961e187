package httpd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/internal/testkit"
)

// Tokens used by the tests: long enough for minTokenBytes.
const (
	tokA = "alpha-0123456789abcdef"
	tokB = "bravo-0123456789abcdef"
)

// syncBuffer is a buffer a logger or command writes while the test
// reads it (testkit.SyncBuffer).
type syncBuffer = testkit.SyncBuffer

// echo is an endpoint that names itself, records the MCP method it was
// asked for (a stand-in for the adapter) and says how many body bytes it
// got.
func echo(name string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet || r.Method == http.MethodDelete {
			MethodNotAllowed(w, http.MethodPost)
			return
		}
		SetMCPMethod(r.Context(), "tools/list")
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		fmt.Fprintf(w, `{"agent":%q,"bytes":%d}`, name, len(b))
	})
}

// oneAgent serves echo("ada") at /mcp/ada and /mcp.
func oneAgent() Endpoints {
	return Endpoints{Agents: map[string]http.Handler{"ada": echo("ada")}}
}

// running is a Server serving on 127.0.0.1:0 for one test.
type running struct {
	srv    *Server
	url    string // scheme://127.0.0.1:port
	log    *syncBuffer
	cancel context.CancelFunc
	done   chan error // Serve's result
}

// start serves eps with opts (Addr and Logger filled in) until the test
// ends.
func start(t *testing.T, opts Options, eps Endpoints) *running {
	t.Helper()
	buf := &syncBuffer{}
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	opts.Logger = newTestLogger(buf)
	srv, err := New(&opts, eps)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if err := srv.Listen(); err != nil {
		t.Fatalf("Listen: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{srv: srv, log: buf, cancel: cancel, done: make(chan error, 1)}
	scheme := "http"
	if opts.TLSCert != "" {
		scheme = "https"
	}
	r.url = scheme + "://" + srv.Addr().String()
	go func() { r.done <- srv.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-r.done; err != nil && !errors.Is(err, context.Canceled) {
			t.Logf("Serve: %v", err)
		}
	})
	return r
}

// req describes one request of a table.
type req struct {
	method  string
	path    string
	body    string
	headers map[string]string
	host    string
}

func (r *running) do(t *testing.T, c *http.Client, q req) (*http.Response, string) {
	t.Helper()
	if q.method == "" {
		q.method = http.MethodPost
	}
	var body io.Reader
	if q.body != "" {
		body = strings.NewReader(q.body)
	}
	hr, err := http.NewRequest(q.method, r.url+q.path, body)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range q.headers {
		hr.Header.Set(k, v)
	}
	if q.host != "" {
		hr.Host = q.host
	}
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(hr)
	if err != nil {
		t.Fatalf("%s %s: %v", q.method, q.path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// writeFile writes data to a new file in the test's temp dir.
func writeFile(t *testing.T, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func newTestLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
