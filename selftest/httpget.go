package selftest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/agent3md/agent3md/internal/textclip"
	"github.com/agent3md/agent3md/mcpclient"
)

// http/get (docs/selftest.md §7): what a server does with GET and DELETE
// on its endpoint. A handshake-era client MAY GET the endpoint with
// Accept: text/event-stream to hear what the server sends outside its
// requests; the server either refuses with 405 or answers an event
// stream. Either is correct, so a stream is judged by what it carries in
// its first moments. DELETE ends a session, and a server that mints none
// has nothing to end: 405. A 2026-07-28 GET is 405 (that revision has no
// GET stream) from a server that offers the revision.

// streamWindow is how long the check reads a GET stream: a stream may
// stay silent until its first keep-alive, so what it sent by then is
// judged, not its silence.
const streamWindow = time.Second

// checkHTTPGet runs the GETs and DELETE and reports what each got.
func (r *runner) checkHTTPGet() outcome {
	a, err := r.raw(http.MethodDelete, nil, r.o.Token, r.legacyHeader())
	if err != nil {
		return fail("%v", err)
	}
	if problem := refused405(a); problem != "" {
		return fail("DELETE %s (a server without sessions has none to end)", problem)
	}
	if r.modernOffered {
		a, err := r.rawGet(map[string]string{mcpclient.HeaderProtocolVersion: modernRev})
		if err != nil {
			return fail("%v", err)
		}
		if problem := refused405(a.rawAnswer); problem != "" {
			return fail("a %s GET %s (that revision opens no stream on GET)", modernRev, problem)
		}
	}
	g, err := r.rawGet(r.legacyHeader())
	if err != nil {
		return fail("%v", err)
	}
	if g.status != http.StatusOK {
		if problem := refused405(g.rawAnswer); problem != "" {
			return fail("a %s GET with Accept: text/event-stream %s, or 200 with an event stream", r.negotiated(), problem)
		}
		return pass("DELETE and GET answer 405 with Allow: POST (no GET stream)")
	}
	if problem := g.judge(); problem != "" {
		return fail("a %s GET answered 200, %s", r.negotiated(), problem)
	}
	return pass("DELETE answers 405; GET opens an event stream (%s)", g.summary())
}

// refused405 says what is wrong with a refusal that should be 405 with
// Allow naming POST; "" when it is one.
func refused405(a *rawAnswer) string {
	if a.status != http.StatusMethodNotAllowed {
		return fmt.Sprintf("answered %d%s, want 405 Method Not Allowed", a.status, bodyNote(a.body))
	}
	if !allowsPost(a.header) {
		return fmt.Sprintf("answered 405 with Allow %q, want it to name POST", a.header.Values("Allow"))
	}
	return ""
}

// streamAnswer is a GET's answer: a refusal's body, or what an event
// stream sent within streamWindow.
type streamAnswer struct {
	*rawAnswer
	lines   []string
	block   bool  // the read stopped after the stream's first whole block
	ended   bool  // the server ended the stream within the window
	readErr error // a failure other than the window's end
}

// rawGet sends a GET with Accept: text/event-stream and header, and reads
// a 200 answer for streamWindow at most, any other for its body.
func (r *runner) rawGet(header map[string]string) (*streamAnswer, error) {
	ctx, cancel := context.WithTimeout(r.ctx, r.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.o.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("build the GET request: %w", err)
	}
	req.Header.Set("Accept", "text/event-stream")
	if r.o.Token != "" {
		req.Header.Set("Authorization", "Bearer "+r.o.Token)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := r.o.HTTPClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	g := &streamAnswer{rawAnswer: &rawAnswer{status: resp.StatusCode, header: resp.Header}}
	if resp.StatusCode != http.StatusOK {
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxRawBody))
		if err != nil {
			return nil, fmt.Errorf("reading the answer to GET: %w", err)
		}
		g.body = []byte(strings.TrimSpace(string(b)))
		return g, nil
	}
	// The window ends the read by closing the body; a stream that sends
	// a first event sooner is judged on it, without waiting.
	stop := time.AfterFunc(min(streamWindow, r.o.Timeout), func() { resp.Body.Close() })
	defer stop.Stop()
	sc := bufio.NewScanner(io.LimitReader(resp.Body, maxRawBody))
	sc.Buffer(nil, maxRawBody)
	for sc.Scan() {
		g.lines = append(g.lines, sc.Text())
		if sc.Text() == "" && len(g.lines) > 1 {
			g.block = true
			return g, nil
		}
	}
	if err := sc.Err(); err != nil && stop.Stop() {
		g.readErr = err // not the window closing the body
	}
	g.ended = sc.Err() == nil
	return g, nil
}

// judge says what is wrong with a 200 answer to GET; "" when it is a
// well-formed event stream of JSON-RPC requests and notifications.
func (g *streamAnswer) judge() string {
	if mt, _, err := mime.ParseMediaType(g.header.Get("Content-Type")); err != nil || mt != "text/event-stream" {
		return fmt.Sprintf("with Content-Type %q: a GET is refused with 405 or answered with text/event-stream", g.header.Get("Content-Type"))
	}
	if g.readErr != nil {
		return fmt.Sprintf("and its stream failed: %v", g.readErr)
	}
	var data []string
	event := ""
	for _, l := range g.lines {
		if l == "" {
			if problem := judgeEvent(event, data); problem != "" {
				return problem
			}
			data, event = nil, ""
			continue
		}
		if strings.HasPrefix(l, ":") {
			continue // a comment (keep-alive)
		}
		field, value, _ := strings.Cut(l, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "data":
			data = append(data, value)
		case "event":
			event = value
		case "retry":
			if strings.Trim(value, "0123456789") != "" || value == "" {
				return fmt.Sprintf("and its retry field %q is not a number of milliseconds", textclip.Bytes(value, 40))
			}
		}
	}
	return ""
}

// judgeEvent checks one dispatched event: a message event's data is a
// JSON-RPC request or notification. A response has nothing to answer on a
// GET stream (only a resumed request's stream carries one, and resuming
// needs a session).
func judgeEvent(event string, data []string) string {
	if len(data) == 0 || event != "" && event != "message" {
		return ""
	}
	text := strings.Join(data, "\n")
	if text == "" {
		return "" // a priming event: an id and no data
	}
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		Method  *string         `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal([]byte(text), &m); err != nil || m.JSONRPC != "2.0" {
		return fmt.Sprintf("and its stream carries an event that is not a JSON-RPC message: %s", textclip.Bytes(text, 120))
	}
	if m.Method == nil || m.Result != nil || m.Error != nil {
		return fmt.Sprintf("and its stream carries a response, which a GET stream never carries: %s", textclip.Bytes(text, 120))
	}
	return ""
}

// summary describes what the stream sent within the window: events (the
// blocks with a data field) and comments (keep-alives).
func (g *streamAnswer) summary() string {
	var events, comments int
	data := false
	for _, l := range g.lines {
		switch {
		case l == "":
			if data {
				events++
			}
			data = false
		case strings.HasPrefix(l, ":"):
			comments++
		case strings.HasPrefix(l, "data"):
			data = true
		}
	}
	s := fmt.Sprintf("%d events, %d comments within %v", events, comments, streamWindow)
	if g.block {
		s = fmt.Sprintf("its first block read: %d events, %d comments", events, comments)
	}
	if g.ended {
		s += ", then it ended"
	}
	return s
}
