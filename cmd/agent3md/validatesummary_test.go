package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateFolderSummary: a skills folder's reports end with one line
// counting them (format rules only here, --no-lint: the routing lints
// have tests of their own); an agent file gets none.
func TestValidateFolderSummary(t *testing.T) {
	code, out, _ := cli(t, "validate", "--no-lint", "../../router/testdata/folders/anthropic")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if want := "../../router/testdata/folders/anthropic: 13 skills, 13 ok, 0 with errors (0 errors, 1 warning)"; code != 0 || lines[len(lines)-1] != want {
		t.Fatalf("exit %d, last line %q, want %q", code, lines[len(lines)-1], want)
	}
	if _, out, _ := cli(t, "validate", "../../examples/devtools.3md"); strings.Count(out, "\n") != 1 {
		t.Errorf("an agent file got more than its report:\n%s", out)
	}
	if _, out, _ := cli(t, "validate", "--json", "../../router/testdata/folders/anthropic"); strings.Contains(out, "13 skills") {
		t.Errorf("the summary line went into the JSON output")
	}
}

// TestValidateMissingPath: a path that names nothing is said to be
// missing, with both things validate takes, not "cannot read agent file".
func TestValidateMissingPath(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "skills") + "/"
	code, _, errOut := cli(t, "validate", missing)
	if code != exitUsage || !strings.Contains(errOut, missing+" does not exist: pass an agent file (agent.3md) or a folder of skill folders") || strings.Contains(errOut, "cannot read agent file") {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
}
