package buildinfo

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Devel is the version of a build that recorded none: a local 'go build'.
const Devel = "(devel)"

// Info is what a binary knows about its own build.
type Info struct {
	Version  string // module version: v1.2.3, a pseudo-version, or Devel
	Commit   string // VCS revision, when the build recorded one or ldflags set it
	Time     string // commit time, when recorded
	Modified bool   // the work tree had uncommitted changes
	Go       string // the toolchain that built it
}

// Read reads the running binary's build info. version, when not "",
// overrides the module version (a release build's -ldflags "-X
// main.version=…"); commit names the commit when the build info has none
// (-X main.commit=…), else a pseudo-version's suffix does.
func Read(version, commit string) Info {
	v := Info{Version: Devel}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v.Go = bi.GoVersion
		if bi.Main.Version != "" {
			v.Version = bi.Main.Version
		}
		v.FromSettings(bi.Settings)
	}
	if version != "" {
		v.Version = version
	}
	v.FillCommit(commit)
	return v
}

// FillCommit names the commit when the build info did not: from the
// ldflags value, else from a pseudo-version's suffix.
func (v *Info) FillCommit(ldflags string) {
	if v.Commit == "" {
		v.Commit = ldflags
	}
	if v.Commit == "" {
		v.Commit = PseudoCommit(v.Version)
	}
}

// FromSettings takes the commit, its time and the modified flag from the
// build info's VCS settings.
func (v *Info) FromSettings(settings []debug.BuildSetting) {
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

// PseudoCommit is the commit prefix a pseudo-version ends with
// (v0.0.0-20260101120000-abcdef123456), which is all 'go install' of an
// untagged commit records; "" for any other version.
func PseudoCommit(version string) string {
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

// String is the version line 'agent3md version' prints.
func (v Info) String() string {
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
	} else if v.Version == Devel {
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
