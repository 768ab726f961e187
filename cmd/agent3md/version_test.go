package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVersionCommand: the command prints this binary's build info (a test
// binary's main module version is "(devel)" or a VCS-derived version).
func TestVersionCommand(t *testing.T) {
	code, out, _ := cli(t, "version")
	want := buildVersion().String()
	if code != 0 || strings.TrimSpace(out) != want || !strings.HasPrefix(out, "agent3md ") || !strings.Contains(out, " go1.") {
		t.Fatalf("exit %d, %q, want %q", code, out, want)
	}
}

// TestVersionBinaryLdflags builds the real binary the way CI does
// (-buildvcs=false) with and without -X main.commit.
func TestVersionBinaryLdflags(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary twice; skipped with -short")
	}
	dir := t.TempDir()
	for _, tt := range []struct{ name, ldflags, want string }{
		{"stamped", "-X main.commit=abc123def456", "(commit abc123def456)"},
		{"unstamped", "", "(commit not recorded"},
	} {
		bin := filepath.Join(dir, tt.name)
		build := exec.Command("go", "build", "-buildvcs=false", "-ldflags", tt.ldflags, "-o", bin, "github.com/agent3md/agent3md/cmd/agent3md")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		out, err := exec.Command(bin, "version").Output()
		if err != nil || !strings.Contains(string(out), tt.want) {
			t.Errorf("%s: %q (%v), want it to contain %q", tt.name, out, err, tt.want)
		}
	}
}
