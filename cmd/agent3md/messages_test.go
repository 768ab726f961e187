package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

// TestUnknownSkillMessages checks what get, resolve and run --skill say
// of a name that is no skill. The identity plane's label is the first
// name a newcomer tries ("agent3md get ops.3md ops" after "new ops"); it
// got the same "no skill named" as a typo, and every message pointed at a
// literal 'agent3md skills FILE' instead of the file given.
func TestUnknownSkillMessages(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"get", devtools, "forge"}, []string{`"forge" is the agent's identity plane (line 10), not a skill`, "'agent3md manifest " + devtools + "'"}},
		{[]string{"resolve", devtools, "forge"}, []string{"identity plane"}},
		{[]string{"run", "--skill", "forge", devtools}, []string{"identity plane"}},
		{[]string{"get", devtools, "run-test"}, []string{`did you mean "run-tests"`, "'agent3md skills " + devtools + "'"}},
	} {
		code, _, errOut := cli(t, c.args...)
		if code != exitInvalid {
			t.Errorf("agent3md %s: exit %d, want %d:\n%s", strings.Join(c.args, " "), code, exitInvalid, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("agent3md %s: want %q in:\n%s", strings.Join(c.args, " "), w, errOut)
			}
		}
		if strings.Contains(errOut, "skills FILE") {
			t.Errorf("agent3md %s: the message names FILE, not the file: %s", strings.Join(c.args, " "), errOut)
		}
	}
}

// TestIndexStdinName checks that index names standard input <stdin>, as
// docs/cli.md says every message does; it printed "-: 11 skills".
func TestIndexStdinName(t *testing.T) {
	src, err := os.ReadFile(devtools)
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"index", "--no-cache", "-"}, bytes.NewReader(src), &out, &errb)
	if code != 0 || !strings.HasPrefix(out.String(), "<stdin>: 11 skills") {
		t.Errorf("index -: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}
