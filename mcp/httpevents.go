package mcp

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"
)

// The handshake-era GET stream of Streamable HTTP (docs/protocol.md §12):
// a client of revisions 2025-03-26 to 2025-11-25 MAY GET the endpoint with
// Accept: text/event-stream to hear what the server sends outside its
// requests. Here that is the change stream of changestreams.go: after each
// reload, the list_changed of every list the agent declares listChanged
// for, plus ":" keep-alive comments. No session is minted: every stream
// stands alone, on whichever replica the load balancer picked.
//
// Event ids carry the version they announce (changestreams.go eventID).
// A client that reconnects sends the last one as Last-Event-ID; if the
// version in force is another (a reload, or a new replica serving newer
// files, while it was away), it is told at once. 2025-11-25 clients get a
// first, empty "priming" event with an id, as that revision recommends, so
// even one that never heard of a reload reconnects with the version it
// started on; earlier revisions' clients, some of which fail on an event
// without data, get none.

// Headers of the GET stream.
const (
	headerLastEventID = "Last-Event-ID"
	eventStreamType   = "text/event-stream"
)

// changeStreamRetry is the reconnection delay a stream the server ends
// (shutdown, the agent closed) asks for in its last field: a restarted
// server, or the load balancer's next replica, is usually there by then.
const changeStreamRetry = 2 * time.Second

// serveGet answers a GET: the change stream, or why not.
func (h *httpHandler) serveGet(w http.ResponseWriter, r *http.Request) {
	status, line := h.getRefusal(r)
	if line != nil {
		if status == http.StatusMethodNotAllowed {
			w.Header().Set("Allow", http.MethodPost)
		}
		writeLine(w, status, line)
		return
	}
	h.changeStream(w, r)
}

// getRefusal says why a GET opens no change stream (its status and
// JSON-RPC error), or nil when it does. Only a handshake-era client gets
// one: a 2026-07-28 client (its revision in MCP-Protocol-Version, or its
// Mcp-Method header) hears of changes through subscriptions/listen, and
// that revision wants GET refused with 405.
func (h *httpHandler) getRefusal(r *http.Request) (int, []byte) {
	refuse := func(msg string) (int, []byte) {
		return http.StatusMethodNotAllowed, errorLine(nil, codeInvalidRequest, "Method not allowed: "+msg, nil)
	}
	if !acceptsEventStream(r.Header.Values("Accept")) {
		return refuse("a GET opens an event stream of change notifications only with Accept: text/event-stream; send requests with POST")
	}
	hv := strings.TrimSpace(r.Header.Get(headerProtocolVersion))
	if hv != "" && !supported(hv) {
		return http.StatusBadRequest, errorLine(nil, codeUnsupportedProtocol, "Unsupported protocol version: "+hv+" (header "+headerProtocolVersion+")",
			map[string]any{"supported": supportedVersions, "requested": hv})
	}
	if modern := hv != "" && negotiate(hv) != hv; modern || r.Header.Get(headerMethod) != "" {
		return refuse("a 2026-07-28 client hears of changes through subscriptions/listen (a POST); that revision opens no stream on GET")
	}
	if !h.S.srv.watching() {
		return refuse("this agent is not watched for changes (agent3md serve --no-watch), so a GET stream would never carry an event; send requests with POST")
	}
	return 0, nil
}

// acceptsEventStream reports whether Accept lists text/event-stream.
func acceptsEventStream(accept []string) bool {
	for _, v := range accept {
		for _, part := range strings.Split(v, ",") {
			mt, _, _ := strings.Cut(part, ";")
			if strings.EqualFold(strings.TrimSpace(mt), eventStreamType) {
				return true
			}
		}
	}
	return false
}

// changeStream holds a GET open as an event stream until the client
// leaves, the HTTP server drains or the agent closes; a write that fails
// (a client that stopped reading, past the write deadline) drops it.
func (h *httpHandler) changeStream(w http.ResponseWriter, r *http.Request) {
	if h.o.OnStream != nil && !h.o.OnStream(w, r) {
		return // answered (503: too many streams)
	}
	s := h.S.srv
	// Registered before the headers go out: a client that has its answer
	// hears of every reload from then on.
	cs := s.changes.add()
	if cs == nil {
		w.Header().Set("Retry-After", "1")
		writeJSONError(w, http.StatusServiceUnavailable, codeInternalError, "Service unavailable: the agent is closing; reconnect shortly")
		return
	}
	defer s.changes.remove(cs)
	cw := &changeWriter{w: w, rc: http.NewResponseController(w), bound: 2*h.o.KeepAlive + 10*time.Second,
		nonce: fmt.Sprintf("%08x", rand.Uint32())}
	tag := s.versionTag()
	hdr := w.Header()
	hdr.Set("Content-Type", eventStreamType)
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	// A client of 2025-11-25 handles events without data; earlier ones may
	// not (docs/protocol.md §12).
	var first []byte
	if hv := strings.TrimSpace(r.Header.Get(headerProtocolVersion)); hv >= version20251125 {
		first = cw.event(first, tag, nil)
	}
	if cw.send(first) != nil {
		return
	}
	if missedReload(r.Header.Get(headerLastEventID), tag) {
		cs.poke()
	}
	var drain <-chan struct{}
	if h.o.Draining != nil {
		drain = h.o.Draining(r.Context())
	}
	tick := time.NewTicker(h.o.KeepAlive)
	defer tick.Stop()
	for {
		var err error
		select {
		case <-r.Context().Done():
			return
		case <-drain:
			cw.end()
			return
		case <-cs.done:
			cw.end()
			return
		case <-cs.changed:
			err = cw.changed(s)
		case <-tick.C:
			err = cw.send([]byte(": keep-alive\n\n"))
		}
		if err != nil {
			return
		}
	}
}

// changeWriter writes one change stream; only its handler's goroutine
// uses it.
type changeWriter struct {
	w     http.ResponseWriter
	rc    *http.ResponseController
	bound time.Duration // write deadline, from each write
	nonce string
	seq   uint64
	buf   []byte
}

// event appends one event with a fresh id to b: a JSON-RPC message, or
// with line nil the empty priming event.
func (cw *changeWriter) event(b []byte, tag string, line []byte) []byte {
	cw.seq++
	b = append(b, "id: "...)
	b = append(b, eventID(tag, cw.nonce, cw.seq)...)
	if line == nil {
		return append(b, "\ndata: \n\n"...)
	}
	b = append(b, "\nevent: message\ndata: "...)
	b = append(b, line...)
	return append(b, "\n\n"...)
}

// send writes b and flushes it, within the write deadline. A failed
// write is the stream's end.
func (cw *changeWriter) send(b []byte) error {
	_ = cw.rc.SetWriteDeadline(time.Now().Add(cw.bound))
	if len(b) > 0 {
		if _, err := cw.w.Write(b); err != nil {
			return err
		}
	}
	if err := cw.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}

// changed announces the version now in force: every list_changed the
// agent declares, each with its id.
func (cw *changeWriter) changed(s *server) error {
	tag := s.versionTag()
	b := cw.buf[:0]
	for _, method := range s.listChangedMethods() {
		line, err := notificationLine(method, nil)
		if err != nil {
			return err
		}
		b = cw.event(b, tag, line)
	}
	cw.buf = b
	return cw.send(b)
}

// end asks the client to reconnect after changeStreamRetry, and returns:
// the server is going away, not the stream's events.
func (cw *changeWriter) end() {
	_ = cw.send([]byte(fmt.Sprintf("retry: %d\n\n", changeStreamRetry.Milliseconds())))
}
