package router

import (
	"path/filepath"
	"testing"
)

// frameWordsHold fails when text, read as a route reads it, is said to
// hold no frame word of a kind whose frame it does hold: the words must
// gate the cues and expressions without changing what they find.
func frameWordsHold(t *testing.T, text string) {
	t.Helper()
	var tl hitTally
	tl.toks = appendTokens(nil, text)
	pt := tl.plainText(text)
	if asksAbout(text) && !pt.mayHold(aboutWord) {
		t.Errorf("%q asks about a subject, but holds none of frameWord's question words", text)
	}
	if _, _, ok := conditionClause(text); ok && !pt.mayHold(conditionWord) {
		t.Errorf("%q has a conditional clause, but holds none of frameWord's condition words", text)
	}
}

// TestFrameWords: every request of the routing sets, and requests shaped
// like each frame, that a question frame or a conditional clause reads
// holds one of frameWord's words of that kind.
func TestFrameWords(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(setsDir, "routing*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no routing sets in %s: %v", setsDir, err)
	}
	for _, f := range files {
		for _, c := range readSet(t, filepath.Base(f)) {
			frameWordsHold(t, c.Text)
		}
	}
	for _, text := range frameSeeds {
		frameWordsHold(t, text)
	}
}

// frameSeeds say each frame and clause, in the ways the expressions
// allow: punctuation for a word boundary, other cases, 's.
var frameSeeds = []string{"what is a feature flag", "What's kubernetes?", "so what does p99 mean",
	"ok how does a canary deploy work", "who founded Datadog", "when was Go released",
	"the difference between a refund and a chargeback", "(difference between x and y)",
	"is Go better than Rust", "are tabs the same as spaces", "is Stripe worth learning",
	"is Go still popular", "how much does an SRE earn", "the salary of an SRE",
	"how do you pronounce nginx", "hello in english", "say hello,in english", "recommend a podcast",
	"any good recommendations for a book", "IF the build is red, roll back", "ok.if it fails, retry it",
	"roll back, unless it shipped", "roll back,in case it shipped", "In Case of fire, call"}

// FuzzFrameWords: no ASCII request a frame or a clause reads holds none
// of frameWord's words of its kind.
func FuzzFrameWords(f *testing.F) {
	for _, s := range frameSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		frameWordsHold(t, text)
	})
}
