package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agent3md/agent3md/internal/synth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The host tests (docs/protocol.md §13) run real MCP hosts — Claude Code,
// Codex CLI, Gemini CLI, installed by scripts/hosts.sh — against the real
// `agent3md mcp`, configured with the README's own lines, with each host's
// model API replaced by a scripted fake (internal/fakemodel) that records
// what the host hands the model. The script is what a model would do with
// the request hostRequest: route it, load the winner, resolve its
// dependencies, fill its command, list the resources and read the winner's
// SKILL.md, then list the skills of a 1,000-skill agent. The assertions are
// on what the model was handed.

// hostRequest is the user's request in every host run; hostWinner is the
// skill of examples/devtools.3md it routes to, and hostValues its inputs.
const (
	hostRequest = "review my changes against main before I merge"
	hostWinner  = "review-diff"
)

var hostValues = map[string]any{"base": "main", "head": "HEAD"}

// hostInlineLimit is the most characters a default answer may have: Claude
// Code keeps a tool answer inline up to 50,000 characters and Codex keeps
// about 10,000 tokens; 40,000 leaves a margin under both.
const hostInlineLimit = 40000

// hostTimeout bounds one host command; a host that hangs fails its test.
const hostTimeout = 3 * time.Minute

// The README's placeholders in its client lines, replaced by the test's
// binary, agent file and server name.
const (
	readmeBin    = "/usr/local/bin/agent3md"
	readmeAgent  = "/home/me/agents/devtools.3md"
	readmeServer = "devtools"
)

// bigServer is the second server of every run: a 1,000-skill agent, whose
// default list_skills answer is the largest default answer there is.
const bigServer = "big"

// hostsDir is where scripts/hosts.sh keeps the hosts.
func hostsDir() string { return npmCacheDir("AGENT3MD_HOSTS_DIR", "agent3md-hosts") }

// hostExe asks scripts/hosts.sh whether the hosts are installed (never
// installing them) and returns the executable of the one named; it skips
// the test when they are missing.
func hostExe(t *testing.T, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs an MCP host from npm against the agent3md binary; skipped with -short")
	}
	paths, ok := scriptInstalled(t, "hosts.sh", "AGENT3MD_HOSTS_DIR", hostsDir())
	if !ok {
		t.Skipf("the MCP hosts are not installed in %s: run scripts/hosts.sh --install", hostsDir())
	}
	if paths[name] == "" {
		t.Fatalf("scripts/hosts.sh --installed printed no %s= line: %v", name, paths)
	}
	return paths[name]
}

// readmeLine returns the README's configuration line that starts with
// prefix ("claude mcp add"), split into words; it fails when there is
// none, or when the line lacks the placeholders the test replaces.
func readmeLine(t *testing.T, prefix string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, prefix+" ") {
			found = append(found, line)
		}
	}
	if len(found) == 0 {
		t.Fatalf("README.md has no line starting %q: the host tests run the README's configuration lines", prefix)
	}
	words := strings.Fields(found[0])
	for _, want := range []string{readmeBin, readmeAgent, readmeServer} {
		if !containsWord(words, want) {
			t.Fatalf("README.md's line %q lacks %s, which the host test replaces with its own", found[0], want)
		}
	}
	return words
}

func containsWord(words []string, w string) bool {
	for _, x := range words {
		if x == w {
			return true
		}
	}
	return false
}

// serverLine is a README line with its placeholders replaced: the server
// named name runs bin on agent.
func serverLine(words []string, name, bin, agent string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		switch w {
		case readmeBin:
			w = bin
		case readmeAgent:
			w = agent
		case readmeServer:
			w = name
		}
		out[i] = w
	}
	return out
}

// hostKit is what every host run shares: the binary, the two agents, a
// home and a project folder of its own, and what the server itself says.
type hostKit struct {
	bin, devtools, big string
	home, work         string
	// elsewhere is the folder the README's lines are run in: the hosts
	// run in work, so a line that registered a server for one folder
	// only (Claude Code's default scope) fails the test.
	elsewhere string
	env       []string // a clean environment: temp HOME and XDG folders, PATH, locale

	instructions string // devtools' initialize instructions
	body         string // get_skill's text for the winner
	chain        map[string]string
	skillMD      string // the winner's SKILL.md resource
	command      string // the filled command
	bigFirst     string // the big agent's first skill
}

func newHostKit(t *testing.T) *hostKit {
	t.Helper()
	k := &hostKit{bin: agent3mdBinary(t), big: synth.Path(t, 1000), chain: map[string]string{}}
	var err error
	if k.devtools, err = filepath.Abs(devtools); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	k.home, k.work, k.elsewhere = filepath.Join(root, "home"), filepath.Join(root, "work"), filepath.Join(root, "elsewhere")
	for _, d := range []string{k.home, k.work, k.elsewhere, filepath.Join(root, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	k.env = []string{"HOME=" + k.home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "TERM=dumb",
		"TMPDIR=" + filepath.Join(root, "tmp"),
		"XDG_CONFIG_HOME=" + filepath.Join(k.home, ".config"), "XDG_CACHE_HOME=" + filepath.Join(k.home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(k.home, ".local/share"), "XDG_STATE_HOME=" + filepath.Join(k.home, ".local/state")}
	k.expect(t)
	return k
}

// expect reads what the model should be handed from the CLI, which
// prints the same bytes the server serves.
func (k *hostKit) expect(t *testing.T) {
	t.Helper()
	must := func(args ...string) string {
		code, out, errOut := cli(t, args...)
		if code != 0 {
			t.Fatalf("agent3md %s: exit %d: %s", strings.Join(args, " "), code, errOut)
		}
		return strings.TrimRight(out, "\n")
	}
	if got := strings.Fields(must("route", k.devtools, hostRequest)); len(got) == 0 || got[0] != hostWinner {
		t.Fatalf("agent3md route %q = %q, want %s first: the scripted request no longer fits", hostRequest, got, hostWinner)
	}
	k.body = must("get", k.devtools, hostWinner)
	for _, line := range strings.Split(must("resolve", k.devtools, hostWinner), "\n") {
		if name, ok := strings.CutPrefix(line, "### "); ok {
			k.chain[name] = must("get", k.devtools, name)
		}
	}
	if len(k.chain) < 2 {
		t.Fatalf("%s resolves to %d skills; the test wants a chain", hostWinner, len(k.chain))
	}
	k.skillMD = must("get", k.devtools, hostWinner, "--file", "SKILL.md")
	k.command = must("run", "--skill", hostWinner, k.devtools, "base=main", "head=HEAD")
	k.bigFirst = strings.Fields(must("skills", k.big))[0]
	k.instructions = serverInstructions(t, k.bin, k.devtools)
}

// serverInstructions is what the server sends as its instructions.
func serverInstructions(t *testing.T, bin, agent string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.Command(bin, "mcp", "--cache-dir", t.TempDir(), "--log-level", "warn", agent)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "hosts-test", Version: "1"}, nil).
		Connect(ctx, &sdk.CommandTransport{Command: cmd}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatalf("connecting to agent3md mcp: %v", err)
	}
	defer cs.Close()
	ins := strings.TrimSpace(cs.InitializeResult().Instructions)
	if ins == "" {
		t.Fatal("the server sent no instructions")
	}
	return ins
}

// runHost runs one host command in the kit's project folder with env
// added to the kit's environment and returns its output; err is its exit.
func (k *hostKit) runHost(t *testing.T, env []string, argv ...string) (stdout, stderr string, err error) {
	t.Helper()
	return k.runHostIn(t, k.work, env, argv...)
}

// runHostIn is runHost in folder dir.
func (k *hostKit) runHostIn(t *testing.T, dir string, env []string, argv ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hostTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(append([]string(nil), k.env...), env...)
	cmd.WaitDelay = 10 * time.Second // MCP servers inherit the pipes; do not wait on them forever
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("did not finish within %v", hostTimeout)
	}
	return out.String(), errb.String(), err
}

// mustRunHost is runHost for setup commands, which must succeed.
func (k *hostKit) mustRunHost(t *testing.T, env []string, argv ...string) string {
	t.Helper()
	out, errOut, err := k.runHost(t, env, argv...)
	if err != nil {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(argv, " "), err, out, errOut)
	}
	return out
}

// tail is the end of a host's output, for a failure message.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// textHead is the start of a text as a one-line Go string, for the report.
func textHead(s string, n int) string {
	if len(s) > n {
		s = s[:n]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
	}
	return fmt.Sprintf("%q", s)
}

// TestReadmeHostLines: the README has a configuration line for each host
// the host tests run, with the placeholders they replace, so the lines
// users copy are the lines CI runs even where the hosts are not installed.
func TestReadmeHostLines(t *testing.T) {
	for _, prefix := range []string{"claude mcp add", "codex mcp add", "gemini mcp add"} {
		words := readmeLine(t, prefix)
		// A library is for every folder: Claude Code and Gemini CLI
		// register in the current project unless told the user's scope
		// (Codex CLI has only the user's, ~/.codex/config.toml).
		if prefix != "codex mcp add" && !strings.Contains(strings.Join(words, " "), " --scope user ") {
			t.Errorf("%s: the README's line %q registers the server for one folder only; add --scope user", prefix, strings.Join(words, " "))
		}
		got := serverLine(words, "s", "/bin/x", "/a.3md")
		if !containsWord(got, "/bin/x") || !containsWord(got, "/a.3md") || !containsWord(got, "s") {
			t.Errorf("%s: replacing the placeholders gave %q", prefix, got)
		}
	}
}
