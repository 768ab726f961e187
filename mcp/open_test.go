package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/router"
)

const (
	initLine  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"
	listLine  = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n"
	callLine  = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_skills","arguments":{}}}` + "\n"
	replyWait = 5 * time.Second
)

// openAfter opens testdata/ada.3md once release closes, so a test holds
// the server in its loading state until it says; a cancelled open ends.
func openAfter(release <-chan struct{}) func(context.Context) (*loader.Agent, error) {
	return func(ctx context.Context) (*loader.Agent, error) {
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return loader.Open("testdata/ada.3md", nil)
	}
}

// TestServeAnswersHandshakeWhileLoading: with Open and Head, initialize is
// answered from the head while the agent is still loading, and requests
// that need the skills are answered once it is loaded.
func TestServeAnswersHandshakeWhileLoading(t *testing.T) {
	head, err := loader.ReadHead("testdata/ada.3md", nil)
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	h := serveHarness(t, &Options{Source: Opener(openAfter(release), head)})
	h.in.Write([]byte(initLine + listLine))
	l, ok := h.next(replyWait)
	if !ok {
		t.Fatal("no initialize answer while the agent loads")
	}
	var res struct {
		ID     int `json:"id"`
		Result struct {
			ServerInfo   struct{ Name string } `json:"serverInfo"`
			Instructions string                `json:"instructions"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(l), &res); err != nil || res.ID != 1 {
		t.Fatalf("first answer %s, want initialize's", l)
	}
	if res.Result.ServerInfo.Name != "agent3md:"+head.Name || res.Result.Instructions == "" || res.Result.Instructions != head.Identity {
		t.Errorf("initialize from the head: %s", l)
	}
	if l, ok := h.next(200 * time.Millisecond); ok {
		t.Fatalf("tools/list answered before the agent loaded: %s", l)
	}
	close(release)
	if l, ok := h.next(replyWait); !ok || !strings.Contains(l, `"id":2`) || !strings.Contains(l, "get_skill") {
		t.Fatalf("tools/list after the load: %q", l)
	}
	h.finish()
}

// TestServeLoadFailure: without a head, the handshake waits for the load
// and a file that fails to load gets the reason in initialize's own error
// (wherever in the file the error sits), as does every later request; Serve
// returns the load error at EOF.
func TestServeLoadFailure(t *testing.T) {
	bad := errors.New("line 12: bad directive")
	h := serveHarness(t, &Options{Source: Opener(func(context.Context) (*loader.Agent, error) {
		return nil, bad
	}, nil)})
	h.in.Write([]byte(initLine + listLine + callLine))
	got := h.byID(3, replyWait)
	if !strings.Contains(got["1"], `"error"`) || !strings.Contains(got["1"], "-32603") || !strings.Contains(got["1"], "line 12: bad directive") {
		t.Errorf("initialize: %s, want an error with the reason", got["1"])
	}
	if !strings.Contains(got["2"], "-32603") || !strings.Contains(got["2"], "line 12: bad directive") {
		t.Errorf("tools/list: %s", got["2"])
	}
	if !strings.Contains(got["3"], `"isError":true`) || !strings.Contains(got["3"], "line 12: bad directive") {
		t.Errorf("tools/call: %s", got["3"])
	}
	h.in.Close()
	select {
	case err := <-h.done:
		if !errors.Is(err, bad) {
			t.Errorf("Serve returned %v, want the load error", err)
		}
	case <-time.After(replyWait):
		t.Fatal("Serve did not return after EOF")
	}
}

// TestServeLateLoadFailure: with a head (a large file), initialize is
// answered while the load runs; a failure found later reaches the requests
// that need the skills, and a handshake after the failure is refused.
func TestServeLateLoadFailure(t *testing.T) {
	bad := errors.New("line 90001: bad directive")
	release := make(chan struct{})
	head := &loader.Head{Name: "broken", Identity: "# Broken", IdentityKnown: true}
	h := serveHarness(t, &Options{Source: Opener(func(context.Context) (*loader.Agent, error) {
		<-release
		return nil, bad
	}, head)})
	h.in.Write([]byte(initLine))
	got := h.byID(1, replyWait)
	if !strings.Contains(got["1"], `"agent3md:broken"`) {
		t.Errorf("initialize while loading: %s", got["1"])
	}
	close(release)
	h.in.Write([]byte(callLine))
	got = h.byID(1, replyWait)
	if !strings.Contains(got["3"], `"isError":true`) || !strings.Contains(got["3"], "line 90001: bad directive") {
		t.Errorf("tools/call: %s", got["3"])
	}
	h.in.Write([]byte(`{"jsonrpc":"2.0","id":4,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n"))
	got = h.byID(1, replyWait)
	if !strings.Contains(got["4"], "-32603") || !strings.Contains(got["4"], "line 90001: bad directive") {
		t.Errorf("server/discover after the failure: %s", got["4"])
	}
	h.in.Close()
	<-h.done
}

// TestServePreparesRoutingCache: with the content hash in the head, the
// routing cache entry is opened while the agent loads and adopted, and
// routes are answered from it.
func TestServePreparesRoutingCache(t *testing.T) {
	a, err := loader.Open("testdata/ada.3md", nil)
	if err != nil {
		t.Fatal(err)
	}
	hash := a.Catalog().SHA256
	a.Close()
	ro := &router.Options{CacheDir: t.TempDir(), MemoryThreshold: -1}
	built := *ro
	built.ContentHash = hash
	skillsAgent, err := loader.Open("testdata/ada.3md", nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := router.ForAgent(context.Background(), skillsAgent, &built)
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	skillsAgent.Close()

	var logs strings.Builder
	var mu sync.Mutex
	h := serveHarness(t, &Options{Source: Opener(func(context.Context) (*loader.Agent, error) { return loader.Open("testdata/ada.3md", nil) }, &loader.Head{Name: "ada", ContentHash: hash}),
		Router: ro,
		Logger: slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &mu}, nil)),
	})
	h.in.Write([]byte(initLine + `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"route_skill","arguments":{"text":"x"}}}` + "\n"))
	// Both wait for the load (the head does not know the identity), so
	// they may be answered in either order.
	got := h.byID(2, replyWait)
	if !strings.Contains(got["1"], `"serverInfo"`) {
		t.Fatalf("initialize: %q", got["1"])
	}
	if l := got["7"]; !strings.Contains(l, `"result"`) || strings.Contains(l, `"error"`) {
		t.Fatalf("route_skill: %q", l)
	}
	h.finish()
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logs.String(), "index=cache-hit prepared=true") {
		t.Errorf("the prepared entry was not used:\n%s", logs.String())
	}
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestServeWaitsForIdentity: when the head cannot tell the identity (the
// file does not open with it), initialize waits for the agent, so its
// instructions are the real identity, never a guess.
func TestServeWaitsForIdentity(t *testing.T) {
	release := make(chan struct{})
	h := serveHarness(t, &Options{Source: Opener(openAfter(release), &loader.Head{Name: "ada"})})
	h.in.Write([]byte(initLine))
	if l, ok := h.next(200 * time.Millisecond); ok {
		t.Fatalf("initialize answered before the identity was known: %s", l)
	}
	close(release)
	l, ok := h.next(replyWait)
	if !ok || !strings.Contains(l, `"instructions"`) {
		t.Fatalf("initialize after the load: %q", l)
	}
	h.finish()
}

// TestServeReady: Options.Ready is called once the agent and its routing
// index have loaded, and only once.
func TestServeReady(t *testing.T) {
	ready := make(chan struct{}, 2)
	h := serveHarness(t, &Options{Source: Opener(func(context.Context) (*loader.Agent, error) { return loader.Open("testdata/ada.3md", nil) }, &loader.Head{Name: "ada", IdentityKnown: true}),
		Ready: func() { ready <- struct{}{} },
	})
	select {
	case <-ready:
	case <-time.After(replyWait):
		t.Fatal("Ready was not called after the load")
	}
	h.finish()
	if len(ready) != 0 {
		t.Fatal("Ready was called more than once")
	}
}
