package main

import (
	"io"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestServerFlagsShared: mcp and serve take the shared server flags under
// the same names, with the same defaults, because both register them
// through addServerFlags.
func TestServerFlagsShared(t *testing.T) {
	a := &app{}
	mcpFlags, serveFlags := a.mcpCmd().Flags(), a.serveCmd().Flags()
	var shared pflag.FlagSet
	a.addServerFlags(&shared, &serverFlags{}, serverUsage{})
	n := 0
	shared.VisitAll(func(f *pflag.Flag) {
		n++
		for cmd, fs := range map[string]*pflag.FlagSet{"mcp": mcpFlags, "serve": serveFlags} {
			got := fs.Lookup(f.Name)
			if got == nil {
				t.Errorf("%s has no --%s", cmd, f.Name)
				continue
			}
			if got.DefValue != f.DefValue {
				t.Errorf("%s --%s defaults to %q, the shared flag to %q", cmd, f.Name, got.DefValue, f.DefValue)
			}
		}
	})
	for _, name := range []string{"log-level", "log-format", "memory-limit", "max-answer-bytes", "no-watch", "claude-skills", "max-skill-depth", "cache-dir"} {
		if shared.Lookup(name) == nil {
			t.Errorf("the shared server flags lack --%s", name)
		}
	}
	if n == 0 {
		t.Fatal("no shared flags")
	}
}

// TestServerFlagsStart: the shared flags are checked in one place, with
// the same words for both commands.
func TestServerFlagsStart(t *testing.T) {
	for _, tt := range []struct {
		name string
		f    serverFlags
		want string
	}{
		{"level", serverFlags{logLevel: "loud", logFormat: "text", memLimit: "auto", maxAnswer: 4 << 20}, `--log-level "loud"`},
		{"answer", serverFlags{logLevel: "info", logFormat: "text", memLimit: "auto", maxAnswer: 10}, "--max-answer-bytes 10 is out of range: use a value from 1024 to 1073741824 (default 4194304, 4 MiB)"},
		{"format", serverFlags{logLevel: "info", logFormat: "xml", memLimit: "auto", maxAnswer: 4 << 20}, "xml"},
		{"memory", serverFlags{logLevel: "info", logFormat: "text", memLimit: "lots", maxAnswer: 4 << 20}, `--memory-limit "lots"`},
	} {
		_, _, err := tt.f.start(&app{stderr: io.Discard})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: start = %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
}
