package httpd

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agent3md/agent3md/internal/textclip"
)

// Bounds on what a log line repeats from a request: both come from the
// client, and a line must stay a line.
const (
	maxLoggedPath   = 256
	maxLoggedMethod = 128
)

// requestInfo travels in a request's context: the adapter fills in the
// MCP method, the log line reads it.
type requestInfo struct {
	mcpMethod atomic.Pointer[string]
	methods   atomic.Int32 // SetMCPMethod calls: more than one is a batch
	drain     <-chan struct{}
	// streams is the server's stream semaphore and slot the one the
	// request holds (StartStream moves it from one bound to the other).
	streams    chan struct{}
	getStreams *atomic.Int64 // the server's count of GET streams
	slot       slotHolder
	// answers is the answer memory the request holds (ReserveAnswer).
	answers answerHold
	// bodies is the body memory the request holds (readBody).
	bodies answerHold
	// What the RequestRecord says beyond the answer (observe.go), set on
	// the request's goroutine.
	stream    bool
	scraped   bool // a scrape of MetricsPath, served
	rejection Rejection
	auth      AuthFailure
}

type infoKey struct{}

func infoFrom(ctx context.Context) *requestInfo {
	ri, _ := ctx.Value(infoKey{}).(*requestInfo)
	return ri
}

// SetMCPMethod records the JSON-RPC method of the request served with ctx,
// for its log line ("mcp_method"). The MCP adapter calls it once it has
// read the body; on a context not made by this package it does nothing.
func SetMCPMethod(ctx context.Context, method string) {
	if ri := infoFrom(ctx); ri != nil {
		m := loggable(method, maxLoggedMethod)
		ri.mcpMethod.Store(&m)
		ri.methods.Add(1)
	}
}

// Draining returns a channel closed when the server starts shutting down,
// for handlers that hold a stream open (SSE): on it they end the stream
// cleanly, so shutdown does not wait for them. On a context not made by
// this package it returns nil, which never fires.
func Draining(ctx context.Context) <-chan struct{} {
	if ri := infoFrom(ctx); ri != nil {
		return ri.drain
	}
	return nil
}

// ExtendWriteDeadline moves the write deadline of the answer being written
// to d from now (d <= 0 removes it). A streaming handler calls it before
// each event: WriteTimeout bounds one answer, which an open stream would
// otherwise outlive.
func ExtendWriteDeadline(w http.ResponseWriter, d time.Duration) error {
	var t time.Time
	if d > 0 {
		t = time.Now().Add(d)
	}
	return http.NewResponseController(w).SetWriteDeadline(t)
}

// loggable is what a log keeps of a string a client sent: at most n bytes
// (textclip.Bytes), invalid UTF-8 replaced so the line stays one valid
// text.
func loggable(s string, n int) string {
	return strings.ToValidUTF8(textclip.Bytes(s, n), "\uFFFD")
}

// recorder counts what a handler writes and keeps its status.
type recorder struct {
	http.ResponseWriter
	status int
	out    int64
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.out += int64(n)
	return n, err
}

// Flush lets SSE handlers that assert http.Flusher flush through the
// recorder.
func (r *recorder) Flush() {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	http.NewResponseController(r.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection's deadlines.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// countingBody counts the request bytes a handler reads.
type countingBody struct {
	io.ReadCloser
	n int64
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.n += int64(n)
	return n, err
}

// logRequest writes the request's one line. It never logs headers, the
// query string or the body: a token can only come in through those.
func logRequest(l *slog.Logger, level slog.Level, r *http.Request, rec *recorder, in int64, ri *requestInfo, start time.Time) {
	status := rec.status
	if status == 0 {
		status = http.StatusOK // the handler wrote nothing: net/http sends 200
	}
	mcpMethod := ""
	if p := ri.mcpMethod.Load(); p != nil {
		mcpMethod = *p
	}
	l.LogAttrs(context.Background(), level, "http request",
		slog.String("method", r.Method),
		slog.String("path", loggable(r.URL.Path, maxLoggedPath)),
		slog.String("mcp_method", mcpMethod),
		slog.Int("status", status),
		slog.Duration("duration", time.Since(start)),
		slog.Int64("bytes_in", in),
		slog.Int64("bytes_out", rec.out),
		slog.String("remote", r.RemoteAddr),
	)
}
