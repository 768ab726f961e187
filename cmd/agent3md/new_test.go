package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/agentfile"
)

// TestNewNames runs new with the names people type: each is either
// written as a scaffold that validates cleanly, or refused as a usage
// error (exit 2) that says what is wrong with the name. None may reach the
// scaffold's self-check, whose "internal error" is a bug report.
func TestNewNames(t *testing.T) {
	for _, c := range []struct {
		name  string
		arg   string
		title string // the written title, when the name is accepted
		want  string // the refusal, when it is not
	}{
		// Upper-casing the first byte of "ä" wrote a title that was not
		// UTF-8, and new failed its own check.
		{name: "non-ASCII first letter", arg: "äpfel", title: "title: Äpfel\n"},
		{name: "ASCII", arg: "triage", title: "title: Triage\n"},
		{name: "space", arg: "My Agent", title: "title: My Agent\n"},
		// A trailing backslash escaped the label's closing quote.
		{name: "backslash", arg: `ops\`, want: `holds the character \`},
		{name: "control character", arg: "a\x01b", want: "control character U+0001"},
		{name: "tab", arg: "a\tb", want: "control character U+0009"},
		{name: "not UTF-8", arg: "\xff", want: "not valid UTF-8"},
		// 'q' in the frontmatter reads as q: the agent would be named
		// otherwise than asked.
		{name: "single quotes", arg: "'q'", want: "holds the character '"},
		{name: "double quote", arg: `x"y`, want: `holds the character "`},
		{name: "colon", arg: "a:b", want: "holds the character :"},
		{name: "blank", arg: "  ", want: "agent name is empty"},
		{name: "too long", arg: strings.Repeat("a", agentfile.MaxStarterNameChars+1), want: "over the limit of 100"},
		{name: "100 characters", arg: strings.Repeat("ä", agentfile.MaxStarterNameChars), title: "title: Ä" + strings.Repeat("ä", agentfile.MaxStarterNameChars-1) + "\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "agent.3md")
			code, _, errOut := cli(t, "new", c.arg, out)
			if strings.Contains(errOut, "internal error") {
				t.Fatalf("new %q reached the scaffold's self-check: %s", c.arg, errOut)
			}
			if c.want != "" {
				if code != exitUsage || !strings.Contains(errOut, c.want) {
					t.Fatalf("new %q: exit %d, want %d with %q:\n%s", c.arg, code, exitUsage, c.want, errOut)
				}
				if _, err := os.Stat(out); err == nil {
					t.Fatalf("new %q was refused but wrote %s", c.arg, out)
				}
				return
			}
			if code != 0 {
				t.Fatalf("new %q: exit %d: %s", c.arg, code, errOut)
			}
			data, _ := os.ReadFile(out)
			if !strings.Contains(string(data), c.title) {
				t.Errorf("new %q: want %q in:\n%.200s", c.arg, c.title, data)
			}
			if code, stdout, _ := cli(t, "validate", out); code != 0 || !strings.Contains(stdout, "0 errors, 0 warnings") {
				t.Errorf("new %q does not validate cleanly: %s", c.arg, stdout)
			}
		})
	}
}

// TestNewMessages checks what new says around the file: a missing
// directory is named with the way to create it, and the command it
// suggests can be pasted into a shell as it is.
func TestNewMessages(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "such", "x.3md")
	code, _, errOut := cli(t, "new", "x", missing)
	if code != exitUsage || !strings.Contains(errOut, "its directory "+filepath.Dir(missing)+" does not exist") || !strings.Contains(errOut, "mkdir -p") {
		t.Errorf("missing directory: exit %d: %s", code, errOut)
	}
	out := filepath.Join(dir, "My Agent.3md")
	code, stdout, errOut := cli(t, "new", out)
	if code != 0 {
		t.Fatalf("new %q: exit %d: %s", out, code, errOut)
	}
	if want := "agent3md route '" + out + "' "; !strings.Contains(stdout, want) {
		t.Errorf("the suggested command does not quote the path: want %q in %q", want, stdout)
	}
	for _, c := range []struct{ in, want string }{
		{"agents/ops.3md", "agents/ops.3md"},
		{"äpfel.3md", "äpfel.3md"},
		{"a b.3md", "'a b.3md'"},
		{"it's.3md", `'it'\''s.3md'`},
		{"$(x).3md", "'$(x).3md'"},
	} {
		if got := shellWord(c.in); got != c.want {
			t.Errorf("shellWord(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
