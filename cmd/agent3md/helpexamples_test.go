package main

import (
	"strings"
	"testing"
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
