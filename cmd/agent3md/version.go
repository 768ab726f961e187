package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// versionInfo is what the binary knows about its own build.
type versionInfo struct {
	Version  string // module version: v1.2.3, a pseudo-version, or "(devel)"
	Commit   string // VCS revision, when the build recorded one or ldflags set it
	Time     string // commit time, when recorded
	Modified bool   // the work tree had uncommitted changes
	Go       string // the toolchain that built it
}

// buildVersion reads the build info: 'go install …@v1.2.3' records the
// module version; a build inside a git checkout records the commit (and
// Go 1.24+ derives a version from it). -ldflags "-X main.version=…"
// overrides the version; -X main.commit=… gives the commit when the build
// info has none (a build with -buildvcs=false, or outside a checkout).
func buildVersion() versionInfo {
	v := versionInfo{Version: "(devel)"}
	bi, ok := debug.ReadBuildInfo()
	if ok {
		v.Go = bi.GoVersion
		if bi.Main.Version != "" {
			v.Version = bi.Main.Version
		}
		v.fromSettings(bi.Settings)
	}
	if version != "" {
		v.Version = version
	}
	v.fillCommit(commit)
	return v
}

// fillCommit names the commit when the build info did not: from the
// ldflags value, else from a pseudo-version's suffix.
func (v *versionInfo) fillCommit(ldflags string) {
	if v.Commit == "" {
		v.Commit = ldflags
	}
	if v.Commit == "" {
		v.Commit = pseudoCommit(v.Version)
	}
}

func (v *versionInfo) fromSettings(settings []debug.BuildSetting) {
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
}

// pseudoCommit is the commit prefix a pseudo-version ends with
// (v0.0.0-20260101120000-abcdef123456), which is all 'go install' of an
// untagged commit records; "" for any other version.
func pseudoCommit(version string) string {
	base, _, _ := strings.Cut(version, "+")
	parts := strings.Split(base, "-")
	if len(parts) < 3 {
		return ""
	}
	last := parts[len(parts)-1]
	stamp := parts[len(parts)-2]
	stamp = stamp[strings.LastIndexByte(stamp, '.')+1:]
	if len(last) != 12 || len(stamp) != 14 || strings.Trim(last, "0123456789abcdef") != "" {
		return ""
	}
	return last
}

// short is the version alone, for --version, logs and the MCP serverInfo.
func (v versionInfo) short() string { return v.Version }

// String is the version line 'agent3md version' prints.
func (v versionInfo) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "agent3md %s", v.Version)
	if v.Commit != "" {
		fmt.Fprintf(&b, " (commit %s", v.Commit)
		if v.Time != "" {
			fmt.Fprintf(&b, ", %s", v.Time)
		}
		if v.Modified {
			b.WriteString(", modified")
		}
		b.WriteString(")")
	} else if v.Version == "(devel)" {
		// A local build with nothing to identify it: say why, so a bug
		// report from such a build is not a dead end. (A tagged version
		// names its source by itself.)
		b.WriteString(" (commit not recorded: built with -buildvcs=false or outside a git checkout; 'just build' stamps it)")
	}
	if v.Go != "" {
		fmt.Fprintf(&b, " %s", v.Go)
	}
	return b.String()
}

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and Go version of this binary",
		Long: `version prints the module version this binary was built from (the tag
for 'go install github.com/agent3md/agent3md/cmd/agent3md@latest', a
pseudo-version or "(devel)" otherwise), the commit — from the build info,
or from -ldflags "-X main.commit=…" as 'just build' and release builds set
it — and the Go toolchain.`,
		Example: `  agent3md version`,
		Args:    args(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			fmt.Fprintln(a.stdout, buildVersion())
			return nil
		},
	}
}
