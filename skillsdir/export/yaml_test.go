package export

import (
	"strings"
	"testing"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// quoteSeeds are values a YAML parser would read as something else, or
// not at all, unless quoted: shell and Markdown syntax, line breaks,
// control characters, non-ASCII text.
var quoteSeeds = []string{
	"", " ", "'", "''", `"`, `\`, `\'`, "'\\''", "$(id)", "`id`", "${HOME}", "$HOME",
	"a\nb", "\n", "\t", "a b  c", "*", "?", "[a]", "~", "-n", "--", ";", "|", "&&", "#x",
	"!", "héllo wörld", "日本語", "🙂", "\r", "a\rb", "%s", "\\n", "'; rm -rf / #", "{a}", "{b}",
	"yes", "null", "a: b # c", "&anchor", "*alias", "!tag", "@at",
}

func TestYAMLQuoteRoundTrip(t *testing.T) {
	for _, s := range append(quoteSeeds, "\x00", "\x1b[31m", "\ufffe", "\U0010FFFF", "a\u2029b", "\u00a0") {
		var m map[string]string
		if err := yaml.Unmarshal([]byte("v: "+yamlQuote(clean(s))), &m); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		got := m["v"]
		if got != clean(s) {
			t.Errorf("yamlQuote(%q) reads back as %q", s, got)
		}
	}
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
	for _, s := range quoteSeeds {
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
