package loader

import (
	"strings"
	"testing"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
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

// FuzzRewriteLine: declining every link leaves a line untouched, and
// replacing every link never panics.
func FuzzRewriteLine(f *testing.F) {
	for _, s := range []string{"see [[z=1]] and [[z=2|two]]", "[[z=[[z=1]]", "[[z=1|a [[z=2]] b]]", "[[z=1e400]] [[z=-0]]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		var b strings.Builder
		rewriteLine(&b, line, func(string, string, bool) (string, bool) { return "", false })
		if b.String() != line {
			t.Fatalf("declining changed %q to %q", line, b.String())
		}
		b.Reset()
		rewriteLine(&b, line, func(target, text string, _ bool) (string, bool) { return "<" + target + ">", true })
	})
}

// FuzzYAMLQuote: every string reads back from a real YAML parser exactly
// (after invalid UTF-8 is replaced, as clean does before rendering).
func FuzzYAMLQuote(f *testing.F) {
	for _, s := range nastyValues {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		s = clean(s)
		var m map[string]string
		if err := yaml.Unmarshal([]byte("v: "+yamlQuote(s)), &m); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if m["v"] != s || !utf8.ValidString(m["v"]) {
			t.Fatalf("%q read back as %q", s, m["v"])
		}
	})
}
