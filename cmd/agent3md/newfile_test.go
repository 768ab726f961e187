package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNewDefaultFile: a NAME a shell would need quoted writes the agent's
// slug, the name serve gives its endpoint; a plain one writes NAME.3md.
func TestNewDefaultFile(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"Release Helper", "release-helper.3md"},
		{"triage", "triage.3md"},
		{"Ops (prod)", "ops-prod.3md"},
		{"小帮 助手", "小帮-助手.3md"},
	} {
		if got := defaultNewFile(c.name); got != c.want {
			t.Errorf("%q: %s, want %s", c.name, got, c.want)
		}
	}
	dir := t.TempDir()
	t.Chdir(dir)
	code, out, errOut := cli(t, "new", "Release Helper")
	if code != 0 || !strings.HasPrefix(out, "wrote release-helper.3md (agent \"Release Helper\"") || !strings.Contains(out, "agent3md route release-helper.3md ") {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "release-helper.3md")); err != nil {
		t.Fatal(err)
	}
}
