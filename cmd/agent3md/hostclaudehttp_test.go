package main

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agent3md/agent3md/internal/fakemodel"
)

// TestHostClaudeCodeHTTPReload: Claude Code added with `claude mcp add
// --transport http` (docs/http.md §8) passes its health check, and an
// edit of the agent while `claude -p` runs makes it list the tools again:
// live reload reaches the host, not only an SDK. Claude Code speaks
// 2026-07-28 where the server offers it (server/discover, then a
// subscriptions/listen it opens itself); in front of a server that does
// not, it falls back to the handshake, and then it is the GET stream
// (docs/protocol.md §12) that carries the change. The second case puts a
// proxy that refuses 2026-07-28 in front of agent3md serve to make
// Claude Code take that path, as it does with servers of the handshake
// era and as hosts that know no later revision do.
func TestHostClaudeCodeHTTPReload(t *testing.T) {
	exe := hostExe(t, "claude")
	for _, handshake := range []bool{false, true} {
		name := "2026-07-28"
		if handshake {
			name = "handshake"
		}
		t.Run(name, func(t *testing.T) { claudeHTTPReload(t, exe, handshake) })
	}
}

// newSkill is the skill the edit adds, so the edited agent differs.
const newSkill = "\n@plane z=90 label=\"brand-new\" kind=skill triggers=\"brand new thing\"\nA brand new skill.\n"

func claudeHTTPReload(t *testing.T, exe string, handshake bool) {
	k := newHostKit(t)
	src, err := os.ReadFile(devtools)
	if err != nil {
		t.Fatal(err)
	}
	agent := filepath.Join(t.TempDir(), "devtools.3md")
	writeRenamed(t, agent, string(src))
	srv := startServe(t, agent)
	endpoint := "http://" + srv.addr + "/mcp"
	if handshake {
		endpoint = handshakeOnlyProxy(t, srv.addr) + "/mcp"
	}
	defer func() {
		if t.Failed() {
			t.Logf("server log:\n%s", srv.log())
		}
	}()
	k.mustRunHost(t, claudeEnv, exe, "mcp", "add", "--transport", "http", "devtools", endpoint)
	if out := k.mustRunHost(t, claudeEnv, exe, "mcp", "list"); !strings.Contains(out, "devtools: "+endpoint+" (HTTP) - ✔ Connected") {
		t.Fatalf("claude mcp list: %s", out)
	}
	// The model's second turn makes the edit and waits for the host to
	// list the tools again before it calls one; Claude Code runs the MCP
	// client meanwhile. The wait polls the server's log: the server is
	// another process.
	relisted := make(chan bool, 1)
	script := fakemodel.Script{Steps: []fakemodel.Step{
		func([]fakemodel.Result) (fakemodel.Call, error) {
			return fakemodel.Call{Name: "ToolSearch", Input: map[string]any{"query": "select:mcp__devtools__list_skills"}}, nil
		},
		func([]fakemodel.Result) (fakemodel.Call, error) {
			// A request that needs the skills waits for the first
			// version: an edit made while it still loads would be part of
			// it, not a change.
			resp, err := http.Post("http://"+srv.addr+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"resources/list"}`))
			if err != nil {
				return fakemodel.Call{}, err
			}
			resp.Body.Close()
			mark := len(srv.log())
			// Not writeRenamed: this runs on the fake model's goroutine,
			// where a test may not stop.
			tmp := agent + ".tmp"
			if err := os.WriteFile(tmp, append(src, newSkill...), 0o644); err != nil {
				return fakemodel.Call{}, err
			}
			if err := os.Rename(tmp, agent); err != nil {
				return fakemodel.Call{}, err
			}
			relisted <- waitRelisted(srv, mark, 60*time.Second)
			return fakemodel.Call{Name: "mcp__devtools__list_skills", Input: map[string]any{}}, nil
		},
	}}
	fm, err := fakemodel.Start(fakemodel.Anthropic, script, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fm.Close()
	env := append([]string{"ANTHROPIC_BASE_URL=" + fm.URL}, claudeEnv...)
	out, errOut, err := k.runHost(t, env, exe, "-p", hostRequest, "--allowedTools", "mcp__devtools", "ToolSearch", "--output-format", "json")
	if err != nil {
		t.Fatalf("claude -p: %v\nstdout:\n%s\nstderr:\n%s", err, tail(out, 2000), tail(errOut, 2000))
	}
	select {
	case ok := <-relisted:
		if !ok {
			t.Error("Claude Code did not list the tools again within 60s of the edit")
		}
	default:
		t.Fatalf("the script never reached its edit:\n%s", tail(out, 2000))
	}
	last, ok := fm.Last()
	if !ok || len(last.Results) == 0 || !strings.Contains(last.Results[len(last.Results)-1].Text, "brand-new") {
		t.Errorf("list_skills after the edit did not reach the model with the new skill")
	}
	served := srv.log()
	// A GET carries no MCP method, and serve logs no empty field.
	get := regexp.MustCompile(`method=GET path=/mcp status=200`).MatchString(served)
	listen := strings.Contains(served, "mcp_method=subscriptions/listen")
	if handshake && (!get || listen) || !handshake && (get || !listen) {
		t.Errorf("handshake %v: GET stream %v, subscriptions/listen %v; want the GET stream in the handshake era, listen in 2026-07-28", handshake, get, listen)
	}
}

// waitRelisted reports whether the server's log shows a reload and, after
// it, a tools/list, within d of mark.
func waitRelisted(srv *served, mark int, d time.Duration) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		_, after, reloaded := strings.Cut(srv.log()[mark:], `msg="agent reloaded"`)
		if reloaded && strings.Contains(after, "mcp_method=tools/list") {
			return true
		}
	}
	return false
}

// handshakeOnlyProxy serves addr through a proxy that answers every
// 2026-07-28 request the way a server without that revision does (400,
// -32022, the handshake revisions as supported), and passes the rest on,
// event streams unbuffered. It returns the proxy's URL.
func handshakeOnlyProxy(t *testing.T, addr string) string {
	t.Helper()
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: addr})
	rp.FlushInterval = -1
	rp.ErrorLog = log.New(io.Discard, "", 0) // a client closing its event stream is no error here
	ps := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("MCP-Protocol-Version") == "2026-07-28" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2025-11-25","2025-06-18","2025-03-26"],"requested":"2026-07-28"}}}`)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(ps.Close)
	return ps.URL
}
