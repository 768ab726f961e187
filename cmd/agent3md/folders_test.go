package main

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMCPFolderSources: mcp sorts its arguments into one agent file or
// skill folders, refuses a mix and an empty list with what to do, and
// serves folders (initialize names the AGENT.md agent; the scan's
// findings are logged).
func TestMCPFolderSources(t *testing.T) {
	dir := folderFixture(t)
	t.Setenv("HOME", t.TempDir()) // no well-known folder exists
	const init = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"file and folder", []string{"mcp", devtools, dir}, 2, "", "not both"},
		{"two files", []string{"mcp", devtools, devtools}, 2, "", "one agent file, got 2"},
		{"nothing", []string{"mcp"}, 2, "", "one or more skill folders"},
		{"missing well-known only", []string{"mcp", "--claude-skills"}, 2, "", "--claude-skills: "},
		{"folder", []string{"mcp", "--no-cache", "--no-watch", dir}, 0, `"name":"agent3md:Fixture Tools"`, "serving skill folders"},
		{"folder and missing well-known", []string{"mcp", "--no-cache", "--no-watch", "--codex-skills", dir}, 0, `"id":1,"result"`, "does not exist; not served"},
		{"clash", []string{"mcp", "--no-cache", "--no-watch", dir, folderFixture(t)}, 2, "", "defined twice"},
		{"no skills", []string{"mcp", "--no-cache", "--no-watch", filepath.Dir(devtools)}, 2, "", "holds agent files ("},
		{"bad depth", []string{"mcp", "--no-cache", "--max-skill-depth", "0", dir}, 2, "", "--max-skill-depth 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := cliIn(t, init, tc.args...)
			if code != tc.code || !strings.Contains(out, tc.stdout) || !strings.Contains(errOut, tc.stderr) {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s\nwant %q on stdout, %q on stderr", code, tc.code, out, errOut, tc.stdout, tc.stderr)
			}
		})
	}
}

// TestMCPWellKnownFolder: --claude-skills serves ~/.claude/skills.
func TestMCPWellKnownFolder(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	dst := filepath.Join(home, ".claude")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(folderFixture(t), filepath.Join(dst, "skills")); err != nil {
		t.Fatal(err)
	}
	const in = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"skill://rules/SKILL.md"}}` + "\n"
	code, out, errOut := cliIn(t, in, "mcp", "--no-cache", "--no-watch", "--claude-skills")
	if code != 0 || !strings.Contains(out, "The house style rules") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

// TestServeFolderEndpoint: serve opens a skills DIR as one agent, at the
// endpoint named by its AGENT.md, next to an agent file; its files are
// read over HTTP like over stdio (the binary asset as a blob).
func TestServeFolderEndpoint(t *testing.T) {
	sv := openServedFixture(t)
	defer sv.Close()
	ep := sv.ep
	h, ok := ep.Agents["fixture-tools"]
	if !ok || len(ep.Agents) != 2 {
		t.Fatalf("endpoints %v, want fixture-tools beside the file's", ep.Agents)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"skill://lint/assets/logo.png",`+meta+`}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "resources/read")
	req.Header.Set("Mcp-Name", "skill://lint/assets/logo.png")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"blob":"`) || !strings.Contains(string(body), `"mimeType":"image/png"`) {
		t.Errorf("status %d: %s", resp.StatusCode, body)
	}
}

// TestMCPFolderReload: a served folder is watched (watch.NewTree); an
// added skill reaches the client as list_changed, then routes.
func TestMCPFolderReload(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the watcher to settle")
	}
	dir := folderFixture(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), []string{"mcp", "--no-cache", "--log-level", "warn", dir}, inR, outW, io.Discard)
		outW.Close()
	}()
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	wait := func(want string) {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("server exited before %q", want)
				}
				if strings.Contains(l, want) {
					return
				}
			case <-deadline:
				t.Fatalf("never saw %q", want)
			}
		}
	}
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	wait(`"listChanged":true`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_skills","arguments":{}}}`)
	wait(`"id":2`)
	if err := os.MkdirAll(filepath.Join(dir, "gamma"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gamma", "SKILL.md"), []byte("---\nname: gamma\ndescription: Gamma rays. Use for gamma tasks.\n---\nGamma body.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wait("notifications/tools/list_changed")
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_skill","arguments":{"name":"gamma"}}}`)
	wait("Gamma body.")
	inW.Close()
	if code := <-done; code != 0 {
		t.Errorf("exit %d", code)
	}
}

// TestCommandsOnAFolder: the one-shot commands read a directory as a
// skills folder, as mcp does; export, which writes an agent file's
// projection, says to import the folder first.
func TestCommandsOnAFolder(t *testing.T) {
	dir := folderFixture(t)
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"skills", dir}, 0, "build (z="},
		{[]string{"get", dir, "build"}, 0, "#"},
		{[]string{"resolve", dir, "deploy"}, 0, "### build"},
		{[]string{"route", "--no-cache", dir, "build the project"}, 0, "build"},
		{[]string{"manifest", dir}, 0, "build"},
		{[]string{"export", dir}, 2, "agent3md import"},
		{[]string{"get", dir, "nope"}, 1, "no skill named"},
		{[]string{"get", dir, "deploy", "--file", "references/runbook.md"}, 0, "#"},
		{[]string{"get", dir, "deploy", "--file", "./SKILL.md"}, 0, "name: deploy"},
		{[]string{"get", dir, "deploy", "--file", "../lint/SKILL.md"}, 1, "its files: SKILL.md, references/runbook.md"},
		{[]string{"get", dir, "nope", "--file", "SKILL.md"}, 1, "no skill named"},
	} {
		var out, errb strings.Builder
		code := run(context.Background(), tt.args, strings.NewReader(""), &out, &errb)
		if code != tt.code || !strings.Contains(out.String()+errb.String(), tt.want) {
			t.Errorf("%v: exit %d, want %d containing %q\nstdout: %.300s\nstderr: %.300s", tt.args, code, tt.code, tt.want, out.String(), errb.String())
		}
	}
}

// openServedFixture opens what serve would for devtools.3md beside the
// folder fixture, watchers included; the context stays live until the
// test ends, so only Close stops them.
func openServedFixture(t *testing.T) *servedAgents {
	t.Helper()
	dir := folderFixture(t)
	t.Setenv("HOME", t.TempDir())
	a := &app{stderr: io.Discard, stdout: io.Discard}
	a.cache.noCache = true
	ff := &folderFlags{maxDepth: 4, maxFileBytes: 1 << 20}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	sv, err := a.openServed(ctx, []string{devtools, dir}, servedOptions{logger: slog.New(slog.NewTextHandler(io.Discard, nil)), flags: &serverFlags{folders: *ff}})
	if err != nil {
		sv.Close()
		t.Fatal(err)
	}
	return sv
}
