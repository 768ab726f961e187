package slips

import (
	"strings"
	"testing"
)

// testSpeller knows the words of a small agent; its stemmer drops a
// final "s", enough to make "tests" a form of "test".
func testSpeller(words ...string) *Speller {
	sp := New(Options{
		Stem: func(w string) string { return strings.TrimSuffix(w, "s") },
		Skip: func(w string) bool { return w == "with" || w == "about" },
	})
	for _, w := range words {
		sp.Add(w)
	}
	return sp
}

var agentWords = []string{"attest", "provenance", "issue", "details", "build", "docker", "image",
	"plans", "roadmap", "latex", "deploy", "deployment", "code", "mute", "tests", "texts"}

// TestCorrect: each kind of slip is read as the one word it stands for;
// English words, jargon, ambiguous slips and forms of a known word are
// left alone.
func TestCorrect(t *testing.T) {
	sp := testSpeller(agentWords...)
	for _, tt := range []struct{ in, want string }{
		{"atest", "attest"},          // a letter missing
		{"isue", "issue"},            // a letter missing, four letters
		{"bulid", "build"},           // neighbours swapped
		{"depolyment", "deployment"}, // neighbours swapped
		{"attesst", "attest"},        // a letter doubled
		{"deplpy", "deploy"},         // a wrong letter inside
		{"plants", ""},               // English, not "plans"
		{"later", ""},                // English, not "latex"
		{"xcode", ""},                // a first letter changed: jargon
		{"mutex", ""},                // a letter added at the end: jargon
		{"cude", ""},                 // a wrong letter in four letters
		{"tezts", ""},                // "tests" and "texts": no guess
		{"abc", ""},                  // shorter than MinLen
		{"Atest", ""},                // not a-z
	} {
		got, ok := sp.Correct([]string{tt.in})
		if tt.want == "" && ok || tt.want != "" && (!ok || got[0] != tt.want) {
			t.Errorf("Correct(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
}

// TestFormsOfOneWord: a slip one edit from two forms of one word ("tets":
// "test" and "tests") is read as that word, not left alone as ambiguous.
func TestFormsOfOneWord(t *testing.T) {
	sp := testSpeller("test", "tests", "deploy")
	if got, ok := sp.Correct([]string{"tets"}); !ok || got[0] != "test" && got[0] != "tests" {
		t.Errorf("Correct(tets) = %q, %v; want test", got, ok)
	}
	// A word one slip from a form of itself is no slip: the stems meet.
	if got, ok := testSpeller("zqxwvs").Correct([]string{"zqxwv"}); ok {
		t.Errorf("Correct(zqxwv) = %q, want no correction (a form of zqxwvs)", got)
	}
}

// TestMaxSlips: only the first MaxSlips unknown words are tried; skipped
// words do not count against them.
func TestMaxSlips(t *testing.T) {
	sp := testSpeller(agentWords...)
	toks := strings.Fields("with about qzvx wqpk zzkv xqjw vkqz jqxw kqzv atest")
	if got, ok := sp.Correct(toks); !ok || got[len(got)-1] != "attest" {
		t.Errorf("the eighth unknown word was not tried: %q, %v", got, ok)
	}
	toks = strings.Fields("qzvx wqpk zzkv xqjw vkqz jqxw kqzv vvvv atest")
	if got, ok := sp.Correct(toks); ok {
		t.Errorf("the ninth unknown word was tried: %q", got)
	}
}

// TestCorrectIdempotent: correcting corrected words changes nothing, so
// a caller routing again after a correction cannot loop.
func TestCorrectIdempotent(t *testing.T) {
	sp := testSpeller(agentWords...)
	fixed, ok := sp.Correct(strings.Fields("atest bulid isue depolyment tezts xcode"))
	if want := "attest build issue deployment tezts xcode"; !ok || strings.Join(fixed, " ") != want {
		t.Errorf("corrected to %q, want %q", strings.Join(fixed, " "), want)
	}
	if again, ok := sp.Correct(fixed); ok {
		t.Errorf("corrected twice: %q", strings.Join(again, " "))
	}
}

// FuzzSpeller: any words are corrected without panicking and only to
// known words; a request of at most MaxSlips words (all of them tried)
// is not corrected twice.
func FuzzSpeller(f *testing.F) {
	for _, s := range []string{"atest", "isue bulid", "tezts", "ü atest", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", ""} {
		f.Add(s)
	}
	sp := testSpeller(agentWords...)
	f.Fuzz(func(t *testing.T, s string) {
		toks := strings.Fields(s)
		fixed, ok := sp.Correct(toks)
		if !ok {
			return
		}
		for i := range toks {
			if fixed[i] != toks[i] && !sp.Knows(fixed[i]) {
				t.Fatalf("%q corrected to %q, not a known word", toks[i], fixed[i])
			}
		}
		if again, ok := sp.Correct(fixed); ok && len(toks) <= MaxSlips {
			t.Fatalf("%q corrected twice: %q", strings.Join(fixed, " "), strings.Join(again, " "))
		}
	})
}

// TestVerdictsRemembered: a word's verdict is read once and remembered
// (a request repeats its words), the same from memory as afresh, from
// many goroutines at once, and at most maxFixes words are kept.
func TestVerdictsRemembered(t *testing.T) {
	sp := testSpeller(agentWords...)
	in := []string{"atest", "bulid", "xcode", "frobnicate"}
	first, _ := sp.Correct(in)
	if got := sp.fixCount.Load(); got != int64(len(in)) {
		t.Fatalf("%d verdicts remembered after one request of %d uncommon words", got, len(in))
	}
	done := make(chan []string)
	for range 8 {
		go func() {
			again, _ := sp.Correct(in)
			done <- again
		}()
	}
	for range 8 {
		if again := <-done; strings.Join(again, " ") != strings.Join(first, " ") {
			t.Errorf("from memory %q, afresh %q", again, first)
		}
	}
	for i := range 2 * maxFixes {
		sp.Correct([]string{"zzqx" + strings.Repeat("q", i%20) + string(rune('a'+i%26)) + string(rune('a'+i/26%26))})
	}
	if got := sp.fixCount.Load(); got > maxFixes {
		t.Errorf("%d verdicts remembered, over the bound of %d", got, maxFixes)
	}
}
