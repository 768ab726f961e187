package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent3md/agent3md/loader"
)

const httpModernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func httpServer(t *testing.T, opts *Options) (*Server, *httptest.Server) {
	t.Helper()
	if opts == nil {
		opts = &Options{}
	}
	if opts.Source.empty() {
		opts.Source = Loaded(openAda(t))
	}
	if opts.Router == nil {
		opts.Router = testRouterOptions(t)
	}
	opts.Version = "test"
	S, err := NewServer(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(S.HTTPHandler(nil))
	t.Cleanup(func() { ts.Close(); S.Close() })
	return S, ts
}

func post(t *testing.T, url, body string, headers map[string]string) (*http.Response, string) {
	t.Helper()
	h := map[string]string{"Content-Type": "application/json"}
	for k, v := range headers {
		h[k] = v
	}
	return send(t, http.MethodPost, url, body, h, "")
}

func modernHeaders(method, name string) map[string]string {
	h := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method, "Accept": "application/json, text/event-stream"}
	if name != "" {
		h["Mcp-Name"] = name
	}
	return h
}

// TestHTTPStatuses: every status path of the stateless transport, in both
// eras, as the clients of docs/protocol.md §12 send them.
func TestHTTPStatuses(t *testing.T) {
	_, ts := httpServer(t, nil)
	legacyOnly := map[string]string{"Accept": "application/json", "MCP-Protocol-Version": "2024-11-05"}
	for _, tt := range []struct {
		name    string
		body    string
		headers map[string]string
		status  int
		want    string
	}{
		{"skill-provider initialize", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"p","version":"1"}}}`, legacyOnly, 200, `"protocolVersion":"2024-11-05"`},
		{"skill-provider resources/list", `{"jsonrpc":"2.0","id":2,"method":"resources/list"}`, legacyOnly, 200, `"uri":"skill://search/SKILL.md","name":"search"`},
		{"skill-provider reads the alias", `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"skill://search"}}`, legacyOnly, 200, `"text":"---\nname: \"search\"`},
		{"tools/list with no handshake", `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`, nil, 200, `"name":"route_skill"`},
		{"tools/call with no handshake", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_skill","arguments":{"name":"style"}}}`, nil, 200, `Imperative mood`},
		{"legacy unknown method is 200", `{"jsonrpc":"2.0","id":6,"method":"nope"}`, nil, 200, `-32601`},
		{"legacy unknown resource is 200", `{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"skill://nope/SKILL.md"}}`, nil, 200, `-32002`},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil, 202, ``},
		{"response from the client", `{"jsonrpc":"2.0","id":9,"result":{}}`, nil, 202, ``},
		// A notification is never answered, whatever its params; a request
		// with "params": null is (docs/protocol.md §2).
		{"notification with params null", `{"jsonrpc":"2.0","method":"notifications/initialized","params":null}`, nil, 202, ``},
		{"notification with params an array", `{"jsonrpc":"2.0","method":"notifications/initialized","params":[1]}`, nil, 202, ``},
		{"request with params null", `{"jsonrpc":"2.0","id":21,"method":"tools/list","params":null}`, nil, 400, `{"jsonrpc":"2.0","id":21,"error":{"code":-32600`},
		{"a batch with a params-null notification", `[{"jsonrpc":"2.0","method":"notifications/initialized","params":null},{"jsonrpc":"2.0","id":1,"method":"ping"}]`, nil, 200, `[{"jsonrpc":"2.0","id":1,"result":{}}]`},
		{"not JSON", `{nope`, nil, 400, `-32700`},
		// 2025-03-26 is the one revision with batches, and its clients send
		// no MCP-Protocol-Version header (docs/protocol.md §12).
		{"a 2025-03-26 batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b","method":"nope"}]`, nil, 200, `[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":"b","error":{"code":-32601`},
		{"a batch under a 2025-03-26 header", `[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`, map[string]string{"MCP-Protocol-Version": "2025-03-26"}, 200, `[{"jsonrpc":"2.0","id":1,"result":{"tools":[`},
		{"a batch of notifications only", `[{"jsonrpc":"2.0","method":"notifications/initialized"}]`, nil, 202, ``},
		{"an empty batch", `[]`, nil, 400, `-32600`},
		{"initialize in a batch", `[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}]`, nil, 200, `initialize must not be part of a batch`},
		{"a bad element in a batch", `[1,{"jsonrpc":"2.0","id":2,"method":"ping"}]`, nil, 200, `{"jsonrpc":"2.0","id":2,"result":{}}]`},
		{"a batch under a later revision", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, map[string]string{"MCP-Protocol-Version": "2025-06-18"}, 400, `batches are accepted only at protocol version 2025-03-26`},
		{"a batch of 2026-07-28 requests", `[{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + httpModernMeta + `}}]`, nil, 200, `"error":{"code":-32600`},
		{"unsupported header version", `{"jsonrpc":"2.0","id":10,"method":"tools/list"}`, map[string]string{"MCP-Protocol-Version": "1999-01-01"}, 400, `-32022`},
		{"modern discover", `{"jsonrpc":"2.0","id":11,"method":"server/discover","params":{` + httpModernMeta + `}}`, modernHeaders("server/discover", ""), 200, `"resultType":"complete"`},
		{"modern header without _meta", `{"jsonrpc":"2.0","id":12,"method":"tools/list"}`, modernHeaders("tools/list", ""), 400, `-32602`},
		{"modern Mcp-Method mismatch", `{"jsonrpc":"2.0","id":13,"method":"tools/list","params":{` + httpModernMeta + `}}`, modernHeaders("prompts/list", ""), 400, `-32020`},
		{"modern Mcp-Method missing", `{"jsonrpc":"2.0","id":14,"method":"tools/list","params":{` + httpModernMeta + `}}`, map[string]string{"MCP-Protocol-Version": "2026-07-28"}, 400, `-32020`},
		{"modern Mcp-Name mismatch", `{"jsonrpc":"2.0","id":15,"method":"resources/read","params":{"uri":"skill://style/SKILL.md",` + httpModernMeta + `}}`, modernHeaders("resources/read", "skill://other/SKILL.md"), 400, `Header mismatch: Mcp-Name`},
		{"modern Mcp-Name base64", `{"jsonrpc":"2.0","id":16,"method":"resources/read","params":{"uri":"skill://style/SKILL.md",` + httpModernMeta + `}}`, modernHeaders("resources/read", "=?base64?"+base64.StdEncoding.EncodeToString([]byte("skill://style/SKILL.md"))+"?="), 200, `Message style`},
		{"modern header version differs from _meta", `{"jsonrpc":"2.0","id":17,"method":"tools/list","params":{` + httpModernMeta + `}}`, map[string]string{"MCP-Protocol-Version": "2025-11-25", "Mcp-Method": "tools/list"}, 400, `-32020`},
		{"modern removed method", `{"jsonrpc":"2.0","id":18,"method":"ping","params":{` + httpModernMeta + `}}`, modernHeaders("ping", ""), 404, `-32601`},
		{"modern unknown resource", `{"jsonrpc":"2.0","id":19,"method":"resources/read","params":{"uri":"skill://nope/SKILL.md",` + httpModernMeta + `}}`, modernHeaders("resources/read", "skill://nope/SKILL.md"), 400, `"data":{"uri":"skill://nope/SKILL.md"}`},
		{"modern missing clientCapabilities", `{"jsonrpc":"2.0","id":20,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, modernHeaders("tools/list", ""), 400, `clientCapabilities`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := post(t, ts.URL, tt.body, tt.headers)
			if resp.StatusCode != tt.status || !strings.Contains(body, tt.want) {
				t.Errorf("status %d body %.300s; want %d containing %q", resp.StatusCode, body, tt.status, tt.want)
			}
			if resp.Header.Get("Mcp-Session-Id") != "" {
				t.Errorf("a session id was minted")
			}
		})
	}
	for _, m := range []string{http.MethodGet, http.MethodDelete, http.MethodPut} {
		req, _ := http.NewRequest(m, ts.URL, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 405 || resp.Header.Get("Allow") != "POST" {
			t.Errorf("%s: %d Allow %q, want 405 Allow POST", m, resp.StatusCode, resp.Header.Get("Allow"))
		}
	}
}

// TestHTTPOffersLegacyClientsListChanged: over HTTP a handshake-era
// client hears of list changes on its GET stream (httpevents.go), so on a
// watched agent its initialize declares listChanged for every list; no
// stream knows what it subscribed to, so resources.subscribe is not
// declared and resources/subscribe does not exist for it. Exchange used
// without a change stream (ChangeEvents unset) offers neither. A
// 2026-07-28 client keeps listChanged: subscriptions/listen carries it.
func TestHTTPOffersLegacyClientsListChanged(t *testing.T) {
	changes := make(chan struct{})
	S, ts := httpServer(t, &Options{Source: loadedChanging(openAda(t), changes,
		func(context.Context) (*loader.Agent, error) { return nil, errors.New("not reloaded in this test") })})
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	listsChanged := []string{`"prompts":{"listChanged":true}`, `"resources":{"listChanged":true}`, `"tools":{"listChanged":true}`}
	for _, tt := range []struct {
		name, body string
		headers    map[string]string
		want       []string
		wantNot    []string
	}{
		{"initialize", initialize, nil, listsChanged, []string{"subscribe"}},
		{"resources/subscribe", `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"skill://search/SKILL.md"}}`,
			map[string]string{"MCP-Protocol-Version": "2025-06-18"}, []string{`"code":-32601`}, nil},
		{"modern discover", `{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{` + httpModernMeta + `}}`,
			modernHeaders("server/discover", ""), []string{`"listChanged":true`}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := post(t, ts.URL, tt.body, tt.headers)
			if resp.StatusCode != 200 {
				t.Errorf("status %d body %.400s; want 200", resp.StatusCode, body)
			}
			for _, want := range tt.want {
				if !strings.Contains(body, want) {
					t.Errorf("body %.400s lacks %q", body, want)
				}
			}
			for _, no := range tt.wantNot {
				if strings.Contains(body, no) {
					t.Errorf("body %.400s offers %q", body, no)
				}
			}
		})
	}
	rep := S.Exchange(context.Background(), &Exchange{Body: []byte(initialize)})
	if !strings.Contains(string(rep.Line), `"capabilities":{`) || strings.Contains(string(rep.Line), "listChanged") || strings.Contains(string(rep.Line), "subscribe") {
		t.Errorf("Exchange without ChangeEvents: %.400s; want no listChanged or subscribe", rep.Line)
	}
}

// TestHTTPOnStream: a listen asks HTTPOptions.OnStream before it opens
// its stream, and is not opened when the hook refuses (having answered);
// a request streamed only for its progress is no long-lived stream and
// does not ask.
func TestHTTPOnStream(t *testing.T) {
	S, _ := httpServer(t, nil)
	var (
		mu    sync.Mutex
		asked []string
	)
	ts := httptest.NewServer(S.HTTPHandler(&HTTPOptions{OnStream: func(w http.ResponseWriter, r *http.Request) bool {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, r.Header.Get("Mcp-Method"))
		w.WriteHeader(http.StatusServiceUnavailable)
		return false
	}}))
	defer ts.Close()
	resp, body := post(t, ts.URL, `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{`+httpModernMeta+`,"notifications":{"toolsListChanged":true}}}`,
		modernHeaders("subscriptions/listen", ""))
	if resp.StatusCode != http.StatusServiceUnavailable || body != "" {
		t.Errorf("listen refused by the hook: status %d body %.200s; want the hook's 503 alone", resp.StatusCode, body)
	}
	resp, body = post(t, ts.URL, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_skills","arguments":{},"_meta":{"progressToken":"p"}}}`,
		map[string]string{"Accept": "application/json, text/event-stream"})
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" || !strings.Contains(body, `"id":2,"result"`) {
		t.Errorf("progress-streamed call: status %d %s body %.200s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || asked[0] != "subscriptions/listen" {
		t.Errorf("OnStream asked for %q, want the listen only", asked)
	}
}

// TestHTTPLegacyListenIsJSON: subscriptions/listen is a 2026-07-28
// method; a handshake-era request for it is an unknown method, answered
// as JSON like any other, not as an event stream a client that accepts
// only application/json can't read.
func TestHTTPLegacyListenIsJSON(t *testing.T) {
	_, ts := httpServer(t, nil)
	resp, body := post(t, ts.URL, `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}`,
		map[string]string{"Accept": "application/json", "MCP-Protocol-Version": "2025-11-25"})
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "application/json" || !strings.HasPrefix(body, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601`) {
		t.Errorf("status %d, Content-Type %q, body %.300s; want 200 application/json with -32601", resp.StatusCode, ct, body)
	}
}

// TestHTTPListenStream: subscriptions/listen over HTTP is an event stream:
// the acknowledgement, then a reload's notifications, then, when the
// server closes, the answer.
func TestHTTPListenStream(t *testing.T) {
	r := startReloadRig(t)
	r.finish()
	changes := make(chan struct{}, 1)
	S, ts := httpServer(t, &Options{Source: changing(openPathFunc(r.path), changes)})
	for deadline := time.Now().Add(10 * time.Second); !S.Loaded(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the agent never loaded")
		}
	}
	events := listenEvents(t, ts.URL, `{"toolsListChanged":true}`)
	next := func(what string) string {
		select {
		case e, ok := <-events:
			if !ok {
				t.Fatalf("stream ended before %s", what)
			}
			return e
		case <-time.After(10 * time.Second):
			t.Fatalf("no %s", what)
		}
		return ""
	}
	if e := next("acknowledgement"); !strings.Contains(e, methodListenAcked) {
		t.Fatalf("first event %s", e)
	}
	writeByRename(t, r.path, agentText(2))
	changes <- struct{}{}
	if e := next("tools list_changed"); !strings.Contains(e, methodToolsChanged) || !strings.Contains(e, `"sub"`) {
		t.Fatalf("event %s", e)
	}
	name := S.AgentName()
	if name == "" || name == "agent" {
		t.Fatalf("AgentName = %q before Close, want the agent's own name", name)
	}
	S.Close()
	// The answer is written after Close retired the agent; it still names
	// the server as every answer before it did.
	if e := next("the final answer"); !strings.Contains(e, `"id":"sub","result":{"resultType":"complete"`) ||
		!strings.Contains(e, `"name":"agent3md:`+name+`"`) {
		t.Fatalf("final event %s, want a complete result whose serverInfo names %s", e, name)
	}
}

// TestCursorsDecodeOnAnyReplica: two servers of the same file (replicas
// behind a load balancer) read each other's cursors: nothing per process
// is in them.
func TestCursorsDecodeOnAnyReplica(t *testing.T) {
	a1, a2 := openSynth(t, 250), openSynth(t, 250)
	_, ts1 := httpServer(t, &Options{Source: Loaded(a1)})
	_, ts2 := httpServer(t, &Options{Source: Loaded(a2)})
	for _, method := range []string{"resources/list", "skills/list", "prompts/list"} {
		_, body := post(t, ts1.URL, `{"jsonrpc":"2.0","id":1,"method":"`+method+`"}`, nil)
		var first struct {
			Result struct {
				NextCursor string `json:"nextCursor"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(body), &first); err != nil || first.Result.NextCursor == "" {
			t.Fatalf("%s: no next cursor in %.200s", method, body)
		}
		cur, _ := json.Marshal(first.Result.NextCursor)
		resp, body := post(t, ts2.URL, `{"jsonrpc":"2.0","id":2,"method":"`+method+`","params":{"cursor":`+string(cur)+`}}`, nil)
		if resp.StatusCode != 200 || strings.Contains(body, `"error"`) {
			t.Errorf("%s: the other replica refused the cursor: %d %.200s", method, resp.StatusCode, body)
		}
	}
}

// TestHTTPBatchAnswerBounded: a 2025-03-26 batch is answered in one
// array, so its answers are bounded (HTTPOptions.MaxBatchAnswerBytes):
// past the bound the remaining requests are refused with a short error
// each, instead of the server holding every answer in memory.
func TestHTTPBatchAnswerBounded(t *testing.T) {
	S, _ := httpServer(t, nil)
	ts := httptest.NewServer(S.HTTPHandler(&HTTPOptions{MaxBatchAnswerBytes: 2000}))
	defer ts.Close()
	var elems []string
	for i := 1; i <= 5; i++ {
		elems = append(elems, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i))
	}
	resp, body := post(t, ts.URL, "["+strings.Join(elems, ",")+"]", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %.300s", resp.StatusCode, body)
	}
	var answers []struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &answers); err != nil {
		t.Fatalf("not a JSON array: %v: %.300s", err, body)
	}
	if len(answers) != 5 || answers[0].Result == nil {
		t.Fatalf("want 5 answers, the first a result: %.500s", body)
	}
	last := answers[4]
	if last.Error == nil || last.Error.Code != codeInvalidRequest || !strings.Contains(last.Error.Message, "2000-byte") {
		t.Errorf("the last answer past the bound: %+v", last)
	}
}
