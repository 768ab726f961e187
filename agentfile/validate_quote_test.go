package agentfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidateToolQuote(t *testing.T) {
	for _, tt := range []struct {
		name, tool string
		errs       int    // tool-quote errors expected
		msg        string // substring of the first one
	}{
		{"plain words", `rg --flag={p} -- {p}`, 0, ""},
		{"quoted strings", `echo 'a {p}' \"b {p}\"`, 0, ""},
		{"no placeholder, any syntax", `echo \"$(date)\" | wc -c`, 0, ""},
		{"issue: $() inside a string", `echo \"Subject: $(echo \"{p}\" | head -1)\"`, 1, "$(…) command substitution"},
		{"backquotes", "echo \\\"`echo {p}`\\\"", 1, "`…` command substitution"},
		{"default value", `echo \"${X:-{p}}\"`, 1, "${…} parameter expansion"},
		{"two occurrences", `echo $(echo {p}) {p} $(({p}))`, 2, "{p}"},
		{"comment", `echo hi # {p}`, 1, "comment"},
		{"does not parse", `echo \"{p}`, 1, "not valid shell syntax"},
		{"$'…' anywhere: bash and dash end it apart (issue 29)", `echo $'x' {p}`, 1, "$'…' string at byte 6, which bash and sh (dash) read differently"},
		{"quotes nested in $(…) before a plain placeholder (issue 29)", `echo \"$(date \"+%H'%M\")\" {p}`, 0, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := agentSrc("tools: rg, echo\n", `@plane z=1 label="a" triggers="a" inputs="p" tool="`+tt.tool+`"`)
			r := validateSrc(t, src)
			var got []Finding
			for _, f := range r.Errors {
				if f.Rule == RuleToolQuote {
					got = append(got, f)
				} else {
					t.Errorf("unexpected error %s: %s", f.Rule, f.Message)
				}
			}
			if len(got) != tt.errs {
				t.Fatalf("%d tool-quote errors, want %d: %+v", len(got), tt.errs, got)
			}
			if tt.errs == 0 {
				return
			}
			if got[0].Line != 9 || got[0].Z == nil || *got[0].Z != 1 {
				t.Errorf("finding at line %d z %v, want the directive's line 9, z=1", got[0].Line, got[0].Z)
			}
			if !strings.Contains(got[0].Message, tt.msg) || !strings.Contains(got[0].Message, `skill "a"`) {
				t.Errorf("message %q does not say %q", got[0].Message, tt.msg)
			}
		})
	}
}

// TestToolQuoteExamples keeps every bundled example free of tool-quote
// errors: the rule must not refuse templates real agents use.
func TestToolQuoteExamples(t *testing.T) {
	paths, _ := filepath.Glob("../examples/*.3md")
	if len(paths) == 0 {
		t.Skip("no examples")
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range validateSrc(t, string(b)).Errors {
			if f.Rule == RuleToolQuote {
				t.Errorf("%s:%d: %s", p, f.Line, f.Message)
			}
		}
	}
}
