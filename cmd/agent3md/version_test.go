package main

import (
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionInfo(t *testing.T) {
	tests := []struct {
		name     string
		version  string
		settings []debug.BuildSetting
		want     string
	}{
		{"go install of a tag", "v1.2.3", nil, "agent3md v1.2.3 go1.x"},
		{"go install of a commit", "v0.0.0-20260101120000-abcdef123456", nil, "agent3md v0.0.0-20260101120000-abcdef123456 (commit abcdef123456) go1.x"},
		{"pseudo-version after a tag", "v1.2.4-0.20260101120000-abcdef123456+dirty", nil, "(commit abcdef123456)"},
		{"local build in a checkout", "(devel)", []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-11-26T05:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		}, "agent3md (devel) (commit 0123456789abcdef0123456789abcdef01234567, 2026-11-26T05:00:00Z, modified) go1.x"},
		{"no vcs", "(devel)", nil, "agent3md (devel) (commit not recorded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := versionInfo{Version: tt.version, Go: "go1.x"}
			v.fromSettings(tt.settings)
			if v.Commit == "" {
				v.Commit = pseudoCommit(v.Version)
			}
			if got := v.String(); !strings.Contains(got, tt.want) {
				t.Errorf("got %q, want it to contain %q", got, tt.want)
			}
		})
	}
	for _, s := range []string{"v1.2.3", "v1.2.3-rc.1", "v0.0.0-2026-xyz", "(devel)"} {
		if c := pseudoCommit(s); c != "" {
			t.Errorf("pseudoCommit(%q) = %q, want none", s, c)
		}
	}
}

// TestVersionCommand: the command prints this binary's build info (a test
// binary's main module version is "(devel)" or a VCS-derived version).
func TestVersionCommand(t *testing.T) {
	code, out, _ := cli(t, "version")
	want := buildVersion().String()
	if code != 0 || strings.TrimSpace(out) != want || !strings.HasPrefix(out, "agent3md ") || !strings.Contains(out, " go1.") {
		t.Fatalf("exit %d, %q, want %q", code, out, want)
	}
}

// TestVersionCommitFromLdflags: a build whose build info records no commit
// (-buildvcs=false, or no .git) takes it from -X main.commit, and says so
// when that is missing too; the build info's own commit wins over both.
func TestVersionCommitFromLdflags(t *testing.T) {
	const sha = "0123456789abcdef0123456789abcdef01234567"
	tests := []struct {
		name     string
		settings []debug.BuildSetting
		ldflags  string
		want     string
	}{
		{"ldflags only", nil, sha, "agent3md (devel) (commit " + sha + ") go1.x"},
		{"build info wins", []debug.BuildSetting{{Key: "vcs.revision", Value: "feedface"}}, sha, "(commit feedface)"},
		{"neither", nil, "", "agent3md (devel) (commit not recorded: built with -buildvcs=false or outside a git checkout; 'just build' stamps it) go1.x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := versionInfo{Version: "(devel)", Go: "go1.x"}
			v.fromSettings(tt.settings)
			v.fillCommit(tt.ldflags)
			if got := v.String(); !strings.Contains(got, tt.want) {
				t.Errorf("got %q, want it to contain %q", got, tt.want)
			}
		})
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
