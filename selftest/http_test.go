package selftest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agent3md/agent3md/internal/httpd"
	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/mcp"
	"github.com/agent3md/agent3md/router"
	"github.com/agent3md/agent3md/selftest"
)

// agentHandler serves one example agent over stateless HTTP, the way
// agent3md serve does, in the test process.
func agentHandler(t *testing.T, file string) *mcp.Server {
	t.Helper()
	ag, err := loader.Open(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ag.Close() })
	S, err := mcp.NewServer(context.Background(), &mcp.Options{
		Source:  mcp.Loaded(ag),
		Router:  &router.Options{CacheDir: t.TempDir(), NoCache: true},
		Version: "test",
		// cmd supplies the projection behind agent3md://manifest.
		Projection: func(context.Context, *loader.Agent) ([]byte, error) { return []byte(`{"schema":"agent3md/1"}`), nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(S.Close)
	return S
}

// served is an agent behind the serving stack agent3md serve runs:
// internal/httpd (Host and Origin checks, tokens, body bound) around
// mcp's handler, at /mcp.
func served(t *testing.T, file string, tokens ...string) http.Handler {
	t.Helper()
	srv, err := httpd.New(&httpd.Options{Tokens: tokens, Logger: slog.New(slog.DiscardHandler)},
		httpd.Endpoints{Agents: map[string]http.Handler{"agent": agentHandler(t, file).HTTPHandler(nil)}})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// stdioOnlyChecks are skipped over HTTP.
var stdioOnlyChecks = []string{"exit/eof"}

// httpChecks are the checks only an HTTP run performs, in order.
var httpChecks = []string{"http/get", "http/notification", "http/not-json", "http/session-id",
	"http/origin", "http/auth", "http/header-mismatch", "http/status-codes"}

// httpRunChecks is every check of an HTTP run, in order.
var httpRunChecks = append(slices.Clone(allChecks), httpChecks...)

// TestRunOverHTTPOnExamples: every example agent, served as agent3md
// serve serves it, passes every check in both eras.
func TestRunOverHTTPOnExamples(t *testing.T) {
	files, err := filepath.Glob("../examples/*.3md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example agents: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) { runServed(t, served(t, file), nil) })
	}
}

// runServed runs selftest on h at /mcp, without a token, and wants the
// checks in fails to fail, the stdio-only ones and http/auth skipped and
// every other one to pass.
func runServed(t *testing.T, h http.Handler, fails []string) *selftest.Report {
	t.Helper()
	ts := httptest.NewServer(h)
	defer ts.Close()
	rep, err := selftest.Run(context.Background(), &selftest.Options{URL: ts.URL + "/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	rep.WriteText(&text)
	checkRun(t, rep, httpRunChecks, fails, append(stdioOnlyChecks, "http/auth"), text.String())
	return rep
}

// TestRunOverHTTPBareHandler: mcp's handler alone passes every check
// but http/origin: it leaves Origin and Host to internal/httpd.
func TestRunOverHTTPBareHandler(t *testing.T) {
	runServed(t, agentHandler(t, "../examples/devtools.3md").HTTPHandler(nil), []string{"http/origin"})
}

func TestRunOverHTTPSWithToken(t *testing.T) {
	const token = "s3cret-test-token"
	ts := httptest.NewUnstartedServer(served(t, "../examples/support.3md", token))
	// The untrusted-certificate run fails every handshake on purpose.
	ts.Config.ErrorLog = log.New(io.Discard, "", 0)
	ts.StartTLS()
	defer ts.Close()

	t.Run("with the token", func(t *testing.T) {
		rep, err := selftest.Run(context.Background(), &selftest.Options{URL: ts.URL + "/mcp", Token: token, HTTPClient: ts.Client()})
		if err != nil {
			t.Fatal(err)
		}
		var text strings.Builder
		rep.WriteText(&text)
		checkRun(t, rep, httpRunChecks, nil, stdioOnlyChecks, text.String())
		if strings.Contains(text.String(), token) {
			t.Errorf("the report shows the token:\n%s", text.String())
		}
	})
	t.Run("without it", func(t *testing.T) {
		rep, err := selftest.Run(context.Background(), &selftest.Options{URL: ts.URL + "/mcp", HTTPClient: ts.Client()})
		if err != nil {
			t.Fatal(err)
		}
		if rep.OK() || rep.Checks[0].Name != "legacy/initialize" || rep.Checks[0].Status != selftest.StatusFail ||
			!strings.Contains(rep.Checks[0].Detail, "401") || !strings.Contains(rep.Checks[0].Detail, "bearer token") {
			t.Errorf("want legacy/initialize to fail with the 401 and a hint, got %+v", rep.Checks[0])
		}
	})
	t.Run("an untrusted certificate", func(t *testing.T) {
		rep, err := selftest.Run(context.Background(), &selftest.Options{URL: ts.URL + "/mcp", Token: token})
		if err != nil {
			t.Fatal(err)
		}
		if rep.OK() || !strings.Contains(rep.Checks[0].Detail, "certificate") {
			t.Errorf("want legacy/initialize to fail on the certificate, got %+v", rep.Checks[0])
		}
	})
}

// brokenHTTP wraps a correct handler with the faults a stateful or
// careless server has: it answers GET with 200, mints a session id, and
// answers notifications with 200.
func brokenHTTP(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			io.WriteString(w, "hello")
			return
		}
		w.Header().Set("Mcp-Session-Id", "selftest-minted-1")
		body, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(body, &m) == nil && m.Method != "" && m.ID == nil {
			w.WriteHeader(http.StatusOK)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	})
}

func TestRunOverHTTPBrokenServer(t *testing.T) {
	runServed(t, brokenHTTP(agentHandler(t, "../examples/oncall.3md").HTTPHandler(nil)),
		[]string{"http/get", "http/notification", "http/session-id", "http/origin", "http/status-codes"})
}

func TestRunOptionsErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts selftest.Options
		want string
	}{
		{"command and URL", selftest.Options{Command: []string{"x"}, URL: "http://127.0.0.1:1/mcp"}, "test one at a time"},
		{"relative URL", selftest.Options{URL: "/mcp"}, "absolute http:// or https:// URL"},
		{"other scheme", selftest.Options{URL: "ftp://host/mcp"}, "absolute http:// or https:// URL"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := selftest.Run(context.Background(), &tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Run error = %v, want it to say %q", err, tt.want)
			}
		})
	}
}

// statefulLegacy wraps a correct handler as a stateful, handshake-only
// server: initialize mints a session id that every later request must
// carry (400 otherwise), DELETE ends a session, and a 2026-07-28 header
// is refused with a plain-text 400.
type statefulLegacy struct {
	h        http.Handler
	mu       sync.Mutex
	sessions map[string]bool
	n        int
	ended    int
}

func (s *statefulLegacy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := r.Header.Get("Mcp-Session-Id")
	if r.Header.Get("MCP-Protocol-Version") == "2026-07-28" {
		http.Error(w, "Bad Request: unsupported protocol version", http.StatusBadRequest)
		return
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if r.Method == http.MethodPost && bytes.Contains(body, []byte(`"method":"initialize"`)) {
		s.n++
		id = fmt.Sprintf("session-%d", s.n)
		s.sessions[id] = true
		w.Header().Set("Mcp-Session-Id", id)
		s.h.ServeHTTP(w, r)
		return
	}
	if !s.sessions[id] {
		http.Error(w, "Bad Request: no valid session id", http.StatusBadRequest)
		return
	}
	if r.Method == http.MethodDelete {
		delete(s.sessions, id)
		s.ended++
		return
	}
	s.h.ServeHTTP(w, r)
}

// TestRunOverHTTPStatefulServer: a stateful server is driven through its
// sessions (the id echoed, each session ended with DELETE); what a
// stateless server must do fails, and 2026-07-28 is skipped as on stdio.
func TestRunOverHTTPStatefulServer(t *testing.T) {
	s := &statefulLegacy{h: agentHandler(t, "../examples/data.3md").HTTPHandler(nil), sessions: map[string]bool{}}
	ts := httptest.NewServer(s)
	defer ts.Close()
	rep, err := selftest.Run(context.Background(), &selftest.Options{URL: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	rep.WriteText(&text)
	checkRun(t, rep, httpRunChecks, []string{"http/get", "http/notification", "http/session-id", "http/origin"},
		slices.Concat(stdioOnlyChecks, modernChecks, []string{"http/auth", "http/header-mismatch"}), text.String())
	s.mu.Lock()
	defer s.mu.Unlock()
	// Every session but the one http/session-id opens outside the
	// harness's clients is ended.
	if s.ended != s.n-1 || len(s.sessions) != 1 {
		t.Errorf("%d sessions minted, %d ended, %d left; want all but one ended", s.n, s.ended, len(s.sessions))
	}
}

// TestRunOverHTTPUnreachable: a URL nobody answers is a failed run that
// says why, not an error from Run.
func TestRunOverHTTPUnreachable(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	url := ts.URL + "/mcp"
	ts.Close()
	// The password in the URL is never shown.
	withPassword := strings.Replace(url, "http://", "http://user:hunter2@", 1)
	rep, err := selftest.Run(context.Background(), &selftest.Options{URL: withPassword})
	if err != nil {
		t.Fatal(err)
	}
	first := rep.Checks[0]
	if rep.OK() || first.Status != selftest.StatusFail || !strings.Contains(first.Detail, "POST initialize (id 1)") ||
		!strings.Contains(first.Detail, strings.TrimPrefix(url, "http://")) {
		t.Errorf("want legacy/initialize to fail naming the POST and the URL, got %+v", first)
	}
	var text strings.Builder
	rep.WriteText(&text)
	if strings.Contains(text.String(), "hunter2") {
		t.Errorf("the report shows the URL's password:\n%s", text.String())
	}
}

// bigBodies answers a POST body over 1 MiB itself, as a server whose body
// bound is above the oversized-line probe would (or a broken one), and
// passes every other request to h.
func bigBodies(h http.Handler, status int, answer string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if len(body) <= 1<<20 {
			r.Body = io.NopCloser(bytes.NewReader(body))
			h.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, answer)
	})
}

// TestOversizedBodyOverHTTP: probe/oversized-line judges an HTTP server
// by its own body bound, as over stdio: a 4xx refusal, an error, or the
// ping's answer pass; a 5xx or an answer that is no ping's fails.
func TestOversizedBodyOverHTTP(t *testing.T) {
	for _, tt := range []struct {
		name, answer string
		status       int
		fail         bool
		detail       string
	}{
		{"refused", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"too large"}}`, 413, false, "answered 413; a ping still works"},
		{"answered as a ping", `{"jsonrpc":"2.0","id":"selftest-big","result":{}}`, 200, false, "with the ping's answer (the server's body bound is above 4195328 bytes)"},
		{"answered with an error", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"too large"}}`, 200, false, `answered 200 with error -32600 "too large"`},
		{"server error", `oops`, 500, true, "answered 500, want a 4xx refusal"},
		{"not JSON", `oops`, 200, true, "not a JSON-RPC object"},
		{"another id's result", `{"jsonrpc":"2.0","id":3,"result":{}}`, 200, true, "a result for id 3"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var fails []string
			if tt.fail {
				fails = []string{"probe/oversized-line"}
			}
			rep := runServed(t, bigBodies(served(t, "../examples/devtools.3md"), tt.status, tt.answer), fails)
			i := slices.IndexFunc(rep.Checks, func(c selftest.Check) bool { return c.Name == "probe/oversized-line" })
			if !strings.Contains(rep.Checks[i].Detail, tt.detail) {
				t.Errorf("probe/oversized-line detail %q lacks %q", rep.Checks[i].Detail, tt.detail)
			}
		})
	}
}
