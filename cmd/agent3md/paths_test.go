package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/agentfile"
)

// TestAnyFileName: every command reads an agent file whatever its name,
// and warns when the name does not end in .3md.
func TestAnyFileName(t *testing.T) {
	b, err := os.ReadFile(devtools)
	if err != nil {
		t.Fatal(err)
	}
	md := filepath.Join(t.TempDir(), "agent.md")
	write(t, md, string(b))
	for _, args := range [][]string{
		{"validate", md}, {"parse", md}, {"skills", md}, {"get", md, "search-code"},
		{"export", md}, {"route", "--no-cache", md, "search the code"},
	} {
		code, _, errOut := cli(t, args...)
		if code != 0 || !strings.Contains(errOut, "warning: "+md+" does not end in .3md") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
	// mcp reads the file twice (head, then whole) but warns once.
	if _, _, errOut := cli(t, "mcp", md); strings.Count(errOut, "does not end in .3md") != 1 {
		t.Errorf("mcp warned %d times:\n%s", strings.Count(errOut, "does not end in .3md"), errOut)
	}
	if code, _, errOut := cli(t, "skills", devtools); code != 0 || strings.Contains(errOut, "warning") {
		t.Errorf("a .3md file warned: exit %d, %q", code, errOut)
	}
}

// TestStdin: "-" reads the agent from standard input on the commands that
// read one file, bounded by --max-bytes, named <stdin> in messages; mcp
// and selftest, whose stdin is taken, refuse it.
func TestStdin(t *testing.T) {
	b, err := os.ReadFile(devtools)
	if err != nil {
		t.Fatal(err)
	}
	agent := string(b)
	tests := []struct {
		name, stdin string
		args        []string
		code        int
		want        string // in stdout+stderr
	}{
		{"skills", agent, []string{"skills", "-"}, 0, "search-code"},
		{"parse json", agent, []string{"parse", "--json", "-"}, 0, `"planes"`},
		{"validate", agent, []string{"validate", "-"}, 0, "<stdin>: ok"},
		{"get", agent, []string{"get", "-", "search-code"}, 0, "rg"},
		{"route", agent, []string{"route", "--no-cache", "-", "search the code for a pattern"}, 0, "search-code"},
		{"export", agent, []string{"export", "-"}, 0, `"schema": "agent3md/1"`},
		{"too big", agent, []string{"skills", "--max-bytes", "100", "-"}, 1, "<stdin>: the agent on standard input is larger than 100 bytes (raise it with --max-bytes)"},
		{"broken names stdin", "---\n3md: 1\n---\n@plane z=x\n", []string{"skills", "-"}, 1, "<stdin>:4: invalidPlaneDirective"},
		{"validate broken names stdin", "---\n3md: 1\n---\n@plane z=x\n", []string{"validate", "-"}, 1, "<stdin>:4"},
		{"mcp refuses", agent, []string{"mcp", "-"}, 2, "mcp cannot read the agent from standard input"},
		{"selftest refuses", agent, []string{"selftest", "-"}, 2, "selftest cannot read the agent from standard input"},
	}
	before, _ := filepath.Glob(filepath.Join(os.TempDir(), "agent3md-stdin-*"))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := cliIn(t, tt.stdin, tt.args...)
			if code != tt.code || !strings.Contains(out+errOut, tt.want) {
				t.Fatalf("exit %d (want %d)\nstdout: %s\nstderr: %s\nwant %q", code, tt.code, out, errOut, tt.want)
			}
		})
	}
	// The copies of standard input are removed when each command ends.
	if after, _ := filepath.Glob(filepath.Join(os.TempDir(), "agent3md-stdin-*")); len(after) > len(before) {
		t.Errorf("copies of stdin left behind: %v", after)
	}
}

// TestJSONErrors: with --json, a file that cannot be read is still JSON.
func TestJSONErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.3md")

	code, out, _ := cli(t, "validate", "--json", missing)
	var one agentfile.FileReport
	if code != exitUsage || json.Unmarshal([]byte(out), &one) != nil || one.File != missing || one.OK || !strings.Contains(one.Error, "does not exist") {
		t.Fatalf("validate --json missing: exit %d, %s", code, out)
	}

	code, out, _ = cli(t, "validate", "--json", devtools, missing)
	var two []agentfile.FileReport
	if code != exitUsage || json.Unmarshal([]byte(out), &two) != nil || len(two) != 2 || !two[0].OK || two[1].Error == "" {
		t.Fatalf("validate --json ok+missing: exit %d, %s", code, out)
	}

	code, out, _ = cli(t, "parse", "--json", missing)
	var pe map[string]any
	if code != exitUsage || json.Unmarshal([]byte(out), &pe) != nil || pe["error"] != "io" || !strings.Contains(pe["message"].(string), "no such file") {
		t.Fatalf("parse --json missing: exit %d, %s", code, out)
	}
}

// TestNoArguments: a bare 'agent3md' is a usage error that shows the help.
func TestNoArguments(t *testing.T) {
	code, out, errOut := cli(t)
	if code != exitUsage || out != "" || !strings.Contains(errOut, "Available Commands:") {
		t.Fatalf("exit %d\nstdout: %q\nstderr: %s", code, out, errOut)
	}
}
