package main

import (
	"strings"
	"testing"
)

// TestCompletion: after the agent file, get completes its skill names;
// run --skill too; --mode and --log-format their values; a file that
// does not open completes nothing, with no error in the shell.
func TestCompletion(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
		not  string
	}{
		{[]string{"get", devtools, "r"}, []string{"run-tests", "review-diff"}, "search-code"},
		{[]string{"resolve", devtools, ""}, []string{"run-tests", "search-code"}, ""},
		{[]string{"run", devtools, "--skill", "se"}, []string{"search-code"}, "run-tests"},
		{[]string{"route", "--mode", ""}, []string{"ranked", "spec"}, ""},
		{[]string{"serve", "--log-format", ""}, []string{"text", "json"}, ""},
		{[]string{"get", "missing.3md", ""}, nil, "agent3md:"},
	} {
		code, out, _ := cli(t, append([]string{"__complete"}, c.args...)...)
		if code != 0 {
			t.Errorf("%q: exit %d", c.args, code)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w+"\n") {
				t.Errorf("%q: %q lacks %s", c.args, out, w)
			}
		}
		if c.not != "" && strings.Contains(out, c.not) {
			t.Errorf("%q: %q has %s", c.args, out, c.not)
		}
	}
}
