package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestEveryCommandHelpHasExample holds the README's promise that every
// command's --help shows an example, cobra's generated completion command
// and its shells included.
func TestEveryCommandHelpHasExample(t *testing.T) {
	cmds := [][]string{
		{"cache"}, {"cache", "path"}, {"cache", "size"}, {"cache", "prune"},
		{"completion"}, {"completion", "bash"}, {"completion", "zsh"},
		{"completion", "fish"}, {"completion", "powershell"},
		{"export"}, {"get"}, {"import"}, {"index"}, {"manifest"}, {"mcp"},
		{"new"}, {"parse"}, {"resolve"}, {"route"}, {"run"}, {"selftest"},
		{"serve"}, {"skills"}, {"sync"}, {"validate"}, {"version"},
	}
	for _, c := range cmds {
		code, out, errOut := cli(t, append(c, "--help")...)
		if code != 0 {
			t.Errorf("%s --help: exit %d, stderr %q", strings.Join(c, " "), code, errOut)
			continue
		}
		if !strings.Contains(out, "\nExamples:\n") {
			t.Errorf("%s --help shows no Examples section:\n%s", strings.Join(c, " "), out)
		}
	}
}

// TestExamplesRouteWhereTheySay: every example of route and run that
// routes a request, in any command's help, in README.md and in the
// suggestion `new` prints, says after "# →" which skill it is there to
// show, and routes to it: the first example a newcomer copies must show
// what it claims (issue 24: the root help's example found nothing).
func TestExamplesRouteWhereTheySay(t *testing.T) {
	var lines []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		lines = append(lines, strings.Split(c.Example, "\n")...)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot(&app{}))
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines = append(lines, strings.Split(string(readme), "\n")...)
	checked := 0
	for _, line := range lines {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "agent3md route ") && !strings.HasPrefix(line, "agent3md run ") {
			continue
		}
		args := shellFields(t, line)
		if slices.Contains(args, "--skill") || !slices.ContainsFunc(args, func(a string) bool { return strings.Contains(a, " ") }) {
			continue // names its skill, or shows no request
		}
		cmd, want, ok := strings.Cut(line, "# →")
		if !ok {
			t.Errorf("example %q does not say which skill it routes to (end it with # → SKILL)", line)
			continue
		}
		checked++
		if got := firstRouted(t, shellFields(t, cmd)[1:]); got != strings.TrimSpace(want) {
			t.Errorf("example %q routes to %q", line, got)
		}
	}
	if checked < 4 {
		t.Fatalf("checked %d examples; the help shows at least 4", checked)
	}
	// The suggestion new prints after writing an agent.
	out := filepath.Join(t.TempDir(), "tt.3md")
	_, stdout, _ := cli(t, "new", "tt", out)
	_, suggestion, ok := strings.Cut(stdout, "try: ")
	if !ok {
		t.Fatalf("new printed no suggestion: %q", stdout)
	}
	suggestion, _, _ = strings.Cut(suggestion, "\n") // the next line is the cases file's
	if got := firstRouted(t, shellFields(t, strings.TrimSpace(suggestion))[1:]); got != "search-code" {
		t.Errorf("new's suggestion %q routes to %q, want search-code", suggestion, got)
	}
}

// shellFields splits a shell command line of plain words and
// double-quoted strings, dropping a trailing # comment.
func shellFields(t *testing.T, line string) []string {
	t.Helper()
	var out []string
	var cur strings.Builder
	quoted, in := false, false
	for _, r := range line {
		switch {
		case r == '"':
			quoted, in = !quoted, true
		case r == '#' && !quoted && !in:
			return out
		case (r == ' ' || r == '\t') && !quoted:
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quoted {
		t.Fatalf("unterminated quote in %q", line)
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// firstRouted runs route or run (args after "agent3md", example paths
// made relative to this package) and returns the skill it put first.
func firstRouted(t *testing.T, args []string) string {
	t.Helper()
	args = slices.Clone(args)
	for i, a := range args {
		if strings.HasPrefix(a, "examples/") {
			args[i] = "../../" + a
		}
	}
	args = append(args, "--no-cache")
	code, stdout, stderr := cli(t, args...)
	switch {
	case args[0] == "run":
		_, after, ok := strings.Cut(stderr, "→ ")
		if !ok {
			t.Fatalf("%q: exit %d, no choice on stderr: %q", args, code, stderr)
		}
		name, _, _ := strings.Cut(after, " ")
		return name
	case slices.Contains(args, "--json"):
		var res struct {
			Matches []struct{ Name string } `json:"matches"`
		}
		if err := json.Unmarshal([]byte(stdout), &res); err != nil || len(res.Matches) == 0 {
			t.Fatalf("%q: exit %d, %v: %q", args, code, err, stdout)
		}
		return res.Matches[0].Name
	}
	name, _, _ := strings.Cut(stdout, "  (")
	return name
}
