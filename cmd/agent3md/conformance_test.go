package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// userCacheHome is XDG_CACHE_HOME as the test process found it, before
// TestMain points it at a temporary folder: the conformance suite is
// installed under the user's cache (docs/http.md §9).
var userCacheHome = os.Getenv("XDG_CACHE_HOME")

// conformanceDir is where scripts/conformance.sh keeps the suite and Bun.
func conformanceDir() string {
	return npmCacheDir("AGENT3MD_CONFORMANCE_DIR", "agent3md-conformance")
}

// npmCacheDir is where a script of scripts/ keeps what it installs with
// npm: the folder $env names, else name under the user's cache folder,
// as the script itself decides.
func npmCacheDir(env, name string) string {
	if d := os.Getenv(env); d != "" {
		return d
	}
	if userCacheHome != "" {
		return filepath.Join(userCacheHome, name)
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", name)
}

// scriptInstalled runs `bash scripts/SCRIPT --installed` with its cache
// folder in env (never installing anything) and returns the NAME=VALUE
// lines it prints; ok is false when it says something is missing.
func scriptInstalled(t *testing.T, script, env, dir string) (paths map[string]string, ok bool) {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("../../scripts", script))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", abs, "--installed")
	cmd.Env = append(os.Environ(), env+"="+dir)
	out, err := cmd.Output()
	if err != nil {
		return nil, false
	}
	paths = map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if k, v, found := strings.Cut(line, "="); found {
			paths[k] = v
		}
	}
	return paths, true
}

// TestServeConformanceSuite runs the official MCP conformance suite (under
// Bun, through scripts/conformance.sh) against the real `agent3md serve` on
// examples/devtools.3md, at the suite's default revision (2025-11-25) and
// at 2026-07-28, every scenario that needs no fixture tool or prompt of
// the suite's own test server (docs/http.md §9), and the skills
// extension's scenarios against the skills folder fixture. It never
// installs the suite: `scripts/conformance.sh --install` does.
func TestServeConformanceSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the agent3md binary and runs Bun; skipped with -short")
	}
	script, err := filepath.Abs("../../scripts/conformance.sh")
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "AGENT3MD_CONFORMANCE_DIR="+conformanceDir())
	installed := exec.Command("bash", script, "--installed")
	installed.Env = env
	if installed.Run() != nil {
		t.Skipf("the MCP conformance suite or Bun is not installed in %s: run scripts/conformance.sh --install", conformanceDir())
	}
	agent, err := filepath.Abs(devtools)
	if err != nil {
		t.Fatal(err)
	}
	s := startServe(t, "--no-watch", agent)
	// dns-rebinding-protection wants a localhost URL: it sends the real
	// host:port and expects 2xx, then an evil Host and Origin and expects 4xx.
	url := "http://localhost:" + s.port() + "/mcp"
	runs := []struct {
		name string
		args []string
	}{
		{"2025-11-25", []string{"server-initialize", "ping", "tools-list", "resources-list", "prompts-list", "dns-rebinding-protection"}},
		// server-initialize and ping were removed in 2026-07-28; the suite
		// skips them there.
		{"2026-07-28", []string{"--spec-version", "2026-07-28", "tools-list", "resources-list", "prompts-list", "dns-rebinding-protection",
			"sep-2164-resource-not-found", "caching", "http-header-validation"}},
	}
	// The skills extension's scenarios (no revision of their own) want a
	// skill with a subdirectory: the skills folder fixture's good/
	// has references/.
	skillsDir, err := filepath.Abs("testdata/skillsdir")
	if err != nil {
		t.Fatal(err)
	}
	skills := startServe(t, "--no-watch", skillsDir)
	runs = append(runs, struct {
		name string
		args []string
	}{"skills-extension", []string{"sep-2640-skills-enumeration", "sep-2640-skills-manifest", "sep-2640-skills-directory"}})
	for _, run := range runs {
		url := url
		if run.name == "skills-extension" {
			url = "http://localhost:" + skills.port() + "/mcp"
		}
		t.Run(run.name, func(t *testing.T) {
			cmd := exec.Command("bash", append([]string{script, "--url", url}, run.args...)...)
			cmd.Env = env
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("conformance: %v\n%s\nserver log:\n%s", err, out, s.log())
			}
			if !strings.Contains(string(out), "0 failed") || strings.Contains(string(out), "FAILURE") {
				t.Fatalf("conformance output reports a failure:\n%s", out)
			}
			t.Logf("%s", out)
		})
	}
}
