package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// The Streamable HTTP transport, stateless (docs/protocol.md §12): one
// POST carries one JSON-RPC message and gets its answer, as JSON or, when
// the request streams (subscriptions/listen, or a request with a progress
// token from a client that accepts event streams), as an SSE stream of
// its notifications and then its answer. A handshake-era client's GET
// opens a stream of change notifications (httpevents.go). No session id
// is ever minted or required. Authentication, Origin and Host checks, body and concurrency
// limits are the HTTP server's (cmd's serve, internal/httpd); this adapter
// only speaks MCP over what reaches it.

// HTTPOptions configures HTTPHandler.
type HTTPOptions struct {
	// MaxBodyBytes bounds one POST body (default DefaultMaxLineBytes).
	MaxBodyBytes int64
	// MaxBatchAnswerBytes bounds the answers of one 2025-03-26 batch,
	// which are sent as one array (default: the server's bound on one
	// answer, Options.MaxAnswerBytes, as on stdio); past it the remaining
	// requests get a short error each (batch.go).
	MaxBatchAnswerBytes int64
	// ReserveAnswer, when set, is asked for n bytes of the server's memory
	// for answers being written before an answer is held for writing (a
	// batch asks as its array grows), and keeps them until the request
	// ends; serve passes httpd.ReserveAnswer. When it reports false it has
	// answered 503 itself, unless w is nil (a stream, whose status is
	// sent: the answer becomes an error event), and the request ends.
	ReserveAnswer func(w http.ResponseWriter, r *http.Request, n int64) bool
	// KeepAlive is the interval of the comments that keep an open event
	// stream alive through proxies (default 15 s).
	KeepAlive time.Duration
	// OnMethod, when set, is told each request's MCP method (for the
	// server's request log).
	OnMethod func(r *http.Request, method string)
	// OnStream, when set, is called before a request becomes a stream
	// held open for as long as the client stays (subscriptions/listen, or
	// a handshake-era client's GET stream), so the HTTP server can count
	// it apart from requests and bound it (serve passes
	// httpd.StartStream). When it reports false it has answered the
	// request itself, and the stream is not opened. Without it nothing
	// bounds the number of open streams.
	OnStream func(w http.ResponseWriter, r *http.Request) bool
	// Draining, when set, returns a channel closed when the HTTP server
	// starts shutting down (serve passes httpd.Draining): open GET streams
	// then end at once, asking their clients to reconnect shortly, so the
	// shutdown does not wait for them. They also end when the Server is
	// closed.
	Draining func(ctx context.Context) <-chan struct{}
}

// HTTP header names (matched case-insensitively by net/http).
const (
	headerProtocolVersion = "MCP-Protocol-Version"
	headerMethod          = "Mcp-Method"
	headerName            = "Mcp-Name"
	codeHeaderMismatch    = -32020
)

// HTTPHandler serves the core over stateless Streamable HTTP.
func (S *Server) HTTPHandler(opts *HTTPOptions) http.Handler {
	o := HTTPOptions{}
	if opts != nil {
		o = *opts
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxLineBytes
	}
	if o.MaxBatchAnswerBytes <= 0 {
		o.MaxBatchAnswerBytes = int64(S.srv.maxAnswerBytes())
	}
	if o.KeepAlive <= 0 {
		o.KeepAlive = 15 * time.Second
	}
	return &httpHandler{S: S, o: o}
}

type httpHandler struct {
	S *Server
	o HTTPOptions
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		h.serveGet(w, r)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeJSONError(w, http.StatusMethodNotAllowed, codeInvalidRequest,
			fmt.Sprintf("Method not allowed: this endpoint takes POST (one JSON-RPC message); %s is not served, since the server is stateless", r.Method))
		return
	}
	body, err := readBody(r, h.o.MaxBodyBytes)
	if err != nil {
		writeJSONError(w, http.StatusBadRequest, codeParseError, "Parse error: reading the request body: "+err.Error())
		return
	}
	if int64(len(body)) > h.o.MaxBodyBytes {
		writeJSONError(w, http.StatusRequestEntityTooLarge, codeInvalidRequest,
			fmt.Sprintf("Invalid Request: the body passes the %d-byte bound (agent3md serve raises it with --max-body-bytes)", h.o.MaxBodyBytes))
		return
	}
	hv := strings.TrimSpace(r.Header.Get(headerProtocolVersion))
	if trimmed := bytes.TrimSpace(body); len(trimmed) > 0 && trimmed[0] == '[' {
		h.batch(w, r, trimmed, hv)
		return
	}
	pk, ok := peek(body)
	method, isRequest := pk.method, pk.request
	if h.o.OnMethod != nil && method != "" {
		h.o.OnMethod(r, method)
	}
	if ok && isRequest {
		if line, status := h.checkHeaders(r, &pk, hv); line != nil {
			writeLine(w, status, line)
			return
		}
	}
	x := &Exchange{Body: body, ProtocolVersion: hv, ChangeEvents: true}
	if !ok || !isRequest {
		rep := h.S.exchange(r.Context(), x, &pk)
		if rep.Line != nil { // a malformed message
			writeLine(w, statusFor(rep, true), rep.Line)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if h.streams(r, &pk) {
		h.stream(w, r, x, &pk)
		return
	}
	rep := h.S.exchange(r.Context(), x, &pk)
	if rep.Line == nil {
		return // the client went away
	}
	if h.o.ReserveAnswer != nil && !h.o.ReserveAnswer(w, r, int64(len(rep.Line))) {
		return // answered 503
	}
	writeLine(w, statusFor(rep, rep.Modern), rep.Line)
}

// readBody reads the POST body, at most max+1 bytes (so a longer one is
// seen). A body the HTTP server has already read whole (httpd hands over
// one with a TakeBytes method) is taken over rather than copied: a 4 MiB
// batch is then held once, not twice, and only while this handler still
// uses it, not while a slow client reads the answer.
func readBody(r *http.Request, max int64) ([]byte, error) {
	if b, ok := r.Body.(interface{ TakeBytes() []byte }); ok {
		return b.TakeBytes(), nil
	}
	return io.ReadAll(io.LimitReader(r.Body, max+1))
}

// checkHeaders applies the transport's header rules before the request is
// served: a header revision the server does not speak is -32022; a
// 2026-07-28 request (its _meta, or its header) must carry the required
// _meta keys first, then headers that agree with its body (-32020).
func (h *httpHandler) checkHeaders(r *http.Request, pk *peeked, hv string) ([]byte, int) {
	id, method, name, modern := pk.msg.rawID, pk.method, pk.name, pk.modern
	if hv != "" && !supported(hv) {
		return errorLine(id, codeUnsupportedProtocol, "Unsupported protocol version: "+hv+" (header "+headerProtocolVersion+")",
			map[string]any{"supported": supportedVersions, "requested": hv}), http.StatusBadRequest
	}
	if !modern && hv != version20260728 {
		return nil, 0
	}
	params := pk.params
	meta := decodeMeta(params)
	if !modern {
		return errorLine(id, codeInvalidParams, fmt.Sprintf("Invalid params: params._meta[%q] is required on a %s request", metaProtocolVersion, version20260728), nil), http.StatusBadRequest
	}
	if _, err := modernCall(method, params, meta); err != nil {
		if we := toWire(err); we.Code == codeInvalidParams {
			return appendAnswer(nil, id, nil, err), http.StatusBadRequest
		}
	}
	var metaVersion string
	_ = json.Unmarshal(meta[metaProtocolVersion], &metaVersion)
	mismatch := func(header, want string) ([]byte, int) {
		return errorLine(id, codeHeaderMismatch, fmt.Sprintf("Header mismatch: %s must be %q, as in the body", header, want), nil), http.StatusBadRequest
	}
	if hv != metaVersion {
		return mismatch(headerProtocolVersion, metaVersion)
	}
	if headerValue(r, headerMethod) != method {
		return mismatch(headerMethod, method)
	}
	switch method {
	case methodToolsCall, methodPromptsGet, methodResourcesRead:
		if headerValue(r, headerName) != name {
			return mismatch(headerName, name)
		}
	}
	return nil, 0
}

// headerValue is a header trimmed, with an =?base64?…?= value decoded.
func headerValue(r *http.Request, key string) string {
	v := strings.TrimSpace(r.Header.Get(key))
	if inner, ok := strings.CutPrefix(v, "=?base64?"); ok {
		if inner, ok = strings.CutSuffix(inner, "?="); ok {
			if b, err := base64.StdEncoding.DecodeString(inner); err == nil {
				return string(b)
			}
		}
	}
	return v
}

func supported(v string) bool {
	for _, s := range supportedVersions {
		if s == v {
			return true
		}
	}
	return false
}

// streams reports whether a request is answered as an event stream: a
// 2026-07-28 listen always (a handshake-era one is an unknown method,
// answered as JSON); any request with a progress token when the client
// accepts event streams.
func (h *httpHandler) streams(r *http.Request, pk *peeked) bool {
	if pk.method == methodListen {
		return pk.modern
	}
	if !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		return false
	}
	_, ok := decodeMeta(pk.params)["progressToken"]
	return ok
}

// stream serves a request as SSE: each notification an event, then the
// answer, with keep-alive comments while it runs.
func (h *httpHandler) stream(w http.ResponseWriter, r *http.Request, x *Exchange, pk *peeked) {
	if pk.method == methodListen && h.o.OnStream != nil && !h.o.OnStream(w, r) {
		return
	}
	rc := http.NewResponseController(w)
	// A stream lives as long as its request: each event pushes the write
	// deadline (the HTTP server's per-answer bound) past the next
	// keep-alive, so only a stalled client is cut off.
	es := &eventStream{w: w, extend: func() { _ = rc.SetWriteDeadline(time.Now().Add(2*h.o.KeepAlive + 10*time.Second)) }}
	es.extend()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	es.flush()
	x.Notify = es.send
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(h.o.KeepAlive)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if !es.keepAlive() {
					return
				}
			}
		}
	}()
	rep := h.S.exchange(r.Context(), x, pk)
	close(done)
	if rep.Line != nil && h.o.ReserveAnswer != nil && !h.o.ReserveAnswer(nil, r, int64(len(rep.Line))) {
		// The status is sent: the answer the memory could not hold
		// becomes an error the client can retry on.
		rep.Line = errorLine(pk.msg.rawID, codeInternalError, "Service unavailable: the server's memory for answers being sent is in use (agent3md serve --max-answer-memory); retry shortly", nil)
	}
	es.end(rep.Line)
}

// eventStream writes one request's event stream. Its writes are
// serialized, and once end has written the answer nothing more is
// written: a notification sent later (a reload announced while the
// request returned) must not follow the answer, nor reach a
// ResponseWriter whose handler has returned.
type eventStream struct {
	w      http.ResponseWriter
	extend func() // pushes the write deadline on
	mu     sync.Mutex
	ended  bool
}

func (e *eventStream) flush() {
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

// send writes one message as an event, unless the stream has ended.
func (e *eventStream) send(line []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.ended {
		e.event(line)
	}
}

func (e *eventStream) event(line []byte) {
	e.extend()
	fmt.Fprintf(e.w, "event: message\ndata: %s\n\n", line)
	e.flush()
}

// keepAlive writes a comment; false once the stream has ended.
func (e *eventStream) keepAlive() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ended {
		return false
	}
	e.extend()
	io.WriteString(e.w, ": keep-alive\n\n")
	e.flush()
	return true
}

// end writes the answer (nil: none, the client went away) as the last
// event.
func (e *eventStream) end(answer []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ended = true
	if answer != nil {
		e.event(answer)
	}
}

// statusFor maps an answer to its HTTP status: 2026-07-28 requests get
// 400 for the errors the revision puts on the transport and 404 for an
// unknown method; handshake-era answers are 200 whatever their error
// (their clients take 404 for a lost session), except messages that are
// not JSON-RPC at all.
func statusFor(rep Reply, modern bool) int {
	switch rep.Code {
	case codeParseError, codeInvalidRequest:
		return http.StatusBadRequest
	}
	if !modern {
		return http.StatusOK
	}
	switch rep.Code {
	case codeInvalidParams, codeHeaderMismatch, codeUnsupportedProtocol, -32021:
		return http.StatusBadRequest
	case codeMethodNotFound:
		return http.StatusNotFound
	}
	return http.StatusOK
}

func writeLine(w http.ResponseWriter, status int, line []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(line)
	w.Write([]byte{'\n'})
}

func writeJSONError(w http.ResponseWriter, status int, code int64, msg string) {
	writeLine(w, status, errorLine(nil, code, msg, nil))
}
