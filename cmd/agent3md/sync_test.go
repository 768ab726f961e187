package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent3md/agent3md/skillsdir"
)

// agent3md sync against our own servers: serve over HTTPS with a token
// and a test CA, and mcp over stdio, for every bundled example (DIR then
// holds what export --skills-dir writes, byte for byte) and for skills
// folders (DIR then holds the folder itself).

const syncToken = "sync-test-token-0123456789abcdef"

// syncFolders are skills folders to sync: public skills of the routing
// corpus, and one made here with scripts, binary assets, names that need
// escapes and a nested skill.
func syncFolders(t *testing.T) []string {
	t.Helper()
	made := filepath.Join(t.TempDir(), "kit")
	files := map[string]string{
		"deploy/SKILL.md":                  "---\nname: deploy\ndescription: Deploy the app. Use when asked to ship.\nmetadata:\n  triggers: \"ship it\"\n---\nRead [the notes](references/build notes.md).\n",
		"deploy/references/build notes.md": "# Build\n\nRun make.\n",
		"deploy/scripts/run.sh":            "#!/bin/sh\necho deploy\n",
		"deploy/assets/logo.png":           "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe",
		"lint/SKILL.md":                    "---\nname: lint\ndescription: Lint the code.\n---\nLint.\n",
		"lint/rules/SKILL.md":              "---\nname: rules\ndescription: The lint rules.\n---\nRules.\n",
		"lint/rules/état.md":               "Les règles.\n",
	}
	for p, data := range files {
		path := filepath.Join(made, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return []string{made, "../../router/testdata/folders/anthropic", "../../router/testdata/folders/superpowers"}
}

// treeFiles is every regular file below dir but hidden ones, by slash path.
func treeFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && p != dir {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameAsExport compares DIR with export --skills-dir of the agent file:
// the same files, byte for byte, the identity too (references/AGENT.md
// and the last line of SKILL.md pointing to it): a team's rules reach
// whoever syncs. Only the hidden markers differ, each naming its writer.
func sameAsExport(t *testing.T, dir, file string) {
	t.Helper()
	exp := t.TempDir()
	if code, _, errOut := cli(t, "export", "--skills-dir", exp, file); code != 0 {
		t.Fatalf("export: %s", errOut)
	}
	got, want := treeFiles(t, dir), treeFiles(t, exp)
	ids := 0
	for p, w := range want {
		if strings.HasSuffix(p, "/references/AGENT.md") {
			ids++
		}
		if g, ok := got[p]; !ok {
			t.Errorf("%s: missing", p)
		} else if g != w {
			i := 0
			for i < len(g) && i < len(w) && g[i] == w[i] {
				i++
			}
			t.Errorf("%s differs from export's at byte %d of %d/%d: %q vs %q", p, i, len(g), len(w), g[i:min(i+80, len(g))], w[i:min(i+80, len(w))])
		}
		delete(got, p)
	}
	for p := range got {
		t.Errorf("%s: synced, not exported", p)
	}
	if ids == 0 {
		t.Errorf("export of %s wrote no references/AGENT.md", file)
	}
}

// sameAsFolder compares DIR with the skills folder it was synced from:
// every folder of a skill the server serves (a broken one is not), byte
// for byte; nested skills inside their parent's.
func sameAsFolder(t *testing.T, dir, folder string) {
	t.Helper()
	folder = mustAbs(folder)
	cat, err := skillsdir.Scan(context.Background(), []string{folder}, nil)
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, sk := range cat.Skills() {
		if rel, err := filepath.Rel(folder, sk.Dir); err == nil && !strings.Contains(filepath.ToSlash(rel), "/") {
			served[rel] = true
		}
	}
	got, want := treeFiles(t, dir), treeFiles(t, folder)
	for p := range want {
		if top, _, _ := strings.Cut(p, "/"); !served[top] || !strings.Contains(p, "/") {
			delete(want, p) // AGENT.md, a LICENSE, a broken skill
		}
	}
	for p, w := range want {
		if g, ok := got[p]; !ok {
			t.Errorf("%s: missing", p)
		} else if g != w {
			t.Errorf("%s differs", p)
		}
		delete(got, p)
	}
	for p := range got {
		t.Errorf("%s: synced, not in the folder", p)
	}
}

var readyRE = regexp.MustCompile(`msg="agent ready" .*endpoint=(\S+) .*file=(\S+)`)

// checkSynced runs sync twice: the first adds every skill, the second
// changes nothing.
func checkSynced(t *testing.T, args ...string) {
	t.Helper()
	code, out, errOut := cli(t, append([]string{"sync", "--json"}, args...)...)
	var sum struct {
		OK                        bool
		Added, Updated, Unchanged []string
		Refused                   []struct{ Skill, Reason string }
		Via                       string
	}
	if err := json.Unmarshal([]byte(out), &sum); code != 0 || err != nil || !sum.OK || len(sum.Added) == 0 || sum.Via != "skills-extension" {
		t.Fatalf("sync %v: exit %d, %v\n%s%s", args, code, err, out, errOut)
	}
	n := len(sum.Added)
	code, out, errOut = cli(t, append([]string{"sync", "--json"}, args...)...)
	sum.Added = nil
	if err := json.Unmarshal([]byte(out), &sum); code != 0 || err != nil || len(sum.Unchanged) != n || len(sum.Added)+len(sum.Updated) != 0 {
		t.Fatalf("second sync %v: exit %d, %v\n%s%s", args, code, err, out, errOut)
	}
}

func TestSyncFromServe(t *testing.T) {
	pki := newTestPKI(t, "127.0.0.1")
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pki.caPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	tokens := writeTokenFile(t, syncToken)
	examples, _ := filepath.Glob("../../examples/*.3md")
	folders := syncFolders(t)
	args := append([]string{"--token-file", tokens, "--tls-cert", pki.certFile, "--tls-key", pki.keyFile, "--no-watch"}, examples...)
	s := startServe(t, append(args, folders...)...)
	endpoints := map[string]string{}
	for _, m := range readyRE.FindAllStringSubmatch(s.log(), -1) {
		endpoints[m[2]] = "https://127.0.0.1:" + s.port() + m[1]
	}
	for _, src := range append(examples, folders...) {
		url := endpoints[src]
		if url == "" {
			t.Fatalf("no endpoint for %s in:\n%s", src, s.log())
		}
		t.Run(filepath.Base(src), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "skills")
			checkSynced(t, url, dir, "--token-file", tokens, "--ca-file", ca)
			if strings.HasSuffix(src, ".3md") {
				sameAsExport(t, dir, src)
			} else {
				sameAsFolder(t, dir, src)
			}
		})
	}
	t.Run("no token", func(t *testing.T) {
		t.Setenv("AGENT3MD_TOKEN", "")
		code, _, errOut := cli(t, "sync", endpoints[examples[0]], t.TempDir(), "--ca-file", ca)
		if code != 2 || !strings.Contains(errOut, "401") || !strings.Contains(errOut, "bearer token") {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	})
	t.Run("untrusted certificate", func(t *testing.T) {
		code, _, errOut := cli(t, "sync", endpoints[examples[0]], t.TempDir(), "--token-file", tokens)
		if code != 2 || !strings.Contains(errOut, "certificate") {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	})
}

func mustAbs(p string) string {
	a, _ := filepath.Abs(p)
	return a
}

func TestSyncFromMCP(t *testing.T) {
	bin := agent3mdBinary(t)
	examples, _ := filepath.Glob("../../examples/*.3md")
	for _, src := range append(examples, syncFolders(t)...) {
		t.Run(filepath.Base(src), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "skills")
			checkSynced(t, "--server", shellWord(bin)+" mcp --no-watch "+shellWord(mustAbs(src)), dir)
			if strings.HasSuffix(src, ".3md") {
				sameAsExport(t, dir, src)
			} else {
				sameAsFolder(t, dir, src)
			}
		})
	}
}

// lineWriter hands over each line written to it.
type lineWriter struct{ lines chan string }

func (w lineWriter) Write(p []byte) (int, error) {
	for _, l := range strings.SplitAfter(string(p), "\n") {
		if l != "" {
			w.lines <- l
		}
	}
	return len(p), nil
}

// An edit on the server reaches DIR under --watch through the server's
// notification (the interval is an hour), and SIGINT's context end stops
// the watch with exit 0.
func TestSyncWatchServe(t *testing.T) {
	file := filepath.Join(t.TempDir(), "team.3md")
	orig, err := os.ReadFile(devtools)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, file)
	url := "http://127.0.0.1:" + s.port() + "/mcp"
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := lineWriter{lines: make(chan string, 64)}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"sync", "--watch", "--json", "--interval", "1h", url, dir}, strings.NewReader(""), out, io.Discard)
	}()
	pass := func(what string) map[string]any {
		t.Helper()
		select {
		case l := <-out.lines:
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("not a JSON summary: %q", l)
			}
			return m
		case code := <-done:
			t.Fatalf("sync --watch exited %d before %s", code, what)
		case <-time.After(30 * time.Second):
			t.Fatalf("no pass where %s within 30s", what)
		}
		return nil
	}
	if first := pass("the first pass is done"); len(first["added"].([]any)) != 11 {
		t.Fatalf("first pass: %v", first)
	}
	edited := strings.Replace(string(orig), "Use this to run Go tests", "Use this to run all the Go tests", 1)
	if edited == string(orig) {
		t.Fatal("the edit changed nothing")
	}
	start := time.Now()
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	upd := pass("the edit reached DIR")
	// The issue asks for 2 s; it takes about 0.25 s on a loaded 2-core
	// machine (the file watcher's debounce, the reload, the notification
	// and one pass), and only the notification can bring it this soon.
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the edit took %v to reach DIR, over 2s", took)
	}
	if u := upd["updated"].([]any); len(u) == 0 {
		t.Fatalf("pass after the edit: %v", upd)
	}
	b, err := os.ReadFile(filepath.Join(dir, "run-tests", "SKILL.md"))
	if err != nil || !strings.Contains(string(b), "run all the Go tests") {
		t.Fatalf("run-tests/SKILL.md: %v\n%s", err, b)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("sync --watch exited %d after its context ended", code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("sync --watch did not stop within 30s")
	}
}

// The binary under --watch stops cleanly on SIGTERM and SIGINT.
func TestSyncWatchSignals(t *testing.T) {
	bin := agent3mdBinary(t)
	s := startServe(t, devtools)
	url := "http://127.0.0.1:" + s.port() + "/mcp"
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin, "sync", "--watch", url, t.TempDir())
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			lines := bufio.NewScanner(stdout)
			for lines.Scan() && !strings.Contains(lines.Text(), "11 added") {
			}
			cmd.Process.Signal(sig)
			go io.Copy(io.Discard, stdout)
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case err := <-exited:
				if err != nil {
					t.Fatalf("exit after %v: %v", sig, err)
				}
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("no exit within 30s of %v", sig)
			}
		})
	}
}

func TestSyncUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"sync"}, "accepts between 1 and 2 arg"},
		{[]string{"sync", "dir"}, "sync takes SOURCE and DIR"},
		{[]string{"sync", "ftp://host/mcp", "dir"}, "not an http:// or https:// URL"},
		{[]string{"sync", "examples/devtools.3md", "dir"}, "pass --server"},
		{[]string{"sync", "https://me:secret@host/mcp", "dir"}, "carries user info"},
		{[]string{"sync", "--server", "agent3md mcp x.3md", "a", "b"}, "takes one argument, DIR"},
		{[]string{"sync", "--server", "'unterminated", "dir"}, "unterminated"},
		{[]string{"sync", "--server", "x", "--token-file", "t", "dir"}, "go with a URL"},
		{[]string{"sync", "--watch", "--dry-run", "http://127.0.0.1:1/mcp", "dir"}, "--watch and --dry-run"},
		{[]string{"sync", "--max-file-bytes", "0", "http://127.0.0.1:1/mcp", "dir"}, "--max-file-bytes must be above 0"},
		{[]string{"sync", "--max-in-flight", "5000", "http://127.0.0.1:1/mcp", "dir"}, "from 1 to 1024"},
		{[]string{"sync", "--interval", "0s", "http://127.0.0.1:1/mcp", "dir"}, "--interval must be above 0"},
		{[]string{"sync", "--max-pages", "0", "http://127.0.0.1:1/mcp", "dir"}, "--max-pages must be above 0"},
		{[]string{"sync", "--max-cursor-bytes", "0", "http://127.0.0.1:1/mcp", "dir"}, "--max-cursor-bytes must be above 0"},
		{[]string{"sync", "--max-listing-bytes", "0", "http://127.0.0.1:1/mcp", "dir"}, "--max-listing-bytes must be above 0"},
		{[]string{"sync", "--max-frontmatter-bytes", "0", "http://127.0.0.1:1/mcp", "dir"}, "--max-frontmatter-bytes must be above 0"},
		{[]string{"sync", "http://127.0.0.1:1/mcp", t.TempDir()}, "127.0.0.1:1"},
	} {
		code, _, errOut := cli(t, tt.args...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tt.args, code, errOut, tt.want)
		}
	}
}

// A refused skill is exit 1 with the reason on stdout; the others are
// synced.
func TestSyncRefusedExit(t *testing.T) {
	bin := agent3mdBinary(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "lint"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "lint", "SKILL.md"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := cli(t, "sync", "--server", shellWord(bin)+" mcp --no-watch "+shellWord(mustAbs(devtools)), dir)
	if code != 1 || !strings.Contains(out, "refused   lint: ") || !strings.Contains(out, "10 added") {
		t.Fatalf("exit %d:\n%s%s", code, out, errOut)
	}
	fmt.Fprint(io.Discard, errOut)
}

// TestReadmeSyncLines: the README's team section's command lines (serve
// on one side, sync on the other) are commands with flags this binary
// takes.
func TestReadmeSyncLines(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "agent3md sync ") && !strings.HasPrefix(line, "agent3md serve ") {
			continue
		}
		seen++
		line, _, _ = strings.Cut(line, " #")
		words := strings.Fields(line)[1:]
		root := newRoot(&app{stdout: io.Discard, stderr: io.Discard})
		c, rest, err := root.Find(words)
		if err == nil {
			err = c.ParseFlags(rest)
		}
		if err == nil {
			err = c.ValidateArgs(c.Flags().Args())
		}
		if err != nil || c.Name() != words[0] {
			t.Errorf("README line %q: %v (command %s)", line, err, c.Name())
		}
	}
	if seen < 2 {
		t.Errorf("README has %d sync and serve lines in its team section, want both", seen)
	}
}
