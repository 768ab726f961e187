package router

import (
	"context"
	"regexp"
	"slices"
	"testing"
	"unicode/utf8"
)

// FuzzWordsTokenizer holds the index's tokenizer to the route tokeniser's
// definition (a regular expression over letters and digits) on any bytes:
// the same runs at the same offsets, numbered from 1, and no token
// holding a byte of invalid UTF-8; within a run, the runes of unspaced
// scripts come as overlapping pairs (refBigrams).
func FuzzWordsTokenizer(f *testing.F) {
	for _, seed := range []string{"", "a", "Deploy the API-v2 now", "naïve café 東京 ٣", "x\xffy\xc3", "\uE0003 tail", "  ..  ",
		"帮我把这份文档翻译成英文", "k8s部署now", "날씨 예보를", "データーベース", "字"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		stream := wordsTokenizerImpl{}.Tokenize([]byte(text))
		want := refBigrams(text, refWord.FindAllStringIndex(text, -1))
		// The request bound counts what the tokenizer reads.
		if n, err := countTokens(context.Background(), text, 1<<30); err != nil || n != len(stream) {
			t.Fatalf("%q: countTokens = %d, %v; the tokenizer reads %d tokens", text, n, err, len(stream))
		}
		if len(stream) != len(want) {
			t.Fatalf("%q: %d tokens, want %d", text, len(stream), len(want))
		}
		for k, tok := range stream {
			if tok.Start != want[k][0] || tok.End != want[k][1] || string(tok.Term) != text[want[k][0]:want[k][1]] || tok.Position != k+1 {
				t.Fatalf("%q token %d: %+v, want %v", text, k, tok, want[k])
			}
			if !utf8.Valid(tok.Term) {
				t.Fatalf("%q token %d holds invalid UTF-8: %q", text, k, tok.Term)
			}
		}
	})
}

// refUnspaced matches a run of the scripts the tokenizer cuts into pairs.
var refUnspaced = regexp.MustCompile(`[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}ー]+`)

// refBigrams is the tokenizer's rule for unspaced scripts, stated apart
// from it: in each word, a run of those scripts is its windows of two
// runes (one rune: itself), and the text around such runs stays whole.
func refBigrams(text string, words [][]int) [][]int {
	var out [][]int
	for _, w := range words {
		word := text[w[0]:w[1]]
		at := 0
		for _, run := range refUnspaced.FindAllStringIndex(word, -1) {
			if run[0] > at {
				out = append(out, []int{w[0] + at, w[0] + run[0]})
			}
			var offs []int
			for i := range word[run[0]:run[1]] {
				offs = append(offs, w[0]+run[0]+i)
			}
			offs = append(offs, w[0]+run[1])
			if len(offs) == 2 {
				out = append(out, []int{offs[0], offs[1]})
			}
			for j := 0; j+2 < len(offs); j++ {
				out = append(out, []int{offs[j], offs[j+2]})
			}
			at = run[1]
		}
		if at < len(word) {
			out = append(out, []int{w[0] + at, w[1]})
		}
	}
	return out
}

// FuzzCommandTokens holds the command rule's reading of a tool template
// to toolCommand's, which relevance indexes, on any text: the same
// tokens, cut at maxCommandWords.
func FuzzCommandTokens(f *testing.F) {
	for _, seed := range []string{"", "kubectl rollout history deployment/{s} -n {ns}", "/usr/bin/gh pr create --x",
		"foo/ bar", "/", "a\u00a0b c", "x\xff y", "golangci-lint run --fix={fix}", "a b c d e f"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, tool string) {
		want := appendTokens(nil, toolCommand(tool))
		if len(want) > maxCommandWords {
			want = want[:maxCommandWords]
		}
		if got := appendCommandTokens(nil, tool); !slices.Equal(got, want) {
			t.Fatalf("appendCommandTokens(%q) = %q, want %q", tool, got, want)
		}
	})
}
