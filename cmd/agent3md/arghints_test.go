package main

import (
	"strings"
	"testing"
)

// TestArgHints: swapped FILE and TEXT are named as swapped, with the
// command in the right order; an unknown --name=value flag to run says
// inputs are NAME=VALUE words; a near flag is still suggested first.
func TestArgHints(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"route", "why are the tests failing", devtools}, `the agent file comes first, e.g. agent3md route ` + devtools + ` 'why are the tests failing'`},
		{[]string{"get", "run-tests", devtools}, "the agent file comes first, e.g. agent3md get " + devtools + " run-tests"},
		{[]string{"run", devtools, "deploy it", "--env=staging"}, "unknown flag: --env; a skill's inputs are NAME=VALUE words without dashes: env=staging"},
		{[]string{"run", devtools, "deploy it", "--env", "staging"}, "without dashes: env=VALUE"},
		{[]string{"run", devtools, "deploy it", "--note=two words"}, "without dashes: 'note=two words'"},
		{[]string{"run", devtools, "deploy it", "--skil", "x"}, "did you mean --skill?"},
	} {
		code, _, errOut := cli(t, c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d\n%s\nwant %q", c.args, code, errOut, c.want)
		}
	}
	// A missing file with no file after it is still the plain error.
	if _, _, errOut := cli(t, "route", "nope.3md", "text"); strings.Contains(errOut, "comes first") {
		t.Errorf("route nope.3md text: %s", errOut)
	}
}
