package router

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestWithCamelPartsShortcut: a text withCamelParts skips (no upper-case
// letter inside a word) is one the full split leaves as it is.
func TestWithCamelPartsShortcut(t *testing.T) {
	check := func(s string) {
		t.Helper()
		if !hasInnerUpper(s) && splitCamelWords(s) != s {
			t.Fatalf("%q is skipped, but splits into %q", s, splitCamelWords(s))
		}
		if got, want := withCamelParts(s), splitCamelWords(s); got != want {
			t.Fatalf("withCamelParts(%q) = %q, want %q", s, got, want)
		}
	}
	for _, s := range []string{"", "plain words only", "CrashLoopBackOff pods", "A sentence. Another One", "HTTPServer",
		"x-Y", "über Ärger ÖlKanne", "naïveÉcole", "\xffA", "a\xffB", "ǅungla", "9Lives", "ok_Then"} {
		check(s)
	}
	if hasInnerUpper("plain words. Sentence starts") || !hasInnerUpper("useHTTP") || !hasInnerUpper("naïveÉcole") {
		t.Fatal("hasInnerUpper misreads a sentence start or an inner capital")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []string{"a", "B", " ", "-", "é", "Ü", "1", ".", "\xff", "ǅ", "z"}
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := rng.IntN(10); n > 0; n-- {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		check(b.String())
	}
}
