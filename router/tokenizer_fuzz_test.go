package router

import (
	"slices"
	"testing"
	"unicode/utf8"
)

// FuzzWordsTokenizer holds the index's tokenizer to the route tokeniser's
// definition (a regular expression over letters and digits) on any bytes:
// the same runs at the same offsets, numbered from 1, and no token
// holding a byte of invalid UTF-8.
func FuzzWordsTokenizer(f *testing.F) {
	for _, seed := range []string{"", "a", "Deploy the API-v2 now", "naïve café 東京 ٣", "x\xffy\xc3", "\uE0003 tail", "  ..  "} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		stream := wordsTokenizerImpl{}.Tokenize([]byte(text))
		want := refWord.FindAllStringIndex(text, -1)
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
