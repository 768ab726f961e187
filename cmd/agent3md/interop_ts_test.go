package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// tsClientTimeout bounds one driver run: a hung server or a request the
// SDK waits on forever fails the run instead of the whole test binary.
const tsClientTimeout = 3 * time.Minute

// TestInteropTypeScriptSDK builds the real binary and drives `agent3md mcp`
// over stdio with the official MCP TypeScript SDK client under Bun
// (testdata/tsclient.mjs), on every example agent, the router's reference
// agents and a skills folder. The SDK is what most MCP hosts are built on,
// and it validates each tool result's structuredContent against the tool's
// outputSchema and throws when they differ: the driver turns any thrown
// error into a failure naming the call. The SDK and Bun come from
// `scripts/conformance.sh --install`; without them the test skips.
func TestInteropTypeScriptSDK(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the agent3md binary and runs Bun; skipped with -short")
	}
	bun, run := tsDriver(t)

	bin := filepath.Join(t.TempDir(), "agent3md")
	build := exec.Command("go", "build", "-o", bin, "github.com/agent3md/agent3md/cmd/agent3md")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	for _, agent := range tsAgents(t) {
		abs, err := filepath.Abs(agent)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(filepath.Dir(agent)) + "/" + filepath.Base(agent)
		if !strings.HasSuffix(agent, ".3md") {
			name = "skills-folder"
		}
		t.Run(name, func(t *testing.T) {
			t.Log(runTSDriver(t, bun, run, nil, bin, abs))
		})
	}
}

// tsAgents are the agents both interop tests drive: every example agent,
// the router's reference agents and a skills folder.
func tsAgents(t *testing.T) []string {
	t.Helper()
	var agents []string
	for _, pattern := range []string{"../../examples/*.3md", "../../router/testdata/refagents/*.3md"} {
		m, err := filepath.Glob(pattern)
		if err != nil || len(m) == 0 {
			t.Fatalf("%s: no agents (%v)", pattern, err)
		}
		agents = append(agents, m...)
	}
	return append(agents, folderFixture(t))
}

// tsDriver finds the SDK (skipping the test without it) and prepares a
// folder to run testdata/tsclient.mjs from. Bun resolves a bare import
// from the script's folder upwards, and not through NODE_PATH; so the
// driver runs from a folder whose node_modules links to the cache's.
func tsDriver(t *testing.T) (bun, run string) {
	t.Helper()
	bun, modules := tsSDK(t)
	run = t.TempDir()
	driver, err := os.ReadFile(filepath.Join("testdata", "tsclient.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, "tsclient.mjs"), driver, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modules, filepath.Join(run, "node_modules")); err != nil {
		t.Fatalf("linking the SDK's node_modules: %v", err)
	}
	return bun, run
}

// runTSDriver runs the driver once with env added to the environment and
// returns its summary line; a failure, a hang or a missing summary fails
// the test. --no-install stops Bun from fetching a missing package (some
// other version) from the registry.
func runTSDriver(t *testing.T, bun, run string, env []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), tsClientTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bun, append([]string{"--no-install", filepath.Join(run, "tsclient.mjs")}, args...)...)
	cmd.Dir = run
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = 5 * time.Second // a stdio server inherits stderr; do not wait on it forever
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("the TypeScript SDK driver did not finish within %v:\n%s", tsClientTimeout, out)
	}
	if err != nil {
		t.Fatalf("the TypeScript SDK driver failed (%v):\n%s", err, out)
	}
	summary := ""
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "tsclient: ") {
			summary = line
		}
	}
	if !strings.Contains(summary, ": ok, ") {
		t.Fatalf("the driver exited 0 without its summary line:\n%s", out)
	}
	return summary
}

// agentReadyRE finds an endpoint in serve's startup log (`msg="agent
// ready" agent=Forge endpoint=/mcp/forge … file=…`).
var agentReadyRE = regexp.MustCompile(`msg="agent ready" .*endpoint=(\S+) .*file=(\S+)`)

// TestInteropTypeScriptSDKHTTP drives `agent3md serve` with the official
// TypeScript SDK's StreamableHTTPClientTransport, the transport remote MCP
// hosts are built on: one server process serves every agent of the stdio
// test, over HTTPS (a test CA, passed to Bun as NODE_EXTRA_CA_CERTS) with
// a bearer token, and the driver runs against each agent's endpoint. Over
// HTTP the SDK also opens a GET event stream after initialize, reads an
// answer sent as an event stream (a request with a progress token) and
// sends DELETE when it ends a session; any transport error it reports
// fails the run, as does a 5xx in the server's log.
func TestInteropTypeScriptSDKHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the agent3md binary and runs Bun; skipped with -short")
	}
	bun, run := tsDriver(t)
	const token = "ts-sdk-token-0123456789abcdef"
	pki := newTestPKI(t, "127.0.0.1")
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pki.caPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, agent := range tsAgents(t) {
		abs, err := filepath.Abs(agent)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, abs)
	}
	srv := startServe(t, append([]string{"--token-file", writeTokenFile(t, token),
		"--tls-cert", pki.certFile, "--tls-key", pki.keyFile}, files...)...)
	endpoints := agentReadyRE.FindAllStringSubmatch(srv.log(), -1)
	if len(endpoints) != len(files) {
		t.Fatalf("%d agents ready in the log, want %d:\n%s", len(endpoints), len(files), srv.log())
	}
	env := []string{"TSCLIENT_TOKEN=" + token, "NODE_EXTRA_CA_CERTS=" + caFile}
	for _, ep := range endpoints {
		url, file := "https://"+srv.addr+ep[1], ep[2]
		t.Run(strings.TrimPrefix(ep[1], "/mcp/"), func(t *testing.T) {
			t.Log(runTSDriver(t, bun, run, env, url, file))
		})
	}
	if strings.Contains(srv.log(), "status=5") {
		t.Errorf("a request was answered 5xx:\n%s", srv.log())
	}
}

// tsSDK asks scripts/conformance.sh whether the pinned TypeScript SDK and
// Bun are installed (never installing them) and returns Bun and the
// node_modules folder that holds the SDK; it skips the test when they are
// missing.
func tsSDK(t *testing.T) (bun, modules string) {
	t.Helper()
	paths, ok := scriptInstalled(t, "conformance.sh", "AGENT3MD_CONFORMANCE_DIR", conformanceDir())
	if !ok {
		t.Skipf("the MCP TypeScript SDK or Bun is not installed in %s: run scripts/conformance.sh --install", conformanceDir())
	}
	bun, sdk := paths["bun"], paths["sdk"]
	if bun == "" || sdk == "" {
		t.Fatalf("scripts/conformance.sh --installed printed no bun= and sdk= lines: %v", paths)
	}
	// sdk is …/node_modules/@modelcontextprotocol/sdk.
	return bun, filepath.Dir(filepath.Dir(sdk))
}
