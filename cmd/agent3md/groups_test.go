package main

import (
	"strings"
	"testing"
)

// TestUnknownSubcommands checks that a word no command knows is a usage
// error wherever it is typed. cobra printed the help and exited 0 for
// "cache prun", "completion bogus" and "help bogus", so a script saw
// success and a person saw no word about the typo.
func TestUnknownSubcommands(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string // in stderr
	}{
		{[]string{"cache", "prun"}, exitUsage, `unknown command "prun" for "agent3md cache"; did you mean prune?`},
		{[]string{"cache", "bogus"}, exitUsage, "its commands: path, prune, size"},
		{[]string{"cache"}, exitUsage, "agent3md cache [command]"},
		{[]string{"completion", "bogus"}, exitUsage, `unknown command "bogus" for "agent3md completion"`},
		{[]string{"completion"}, exitUsage, "agent3md completion [command]"},
		{[]string{"help", "bogus"}, exitUsage, `no help topic "bogus"`},
		{[]string{"help", "cache", "prun"}, exitUsage, "did you mean prune?"},
		{[]string{"bogus"}, exitUsage, `unknown command "bogus" for "agent3md"`},
	} {
		code, out, errOut := cli(t, c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) || out != "" {
			t.Errorf("agent3md %s: exit %d, want %d with %q on stderr\nstdout %q\nstderr %q", strings.Join(c.args, " "), code, c.code, c.want, out, errOut)
		}
	}
	// What worked still works: help for a topic and a group, a
	// subcommand, and a completion script.
	for _, args := range [][]string{{"help", "limits"}, {"help", "cache"}, {"cache", "--help"}, {"completion", "bash"}, {"cache", "path"}} {
		if code, out, errOut := cli(t, args...); code != 0 || out == "" {
			t.Errorf("agent3md %s: exit %d\nstderr %q", strings.Join(args, " "), code, errOut)
		}
	}
	if _, out, _ := cli(t, "cache", "--help"); strings.Contains(out, "cache [flags]") || !strings.Contains(out, "agent3md cache [command]") {
		t.Errorf("cache --help usage:\n%s", out)
	}
}

// TestFlagHints checks that an unknown flag says what was most likely
// meant: a misspelt flag its nearest spelling, and request text or a value
// starting with "-" the way to pass it. Before, "--skil" and "-rf stuff"
// got only cobra's "unknown flag".
func TestFlagHints(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", devtools, "run tests", "--skil", "x"}, "unknown flag: --skil; did you mean --skill?"},
		{[]string{"run", devtools, "run tests", "--exce"}, "did you mean --exec?"},
		{[]string{"route", devtools, "--limt=3", "x"}, "unknown flag: --limt; did you mean --limit?"},
		{[]string{"route", devtools, "-rf stuff"}, "put -- before it (agent3md route … -- '-rf stuff')"},
		{[]string{"run", devtools, "x", "-x"}, "put -- before it"},
	} {
		code, _, errOut := cli(t, c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("agent3md %s: exit %d, want %d with %q:\n%s", strings.Join(c.args, " "), code, exitUsage, c.want, errOut)
		}
	}
	if _, _, errOut := cli(t, "route", devtools, "--zzzzzz", "x"); strings.Contains(errOut, "did you mean") {
		t.Errorf("a flag nothing like any other got a suggestion: %s", errOut)
	}
}
