package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	tests := []struct {
		name     string
		version  string
		settings []debug.BuildSetting
		want     string
	}{
		{"go install of a tag", "v1.2.3", nil, "agent3md v1.2.3 go1.x"},
		{"go install of a commit", "v0.0.0-20260101120000-abcdef123456", nil, "agent3md v0.0.0-20260101120000-abcdef123456 (commit abcdef123456) go1.x"},
		{"pseudo-version after a tag", "v1.2.4-0.20260101120000-abcdef123456+dirty", nil, "(commit abcdef123456)"},
		{"local build in a checkout", Devel, []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-11-26T05:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		}, "agent3md (devel) (commit 0123456789abcdef0123456789abcdef01234567, 2026-11-26T05:00:00Z, modified) go1.x"},
		{"no vcs", Devel, nil, "agent3md (devel) (commit not recorded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Info{Version: tt.version, Go: "go1.x"}
			v.FromSettings(tt.settings)
			v.FillCommit("")
			if got := v.String(); !strings.Contains(got, tt.want) {
				t.Errorf("got %q, want it to contain %q", got, tt.want)
			}
		})
	}
	for _, s := range []string{"v1.2.3", "v1.2.3-rc.1", "v0.0.0-2026-xyz", Devel} {
		if c := PseudoCommit(s); c != "" {
			t.Errorf("PseudoCommit(%q) = %q, want none", s, c)
		}
	}
}

// TestCommitFromLdflags: a build whose build info records no commit
// (-buildvcs=false, or no .git) takes it from the ldflags value, and says
// so when that is missing too; the build info's own commit wins over both.
func TestCommitFromLdflags(t *testing.T) {
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
			v := Info{Version: Devel, Go: "go1.x"}
			v.FromSettings(tt.settings)
			v.FillCommit(tt.ldflags)
			if got := v.String(); !strings.Contains(got, tt.want) {
				t.Errorf("got %q, want it to contain %q", got, tt.want)
			}
		})
	}
}

// TestReadOverrides: Read's version argument replaces the module version,
// and its commit fills in only when the build info recorded none.
func TestReadOverrides(t *testing.T) {
	v := Read("v9.9.9", "")
	if v.Version != "v9.9.9" || v.Go == "" {
		t.Fatalf("Read(v9.9.9) = %+v, want that version and the toolchain", v)
	}
	plain := Read("", "")
	if plain.Commit == "" {
		if got := Read("", "abc123").Commit; got != "abc123" {
			t.Errorf("no recorded commit: Read(_, abc123).Commit = %q", got)
		}
	} else if got := Read("", "abc123").Commit; got != plain.Commit {
		t.Errorf("recorded commit %q replaced by ldflags: %q", plain.Commit, got)
	}
}
