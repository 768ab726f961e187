package selftest_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/internal/httpd"
	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/mcp"
	"github.com/agent3md/agent3md/router"
	"github.com/agent3md/agent3md/selftest"
)

// http/get judges any server: a GET with Accept: text/event-stream is
// refused with 405 or answered with a well-formed event stream of
// JSON-RPC requests and notifications (docs/selftest.md §7).

// getDetail is the detail of the run's http/get check.
func getDetail(t *testing.T, rep *selftest.Report) string {
	t.Helper()
	for _, c := range rep.Checks {
		if c.Name == "http/get" {
			return c.Detail
		}
	}
	t.Fatal("no http/get check in the report")
	return ""
}

// TestRunOverHTTPWatchedAgent: agent3md serve's stack on a watched agent,
// whose GET opens the stream of change notifications: every check
// passes, http/get on the stream.
func TestRunOverHTTPWatchedAgent(t *testing.T) {
	src, err := os.ReadFile("../examples/devtools.3md")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "devtools.3md")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	open := func(context.Context) (*loader.Agent, error) { return loader.Open(path, nil) }
	source := mcp.Opener(open, nil)
	source.Changes = mcp.Signals(make(chan struct{}), open)
	S, err := mcp.NewServer(context.Background(), &mcp.Options{Source: source,
		Router: &router.Options{CacheDir: t.TempDir(), NoCache: true}, Version: "test",
		Projection: func(context.Context, *loader.Agent) ([]byte, error) { return []byte(`{"schema":"agent3md/1"}`), nil }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(S.Close)
	srv, err := httpd.New(&httpd.Options{Logger: slog.New(slog.DiscardHandler)}, httpd.Endpoints{Agents: map[string]http.Handler{
		"agent": S.HTTPHandler(&mcp.HTTPOptions{OnStream: httpd.StartStream, Draining: httpd.Draining})}})
	if err != nil {
		t.Fatal(err)
	}
	rep := runServed(t, srv, nil)
	if d := getDetail(t, rep); !strings.Contains(d, "GET opens an event stream") {
		t.Errorf("http/get: %q, want it to have judged the GET stream", d)
	}
}

// withGet serves GET requests that accept event streams with get, the
// rest with h.
func withGet(h http.Handler, get http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
			get(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// stream answers a GET with an event stream of body; hold keeps it open
// until the client leaves.
func stream(body string, hold bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
		w.(http.Flusher).Flush()
		if hold {
			<-r.Context().Done()
		}
	}
}

func TestHTTPGetJudged(t *testing.T) {
	for _, tt := range []struct {
		name string
		get  http.HandlerFunc
		fail bool
		want string
	}{
		{"priming then a notification", stream("id: 1\ndata: \n\nid: 2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n", true),
			false, "GET opens an event stream"},
		{"a keep-alive", stream(": keep-alive\n\n", true), false, "its first block read: 0 events, 1 comments"},
		{"silent until the window ends", stream("", true), false, "0 events, 0 comments"},
		{"ended by the server", stream("retry: 2000\n\n", false), false, "GET opens an event stream"},
		{"a request split over data lines", stream("data: {\"jsonrpc\":\"2.0\",\ndata: \"id\":1,\"method\":\"ping\"}\n\n", true), false, "1 events"},
		{"a response", stream("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n", true), true, "carries a response"},
		{"not JSON-RPC", stream("data: hello\n\n", true), true, "not a JSON-RPC message"},
		{"a bad retry", stream("retry: soon\n\n", true), true, "retry field"},
		{"plain text", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello") }, true, `Content-Type "text/plain`},
		{"404", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }, true, "answered 404"},
		{"405 without Allow", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(405) }, true, "want it to name POST"},
		{"a 2026-07-28 GET streamed", func(w http.ResponseWriter, r *http.Request) { stream(": keep-alive\n\n", true)(w, r) }, true, "a 2026-07-28 GET answered 200"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			get := tt.get
			if !strings.Contains(tt.name, "2026-07-28") {
				// The server offers 2026-07-28 and refuses its GET, as it
				// must; only the handshake-era GET is the case's.
				get = func(w http.ResponseWriter, r *http.Request) {
					if r.Header.Get("MCP-Protocol-Version") == "2026-07-28" {
						w.Header().Set("Allow", "POST")
						w.WriteHeader(405)
						return
					}
					tt.get(w, r)
				}
			}
			var fails []string
			if tt.fail {
				fails = []string{"http/get"}
			}
			h := withGet(agentHandler(t, "../examples/devtools.3md").HTTPHandler(nil), get)
			rep := runServed(t, h, append(fails, "http/origin"))
			if d := getDetail(t, rep); !strings.Contains(d, tt.want) {
				t.Errorf("http/get: %q, want it to say %q", d, tt.want)
			}
		})
	}
}
