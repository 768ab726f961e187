package agentfile

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// linkRE is the base format's link written as a regular expression
// (docs/format.md §6), an independent reading of what MatchLink accepts.
var linkRE = regexp.MustCompile(`^\[\[z=([-+0-9eE.]{1,40})(?:(\|)([^\]\n]{0,400}))?\]\]`)

// FuzzMatchLink holds MatchLink to the regular expression: the same
// candidates match, with the same length, target and text; and it never
// panics.
func FuzzMatchLink(f *testing.F) {
	for _, s := range []string{
		"[[z=1]]", "[[z=1|text]] tail", "[[z=1.5e3|]]", "[[z=abc]]", "[[z=1|a]b]]", "[[z=1|a\nb]]",
		"[[z=" + strings.Repeat("9", 41) + "]]", "[[z=1|" + strings.Repeat("é", 400) + "]]", "[[z=1e]]", "[[z=--1]]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, target, text, hasText := MatchLink(s)
		m := linkRE.FindStringSubmatch(s)
		if m != nil {
			if _, ok := ParseNumber(m[1]); !ok {
				m = nil
			}
		}
		if (n > 0) != (m != nil) {
			t.Fatalf("MatchLink(%q) = %d; the expression says %q", s, n, m)
		}
		if m == nil {
			return
		}
		if n != len(m[0]) || target != m[1] || hasText != (m[2] == "|") || text != m[3] {
			t.Fatalf("MatchLink(%q) = %d %q %q %v; want %d %q %q %v", s, n, target, text, hasText, len(m[0]), m[1], m[3], m[2] == "|")
		}
		if utf8.RuneCountInString(text) > 400 {
			t.Fatalf("text of %d characters", utf8.RuneCountInString(text))
		}
	})
}
