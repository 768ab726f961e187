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
