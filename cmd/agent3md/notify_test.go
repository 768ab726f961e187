package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Live reload reaching real clients: each official SDK client registers a
// handler for every change notification, subscribes to one skill, and an
// edit of the agent (a file, then a skills folder) must fire them all,
// over stdio and over Streamable HTTP (docs/protocol.md §2, §11, §12).
// Over HTTP a handshake-era client, as every host ships today, uses its
// SDK's transport untouched: the list changes reach it on the GET stream
// the SDK opens after the handshake; it cannot subscribe to a resource
// there (no stream knows its subscriptions), so it is not offered to.

// notifyAgent is an agent the test may edit: where it is, the URI a client
// subscribes to, and an edit that changes that URI's bytes.
type notifyAgent struct {
	path string
	uri  string
	edit func(t *testing.T)
}

// notifyAgents makes a fresh copy of each kind of agent for one run.
var notifyAgents = []struct {
	name string
	make func(t *testing.T) notifyAgent
}{
	{"file", func(t *testing.T) notifyAgent {
		src, err := os.ReadFile(devtools)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "devtools.3md")
		writeRenamed(t, path, string(src))
		return notifyAgent{path: path, uri: "skill://search-code/SKILL.md", edit: func(t *testing.T) {
			writeRenamed(t, path, strings.Replace(string(src), "# Search the code", "# Search the code base", 1))
		}}
	}},
	{"folder", func(t *testing.T) notifyAgent {
		dir := folderFixture(t)
		skill := filepath.Join(dir, "build", "SKILL.md")
		src, err := os.ReadFile(skill)
		if err != nil {
			t.Fatal(err)
		}
		return notifyAgent{path: dir, uri: "skill://build/SKILL.md", edit: func(t *testing.T) {
			writeRenamed(t, skill, string(src)+"\nAlso run the smoke test.\n")
		}}
	}},
}

// writeRenamed replaces path's content the way editors that save by rename
// do.
func writeRenamed(t *testing.T, path, text string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), ".edit.tmp")
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// serveEndpoint starts `agent3md serve` on one agent and returns its MCP
// endpoint's URL.
func serveEndpoint(t *testing.T, agent string) (string, *served) {
	t.Helper()
	s := startServe(t, agent)
	m := agentReadyRE.FindStringSubmatch(s.log())
	if m == nil {
		t.Fatalf("no agent ready in the log:\n%s", s.log())
	}
	return "http://" + s.addr + m[1], s
}

// TestNotificationsTypeScriptSDK runs testdata/tsnotify.mjs under Bun with
// the official TypeScript SDK client, over stdio and over HTTP, against
// an agent file and a skills folder. The SDK parses every incoming
// message with its JSON-RPC schema: a notification with "params": null
// went to client.onerror (a ZodError) and its handler never ran, which
// failed this test. Skipped without the SDK (scripts/conformance.sh
// --install).
func TestNotificationsTypeScriptSDK(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the agent3md binary and runs Bun; skipped with -short")
	}
	bun, run := tsDriver(t)
	driver, err := os.ReadFile(filepath.Join("testdata", "tsnotify.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, "tsnotify.mjs"), driver, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := agent3mdBinary(t)
	for _, kind := range notifyAgents {
		for _, over := range []string{"stdio", "http", "http-get"} {
			t.Run(kind.name+"/"+over, func(t *testing.T) {
				a := kind.make(t)
				target := bin
				if over != "stdio" {
					var s *served
					target, s = serveEndpoint(t, a.path)
					defer func() {
						if t.Failed() {
							t.Logf("server log:\n%s", s.log())
						}
					}()
				}
				var extra []string
				if over == "http-get" {
					extra = append(extra, "get")
				}
				t.Log(runNotifyDriver(t, bun, filepath.Join(run, "tsnotify.mjs"), target, a, extra...))
			})
		}
	}
}

// runNotifyDriver runs the driver, makes the edit once it says it is
// ready, and returns its summary line; a failure or a hang fails the test.
func runNotifyDriver(t *testing.T, bun, script, target string, a notifyAgent, extra ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), tsClientTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bun, append([]string{"--no-install", script, target, a.path, a.uri}, extra...)...)
	cmd.Dir = filepath.Dir(script)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if sc.Text() == "tsnotify: ready" {
			a.edit(t)
		}
	}
	err = cmd.Wait()
	if ctx.Err() != nil {
		t.Fatalf("the driver did not finish within %v:\n%s\n%s", tsClientTimeout, strings.Join(lines, "\n"), stderr.String())
	}
	if err != nil {
		t.Fatalf("the driver failed (%v):\n%s\n%s", err, strings.Join(lines, "\n"), stderr.String())
	}
	last := ""
	if len(lines) > 0 {
		last = lines[len(lines)-1]
	}
	if !strings.HasPrefix(last, "tsnotify: ok") {
		t.Fatalf("the driver exited 0 without its summary line:\n%s\n%s", strings.Join(lines, "\n"), stderr.String())
	}
	return last
}

// TestNotificationsGoSDK is the same with the official Go SDK client: over
// stdio in the last handshake revision (resources/subscribe) and in
// 2026-07-28 (subscriptions/listen, which the SDK opens itself), over
// HTTP in 2026-07-28, where listen is how a stateless server's client
// hears of changes, and over HTTP in handshake revisions, where the SDK's
// own GET stream carries the list changes. Every handler must fire.
func TestNotificationsGoSDK(t *testing.T) {
	bin := agent3mdBinary(t)
	for _, kind := range notifyAgents {
		for _, tt := range []struct{ over, version string }{
			{"stdio", "2025-11-25"}, {"stdio", ""}, {"http", ""}, {"http", "2025-11-25"}, {"http", "2025-03-26"},
		} {
			name := kind.name + "/" + tt.over + "/" + tt.version
			if tt.version == "" {
				name += "newest"
			}
			t.Run(name, func(t *testing.T) {
				a := kind.make(t)
				var tr sdk.Transport = &sdk.CommandTransport{Command: exec.Command(bin, "mcp", "--no-cache", "--log-level", "warn", a.path)}
				if tt.over == "http" {
					url, s := serveEndpoint(t, a.path)
					defer func() {
						if t.Failed() {
							t.Logf("server log:\n%s", s.log())
						}
					}()
					tr = &sdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1}
				}
				goSDKNotified(t, tr, tt.version, a)
			})
		}
	}
}

// goSDKNotified connects, subscribes, edits and waits for every handler.
func goSDKNotified(t *testing.T, tr sdk.Transport, version string, a notifyAgent) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	fired := make(chan string, 64)
	acks := make(chan struct{}, 8)
	client := sdk.NewClient(&sdk.Implementation{Name: "notify-test", Version: "1"}, &sdk.ClientOptions{
		ToolListChangedHandler:     func(context.Context, *sdk.ToolListChangedRequest) { fired <- "tools" },
		PromptListChangedHandler:   func(context.Context, *sdk.PromptListChangedRequest) { fired <- "prompts" },
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) { fired <- "resources" },
		ResourceUpdatedHandler: func(_ context.Context, r *sdk.ResourceUpdatedNotificationRequest) {
			fired <- "updated " + r.Params.URI
		},
	})
	// The SDK opens its listen requests without waiting for their
	// acknowledgement; the edit must come after them.
	client.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method == "notifications/subscriptions/acknowledged" {
				acks <- struct{}{}
			}
			return next(ctx, method, req)
		}
	})
	cs, err := client.Connect(ctx, tr, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	want := map[string]bool{"tools": true, "prompts": true, "resources": true, "updated " + a.uri: true}
	caps := cs.InitializeResult().Capabilities
	if caps.Tools == nil || !caps.Tools.ListChanged || caps.Prompts == nil || !caps.Prompts.ListChanged || caps.Resources == nil || !caps.Resources.ListChanged {
		t.Fatalf("capabilities %+v: a watched agent declares listChanged for every list", caps)
	}
	_, overHTTP := tr.(*sdk.StreamableClientTransport)
	if overHTTP && cs.InitializeResult().ProtocolVersion < "2026-07-28" {
		// The SDK opened its GET stream before Connect returned; the
		// server offers no subscription there.
		if caps.Resources.Subscribe {
			t.Fatal("resources.subscribe offered to a handshake-era client over HTTP")
		}
		delete(want, "updated "+a.uri)
	} else if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: a.uri}); err != nil {
		t.Fatalf("subscribe %s: %v", a.uri, err)
	}
	if cs.InitializeResult().ProtocolVersion >= "2026-07-28" {
		for range 2 { // the lists' listen and the URI's
			select {
			case <-acks:
			case <-ctx.Done():
				t.Fatal("the listen requests were not acknowledged")
			}
		}
	}
	// Read what was subscribed to, as a client does: the edit then
	// changes content the client has seen. An edit made while the server
	// is still loading the agent (it answers the handshake first) is part
	// of the first version it serves, and no change: under load, that
	// race left every handler waiting.
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: a.uri}); err != nil {
		t.Fatalf("read %s: %v", a.uri, err)
	}
	a.edit(t)
	for len(want) > 0 {
		select {
		case f := <-fired:
			delete(want, f)
		case <-ctx.Done():
			t.Fatalf("handlers that never fired: %v", want)
		}
	}
}
