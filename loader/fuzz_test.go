package loader

import (
	"strings"
	"testing"
)

// FuzzFill fills arbitrary templates with arbitrary values: it must never
// panic, an unchanged template must come back when nothing has a value and
// nothing is optional, and a value with a NUL is never substituted.
func FuzzFill(f *testing.F) {
	f.Add("rg --line-number {pattern} {path}", "pattern", "it's", false)
	f.Add(`echo 'a {x}' "b {x}" \{x} --opt {x}`, "x", "$(id)", true)
	f.Add("db query {q} --limit {limit}", "limit", "10", true)
	f.Add(`"{a`, "a", "\x00", false)
	f.Fuzz(func(t *testing.T, tmpl, name, value string, optional bool) {
		in := name
		if optional {
			in += "?"
		}
		s := skillWith(tmpl, true, in)
		got := fill(s, map[string]string{name: value})
		if got.HasTool && strings.IndexByte(value, 0) >= 0 && strings.Contains(got.Command, value) && !strings.Contains(tmpl, value) {
			t.Fatalf("a NUL value reached the command: %q", got.Command)
		}
		empty := fill(skillWith(tmpl, true), nil)
		if empty.HasTool && empty.Command != tmpl {
			t.Fatalf("no inputs, no values: %q became %q", tmpl, empty.Command)
		}
	})
}
