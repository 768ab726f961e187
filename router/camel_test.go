package router

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// slowCamelParts is withCamelParts without its shortcut: every word split.
func slowCamelParts(text string) string {
	var extra []string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !isWordRune(r) }) {
		if parts := camelParts(w); len(parts) > 1 {
			extra = append(extra, parts...)
		}
	}
	if len(extra) == 0 {
		return text
	}
	return text + " . " + strings.Join(extra, " ")
}

// TestWithCamelPartsShortcut: skipping texts with no upper-case letter
// inside a word changes no document.
func TestWithCamelPartsShortcut(t *testing.T) {
	for _, s := range []string{"", "plain words only", "CrashLoopBackOff pods", "A sentence. Another One", "HTTPServer",
		"x-Y", "über Ärger ÖlKanne", "naïveÉcole", "\xffA", "a\xffB", "ǅungla", "9Lives", "ok_Then"} {
		if got, want := withCamelParts(s), slowCamelParts(s); got != want {
			t.Errorf("withCamelParts(%q) = %q, want %q", s, got, want)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []string{"a", "B", " ", "-", "é", "Ü", "1", ".", "\xff", "ǅ", "z"}
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := rng.IntN(10); n > 0; n-- {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		if got, want := withCamelParts(b.String()), slowCamelParts(b.String()); got != want {
			t.Fatalf("withCamelParts(%q) = %q, want %q", b.String(), got, want)
		}
	}
}
