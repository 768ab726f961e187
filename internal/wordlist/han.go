package wordlist

import (
	_ "embed"
	"strings"
	"sync"
)

// hanCommon is the commonest Chinese characters, one line, most frequent
// first (genhan derives it from jieba's dictionary; see HAN-LICENSE).
//
//go:embed hancommon.txt
var hanCommon string

var hanSet struct {
	once sync.Once
	m    map[rune]bool
}

// CommonHan reports whether r is one of the about 180 commonest Chinese
// characters: the function characters (的, 了, 么, 怎, 吗, 什: pronouns,
// particles, prepositions, adverbs, numerals and measure words by their
// words' frequency) and the hundred most frequent one-character words
// (是, 有, 人). A character that common says nothing about what a
// request asks on its own. It is safe for concurrent use.
func CommonHan(r rune) bool {
	hanSet.once.Do(func() {
		hanSet.m = map[rune]bool{}
		for _, c := range strings.TrimSpace(hanCommon) {
			hanSet.m[c] = true
		}
	})
	return hanSet.m[r]
}
