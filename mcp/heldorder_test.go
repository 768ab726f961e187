package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestHeldRequestsKeepReadOrder pins the ordering rule of the answer lead
// (docs/protocol.md §2; conn.go: hold, mayStartLocked): once requests are
// held behind a client that reads slowly, nothing read after them runs
// before them. A client
// that writes a pile of pre-handshake tools/list requests, then an
// initialize for the oldest revision, notifications/initialized, and
// requests both cheap (answered by answerHeld) and not (queued for a
// handler goroutine), all before reading a byte, must find every request
// after the initialize served under the revision it negotiated, the
// notification handled after the initialize, and the requests before it
// served as the newest legacy revision (docs/protocol.md §1), even one
// that waited in the queue until after the initialize was handled.
func TestHeldRequestsKeepReadOrder(t *testing.T) {
	const (
		before = 400 // pre-handshake tools/list requests, several answerLeads of answers
		old    = version20241105
	)
	logs := &syncBuffer{}
	var c *conn
	p := startOrderServer(t, withConn(&Options{
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}, func(cn *conn) {
		c = cn
		// stdin closes before the answers are read: the requests
		// must not be cancelled while this test reads slowly.
		cn.grace = time.Hour
	}))

	// route_skill with text past inlineArgsBytes is not cheap: it goes
	// through the queue and a handler goroutine, as test/version does.
	longText := strings.Repeat("deploy the app to production ", inlineArgsBytes/16)
	type req struct {
		id    int
		line  string
		check func(result json.RawMessage) error // the answer's shape under the old revision
	}
	after := []req{
		{before + 1, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, before+1, old), checkInitialized(old)},
		{0, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil},
		{before + 2, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, before+2), checkToolsList(false)},
		{before + 3, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_skill","arguments":{"name":"search"}}}`, before+3), checkToolCall(false)},
		{before + 4, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"route_skill","arguments":{"text":%q}}}`, before+4, longText), checkToolCall(false)},
		{before + 5, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"test/version"}`, before+5), checkVersion(old)},
		{before + 6, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_skill","arguments":{"name":"commit"}}}`, before+6), checkToolCall(false)},
	}
	last := after[len(after)-1]
	wrote := p.writeEach(before+len(after), func(i int) string {
		if i == before {
			// Queued behind the answers, it runs after the initialize
			// that follows it has been handled: it must still be served
			// as a request read before any handshake.
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"test/version"}`, i)
		}
		if i < before {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i)
		}
		return after[i-before-1].line
	})
	if err := <-wrote; err != nil {
		t.Fatalf("writing the requests: %v", err)
	}
	waitHeld(t, c, last.id)
	// The setup is what the rule is about: the answers are behind, so
	// the initialize was held, and the requests that are not cheap wait
	// in the queue behind it.
	c.mu.Lock()
	initHeld := false
	for _, h := range c.held {
		initHeld = initHeld || h.m.method == methodInitialize
	}
	queued := len(c.queue)
	c.mu.Unlock()
	if !initHeld {
		t.Fatalf("the initialize was not held although %d tools/list answers were asked for before it: the test no longer exercises the answer lead", before)
	}
	if queued != 3 {
		t.Errorf("%d requests queued, want 3 (test/version before the held initialize; route_skill with long text and test/version after it)", queued)
	}

	answers := p.readAll(t)
	if err := checkVersion(legacyVersions[0])(answers[before]); err != nil {
		t.Errorf("test/version read before the initialize: %v", err)
	}
	delete(answers, before)
	for id := 1; id < before; id++ {
		res, ok := answers[id]
		if !ok {
			t.Errorf("pre-handshake tools/list %d was not answered", id)
			continue
		}
		if err := checkToolsList(true)(res); err != nil {
			t.Errorf("pre-handshake tools/list %d, served as %s: %v", id, legacyVersions[0], err)
		}
		delete(answers, id)
	}
	for _, r := range after {
		if r.id == 0 {
			continue
		}
		res, ok := answers[r.id]
		if !ok {
			t.Errorf("request %d (%.80s) was not answered", r.id, r.line)
			continue
		}
		if err := r.check(res); err != nil {
			t.Errorf("request %d (%.80s) written after the initialize for %s: %v", r.id, r.line, old, err)
		}
		delete(answers, r.id)
	}
	for id := range answers {
		t.Errorf("unexpected answer with id %d", id)
	}
	if err := <-p.done; err != nil {
		t.Fatalf("Serve = %v", err)
	}
	// The notification is handled in its place, after the initialize it
	// follows: it is logged with the negotiated revision.
	var initialized []string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, `msg="client initialized"`) {
			initialized = append(initialized, l)
		}
	}
	if len(initialized) != 1 || !strings.Contains(initialized[0], "version="+old) {
		t.Errorf("notifications/initialized logged as %q, want once with version=%s (handled after the held initialize)", initialized, old)
	}
}

// startOrderServer is startPipeServer with test/version, a request that is
// never answered inline and reports the revision it was served under.
func startOrderServer(t *testing.T, opts *Options) *pipeServer {
	t.Helper()
	m := testMethods()
	withMethods(opts, m)
	m["test/version"] = methodSpec{legacy: true, handle: func(s *server, ctx context.Context, c *call) (any, error) {
		return map[string]string{"version": c.version}, nil
	}}
	return startPipeServer(t, opts)
}

// waitHeld waits until the request with the given id, the last one
// written, is held: every line before it has then been read and taken in.
// The wait is for a state, not a duration; the deadline only turns a hang
// into a failure.
func waitHeld(t *testing.T, c *conn, id int) {
	t.Helper()
	want := fmt.Sprint(id)
	deadline := time.Now().Add(time.Minute)
	for {
		c.mu.Lock()
		n := len(c.held)
		got := n > 0 && string(c.held[n-1].m.rawID) == want
		c.mu.Unlock()
		if got {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("request %d was never held: the answers were not behind when it was read", id)
		}
		time.Sleep(time.Millisecond)
	}
}

// readAll reads answers until EOF: each must be a result, and no id may be
// answered twice.
func (p *pipeServer) readAll(t *testing.T) map[int]json.RawMessage {
	t.Helper()
	got := map[int]json.RawMessage{}
	for {
		l, err := p.out.ReadString('\n')
		if err == io.EOF {
			return got
		}
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil || m.Result == nil {
			t.Fatalf("unexpected answer %.300q (%v)", l, err)
		}
		if _, dup := got[m.ID]; dup {
			t.Fatalf("id %d answered twice", m.ID)
		}
		got[m.ID] = m.Result
	}
}

// checkInitialized wants an initialize result for revision v, whose
// serverInfo has no title before 2025-06-18.
func checkInitialized(v string) func(json.RawMessage) error {
	return func(res json.RawMessage) error {
		var r struct {
			ProtocolVersion string          `json:"protocolVersion"`
			ServerInfo      json.RawMessage `json:"serverInfo"`
		}
		if err := json.Unmarshal(res, &r); err != nil {
			return err
		}
		if r.ProtocolVersion != v {
			return fmt.Errorf("protocolVersion %q, want %q", r.ProtocolVersion, v)
		}
		if v < version20250618 && strings.Contains(string(r.ServerInfo), `"title"`) {
			return fmt.Errorf("serverInfo %s has a title, which %s does not know", r.ServerInfo, v)
		}
		return nil
	}
}

// checkToolsList wants every tool with an outputSchema (modern: 2025-06-18
// on) or every tool without one.
func checkToolsList(modern bool) func(json.RawMessage) error {
	return func(res json.RawMessage) error {
		var r struct {
			Tools []map[string]json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(res, &r); err != nil {
			return err
		}
		if len(r.Tools) == 0 {
			return fmt.Errorf("no tools in %.200s", res)
		}
		for _, tool := range r.Tools {
			// The body tools and route_skill answer with text alone in
			// every revision (docs/protocol.md §4).
			want := modern && !textOnlyTool(tool["name"])
			if _, has := tool["outputSchema"]; has != want {
				return fmt.Errorf("tool %s: outputSchema present = %v, want %v", tool["name"], has, want)
			}
		}
		return nil
	}
}

// textOnlyTool reports whether the tool named by raw (a JSON string)
// declares no outputSchema.
func textOnlyTool(raw json.RawMessage) bool {
	return string(raw) == `"`+toolGetSkill+`"` || string(raw) == `"`+toolResolveSkill+`"` || string(raw) == `"`+toolRouteSkill+`"`
}

// checkToolCall wants a successful tool result with structuredContent
// (2025-06-18 on) or without.
func checkToolCall(structured bool) func(json.RawMessage) error {
	return func(res json.RawMessage) error {
		var r map[string]json.RawMessage
		if err := json.Unmarshal(res, &r); err != nil {
			return err
		}
		if string(r["isError"]) == "true" {
			return fmt.Errorf("tool error: %.300s", res)
		}
		if _, has := r["structuredContent"]; has != structured {
			return fmt.Errorf("structuredContent present = %v, want %v: %.200s", has, structured, res)
		}
		return nil
	}
}

// checkVersion wants test/version's report of revision v.
func checkVersion(v string) func(json.RawMessage) error {
	return func(res json.RawMessage) error {
		var r struct {
			Version string `json:"version"`
		}
		if err := json.Unmarshal(res, &r); err != nil {
			return err
		}
		if r.Version != v {
			return fmt.Errorf("served as %q, want %q", r.Version, v)
		}
		return nil
	}
}
