package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agent3md/agent3md/loader"
)

// Every message the server sends must be one strict clients accept: the
// TypeScript SDK parses each incoming message with its JSON-RPC schema and
// drops the ones that fail (a notification with "params": null was one),
// so their handlers never run (docs/protocol.md §2).

// rpcShape checks one server→client message against JSON-RPC 2.0 as a
// strict client reads it: an object with "jsonrpc":"2.0" and no other
// members than the protocol's; a notification has a string method and
// params absent, an object or an array (never null); a response has an id
// (a string, an integer, or null for an error about an unreadable
// message) and exactly one of result (an object, as every MCP result is)
// and error ({code: integer, message: string, data?}). The server sends
// no requests (docs/protocol.md §7), so a method with an id is refused.
func rpcShape(line []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return fmt.Errorf("not a JSON object: %v", err)
	}
	for k := range m {
		switch k {
		case "jsonrpc", "id", "method", "params", "result", "error":
		default:
			return fmt.Errorf("member %q is not JSON-RPC's", k)
		}
	}
	if string(m["jsonrpc"]) != `"2.0"` {
		return fmt.Errorf(`"jsonrpc" is %s, want "2.0"`, m["jsonrpc"])
	}
	if method, ok := m["method"]; ok {
		if jsonKind(method) != "string" {
			return fmt.Errorf(`"method" is %s, want a string`, method)
		}
		if _, ok := m["id"]; ok {
			return fmt.Errorf("a request from the server (id %s); it sends none", m["id"])
		}
		if _, ok := m["result"]; ok {
			return fmt.Errorf("a notification with a result")
		}
		if _, ok := m["error"]; ok {
			return fmt.Errorf("a notification with an error")
		}
		if p, ok := m["params"]; ok && jsonKind(p) != "object" && jsonKind(p) != "array" {
			return fmt.Errorf(`"params" is %s; JSON-RPC allows it absent, an object or an array`, p)
		}
		return nil
	}
	id, ok := m["id"]
	if !ok {
		return fmt.Errorf("neither a method nor an id")
	}
	if k := jsonKind(id); k != "string" && k != "number" && !(k == "null" && m["error"] != nil) {
		return fmt.Errorf(`"id" is %s`, id)
	}
	res, hasRes := m["result"]
	e, hasErr := m["error"]
	switch {
	case hasRes == hasErr:
		return fmt.Errorf("a response must have exactly one of result and error")
	case hasRes && jsonKind(res) != "object":
		return fmt.Errorf(`"result" is %.40s, want an object`, res)
	case hasErr:
		var eo struct {
			Code    json.RawMessage `json:"code"`
			Message json.RawMessage `json:"message"`
		}
		if jsonKind(e) != "object" || json.Unmarshal(e, &eo) != nil {
			return fmt.Errorf(`"error" is %.40s, want an object`, e)
		}
		if _, err := idKey(eo.Code); err != nil || jsonKind(eo.Code) != "number" {
			return fmt.Errorf(`error "code" is %s, want an integer`, eo.Code)
		}
		if jsonKind(eo.Message) != "string" {
			return fmt.Errorf(`error "message" is %s, want a string`, eo.Message)
		}
	}
	return nil
}

// TestRPCShape holds the checker to the cases it must tell apart, so the
// tests below cannot pass by a checker that accepts anything.
func TestRPCShape(t *testing.T) {
	for _, tt := range []struct {
		line string
		ok   bool
	}{
		{`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, true},
		{`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"skill://a/SKILL.md"}}`, true},
		{`{"jsonrpc":"2.0","method":"n","params":[1]}`, true},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, true},
		{`{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"m","data":{"a":1}}}`, true},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}`, true},
		{`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":null}`, false},
		{`{"jsonrpc":"2.0","method":"n","params":5}`, false},
		{`{"jsonrpc":"2.0","method":"n","params":"s"}`, false},
		{`{"method":"n"}`, false},
		{`{"jsonrpc":"2.0","method":5}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"roots/list"}`, false},
		{`{"jsonrpc":"2.0","id":1,"result":null}`, false},
		{`{"jsonrpc":"2.0","id":null,"result":{}}`, false},
		{`{"jsonrpc":"2.0","id":1}`, false},
		{`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}`, false},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}`, false},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1}}`, false},
		{`{"jsonrpc":"2.0","id":1,"result":{},"extra":1}`, false},
		{`[{"jsonrpc":"2.0","id":1,"result":{}}]`, false},
	} {
		if err := rpcShape([]byte(tt.line)); (err == nil) != tt.ok {
			t.Errorf("rpcShape(%s) = %v, want ok %v", tt.line, err, tt.ok)
		}
	}
}

// TestNotificationLine: a notification without params omits the member,
// whatever nil it was given; params that are not an object or an array
// are refused, not sent.
func TestNotificationLine(t *testing.T) {
	var nilMap map[string]any
	var nilPtr *progressParams
	for _, tt := range []struct {
		params any
		want   string
	}{
		{nil, `{"jsonrpc":"2.0","method":"m"}`},
		{nilMap, `{"jsonrpc":"2.0","method":"m"}`},
		{nilPtr, `{"jsonrpc":"2.0","method":"m"}`},
		{map[string]any{}, `{"jsonrpc":"2.0","method":"m","params":{}}`},
		{map[string]any{"uri": "skill://a/<b>&"}, `{"jsonrpc":"2.0","method":"m","params":{"uri":"skill://a/<b>&"}}`},
		{[]int{1}, `{"jsonrpc":"2.0","method":"m","params":[1]}`},
	} {
		line, err := notificationLine("m", tt.params)
		if err != nil || string(line) != tt.want {
			t.Errorf("notificationLine(%#v) = %s, %v; want %s", tt.params, line, err, tt.want)
		}
	}
	for _, bad := range []any{"text", 5, true} {
		if line, err := notificationLine("m", bad); err == nil {
			t.Errorf("notificationLine(%#v) = %s, want an error", bad, line)
		}
	}
}

// TestEmittedMessagesOverStdio drives one stdio connection through every
// kind of message the server sends on its own: a handshake-era session's
// three list_changed and a subscribed resource's update after a reload,
// and a 2026-07-28 listen's acknowledgement, events and final answer. It
// requires each kind to be seen and every line the server wrote, answers
// included, to pass rpcShape; the handshake-era list_changed carry no
// params at all.
func TestEmittedMessagesOverStdio(t *testing.T) {
	r := startReloadRig(t)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	r.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"skill://alpha/SKILL.md"}}`)
	r.send(`{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{` + meta + `,"notifications":{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["skill://alpha/SKILL.md"]}}}`)
	r.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_skill","arguments":{"name":"alpha"}}}`)
	got := r.collect(methodListenAcked, `"id":1,"result"`, `Alpha body of version 1`)
	writeByRename(t, r.path, agentText(2))
	r.changes <- struct{}{}
	tag := `"_meta":{"io.modelcontextprotocol/subscriptionId":"L"}`
	got = append(got, r.collect(
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
		`{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}`,
		`{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`,
		`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"skill://alpha/SKILL.md"}}`,
		`"method":"notifications/tools/list_changed","params":{`+tag,
		`"method":"notifications/prompts/list_changed","params":{`+tag,
		`"method":"notifications/resources/list_changed","params":{`+tag,
		`"method":"notifications/resources/updated","params":{`+tag+`,"uri":"skill://alpha/SKILL.md"}`,
	)...)
	r.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope"}}`)
	r.in.Close() // EOF answers the open listen
	for l := range r.lines {
		got = append(got, l)
	}
	if err := <-r.done; err != nil {
		t.Errorf("Serve: %v", err)
	}
	checkShapes(t, got, `"id":3,"error"`, `"id":"L","result"`)
}

// checkShapes fails for each line that is not a valid JSON-RPC message
// and for each want not found in some line.
func checkShapes(t *testing.T, lines []string, want ...string) {
	t.Helper()
	for _, l := range lines {
		if err := rpcShape([]byte(l)); err != nil {
			t.Errorf("%v: %.300s", err, l)
		}
	}
	all := strings.Join(lines, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("no line holds %s; got:\n%s", w, all)
		}
	}
}

// TestEmittedMessagesOverHTTP: the same over Streamable HTTP, read as a
// client reads it: every event of a 2026-07-28 listen stream (the
// acknowledgement, a reload's events, the answer when the server closes)
// and of a handshake-era request streamed for its progress.
func TestEmittedMessagesOverHTTP(t *testing.T) {
	r := startReloadRig(t)
	r.finish()
	changes := make(chan struct{}, 1)
	S, ts := httpServer(t, &Options{Source: changing(openPathFunc(r.path), changes)})
	// A request that needs the skills waits for the first load: version 1
	// must be served before it is replaced, or the edit is its first load.
	if _, loaded := post(t, ts.URL, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_skill","arguments":{"name":"alpha"}}}`, nil); !strings.Contains(loaded, "Alpha body of version 1") {
		t.Fatalf("get_skill before the edit: %.300s", loaded)
	}
	events := listenEvents(t, ts.URL, `{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["skill://alpha/SKILL.md"]}`)
	var got []string
	await := func(want string) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case l, ok := <-events:
				if !ok {
					t.Fatalf("the stream ended before %s; got:\n%s", want, strings.Join(got, "\n"))
				}
				got = append(got, l)
				if strings.Contains(l, want) {
					return
				}
			case <-deadline:
				t.Fatalf("no %s within 10s; got:\n%s", want, strings.Join(got, "\n"))
			}
		}
	}
	await(methodListenAcked)
	writeByRename(t, r.path, agentText(2))
	changes <- struct{}{}
	await(`"uri":"skill://alpha/SKILL.md"`)
	resp2, streamed := post(t, ts.URL, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_skills","arguments":{"limit":1},"_meta":{"progressToken":"p"}}}`,
		map[string]string{"Accept": "application/json, text/event-stream"})
	if ct := resp2.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("a call with a progress token was answered as %s", ct)
	}
	for _, l := range strings.Split(streamed, "\n") {
		if d, ok := strings.CutPrefix(l, "data: "); ok {
			got = append(got, d)
		}
	}
	S.Close() // answers the listen
	for l := range events {
		got = append(got, l)
	}
	checkShapes(t, got, methodToolsChanged, methodPromptsChanged, methodResChanged, methodResourceUpdated,
		`"id":"sub","result"`, `"id":2,"result"`)
}

// listenEvents opens a 2026-07-28 subscriptions/listen request (id "sub")
// for notifications, an object, over HTTP at url, and returns the data of
// each event of its stream, closed when the stream ends.
func listenEvents(t *testing.T, url, notifications string) <-chan string {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{` + httpModernMeta + `,"notifications":` + notifications + `}}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	for k, v := range modernHeaders("subscriptions/listen", "") {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("subscriptions/listen answered as %q", ct)
	}
	events := make(chan string, 64)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if l, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				events <- l
			}
		}
	}()
	return events
}

// TestProgressShape: a progress report, encoded by the path every
// transport takes (a notifier over notificationLine), is a valid
// notification carrying its token.
func TestProgressShape(t *testing.T) {
	var lines []string
	n := funcNotifier(func(line []byte) { lines = append(lines, string(bytes.Clone(line))) })
	params := map[string]json.RawMessage{"_meta": json.RawMessage(`{"progressToken":"tok"}`)}
	ctx := withNotifier(withProgressToken(context.Background(), params), n)
	p := progressFor(ctx)
	p.send(ctx, 1, 3, "indexing")
	p.send(ctx, 3, 3, "indexing")
	checkShapes(t, lines, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":1,"total":3`)
	if len(lines) != 2 {
		t.Errorf("%d progress lines, want 2: %q", len(lines), lines)
	}
}

// TestTellStatelessSession: a reload tells a handshake-era stdio session
// of its three list changes, and a stateless one (an HTTP request streamed
// while it runs) nothing, even when its initialize offered listChanged
// because the transport has a change stream (ChangeEvents): its client
// waits for these events on that GET stream, not in the answer to some
// request of its own.
func TestTellStatelessSession(t *testing.T) {
	changes := make(chan struct{})
	s := newServer(&Options{Source: loadedChanging(openAda(t), changes, func(context.Context) (*loader.Agent, error) { return nil, errors.New("unused") })})
	for _, tt := range []struct{ stateless, changeEvents bool }{{false, false}, {true, false}, {true, true}} {
		var lines []string
		sess := newSession(funcNotifier(func(line []byte) { lines = append(lines, string(line)) }))
		sess.stateless, sess.changeEvents = tt.stateless, tt.changeEvents
		sess.setVersion(version20251125, nil)
		s.tell(sess, map[string]bool{})
		want := 3
		if tt.stateless {
			want = 0
		}
		if len(lines) != want {
			t.Errorf("%+v: told %q, want %d list changes", tt, lines, want)
		}
		checkShapes(t, lines)
	}
}

// TestEventStreamEndsWithAnswer: once a request's answer is written to
// its event stream, a notification sent later (a reload announced as the
// request returned) and a keep-alive write nothing: the answer is the
// stream's last event, and nothing touches the ResponseWriter after its
// handler has returned.
func TestEventStreamEndsWithAnswer(t *testing.T) {
	rec := httptest.NewRecorder()
	es := &eventStream{w: rec, extend: func() {}}
	es.send([]byte(`{"jsonrpc":"2.0","method":"a"}`))
	es.end([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	es.send([]byte(`{"jsonrpc":"2.0","method":"late"}`))
	if es.keepAlive() {
		t.Error("a keep-alive after the end was written")
	}
	want := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"
	if got := rec.Body.String(); got != want {
		t.Errorf("stream:\n%q\nwant\n%q", got, want)
	}
}
