package httpd

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// serveOnly starts a server without start's cleanup, for tests that stop
// it themselves.
func serveOnly(t *testing.T, opts Options, eps Endpoints) (*Server, string, context.CancelFunc, chan error) {
	t.Helper()
	opts.Addr = "127.0.0.1:0"
	opts.Logger = newTestLogger(&syncBuffer{})
	s, err := New(&opts, eps)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	return s, "http://" + s.Addr().String(), cancel, done
}

// post sends one request in the background and delivers its status and
// body (status 0 when the request failed).
func post(url string) <-chan [2]string {
	out := make(chan [2]string, 1)
	go func() {
		resp, err := http.Post(url, "application/json", strings.NewReader(postBody))
		if err != nil {
			out <- [2]string{"0", err.Error()}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		out <- [2]string{resp.Status[:3], string(b)}
	}()
	return out
}

// An in-flight request finishes after shutdown starts; then Serve returns
// nil and the port is closed.
func TestGracefulShutdownFinishesInFlight(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
		w.Write([]byte("finished"))
	})
	s, url, cancel, done := serveOnly(t, Options{}, Endpoints{Agents: map[string]http.Handler{"a": slow}})
	got := post(url + "/mcp")
	<-started
	cancel()
	<-s.drain // shutdown has begun
	close(release)
	if r := <-got; r[0] != "200" || r[1] != "finished" {
		t.Fatalf("in-flight request got %v, want 200 finished", r)
	}
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://")); err == nil {
		c.Close()
		t.Fatal("the port still accepts connections after Serve returned")
	}
}

// A stream watching Draining ends by itself, so shutdown does not wait for
// ShutdownTimeout; /healthz says 503 meanwhile.
func TestDrainingEndsStreams(t *testing.T) {
	var s *Server
	started := make(chan struct{})
	var health int
	stream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, ": open\n\n")
		http.NewResponseController(w).Flush()
		close(started)
		<-Draining(r.Context())
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
		health = rec.Code
		io.WriteString(w, "event: close\ndata: {}\n\n")
	})
	var url string
	var cancel context.CancelFunc
	var done chan error
	s, url, cancel, done = serveOnly(t, Options{ShutdownTimeout: time.Hour}, Endpoints{Agents: map[string]http.Handler{"a": stream}})
	got := post(url + "/mcp")
	<-started
	cancel()
	r := <-got
	if r[0] != "200" || !strings.Contains(r[1], "event: close") {
		t.Fatalf("stream got %v, want its closing event", r)
	}
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if health != http.StatusServiceUnavailable {
		t.Fatalf("/healthz while draining = %d, want 503", health)
	}
}

// A handler that ignores Draining is cut off after ShutdownTimeout, and
// Serve says so.
func TestShutdownTimeoutCutsOff(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	var once sync.Once
	stuck := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(started) })
		<-release
	})
	_, url, cancel, done := serveOnly(t, Options{ShutdownTimeout: 10 * time.Millisecond}, Endpoints{Agents: map[string]http.Handler{"a": stuck}})
	got := post(url + "/mcp")
	<-started
	cancel()
	err := <-done
	if err == nil || !strings.Contains(err.Error(), "cut off") {
		t.Fatalf("Serve: %v, want a cut-off error", err)
	}
	if r := <-got; r[0] != "0" {
		t.Fatalf("stuck request got %v, want a broken connection", r)
	}
}

func TestDrainingOutsideServer(t *testing.T) {
	if Draining(context.Background()) != nil {
		t.Fatal("Draining on a foreign context is not nil")
	}
	SetMCPMethod(context.Background(), "x") // must not panic
}
