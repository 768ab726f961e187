package router

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Scripts written without spaces between words. Tokens are maximal runs
// of letters and digits (docs/format.md §10), so a Chinese or Japanese
// request is one token however many words it holds: "请部署结账服务"
// ("please deploy the checkout service") never equals the trigger
// "部署" (deploy), and neither mode matched it. Ranked mode reads such a
// run as the agent's own words where it holds them: a forward longest
// match against the agent's vocabulary (the tokens of its triggers and
// names written in these scripts), the text between matches kept as
// words of their own (docs/architecture.md §5, "Unspaced scripts").
// Spec mode stays the reference's routing and is not touched.

// unspacedTables are the scripts read this way: Han, the Japanese kana
// (and the prolonged sound mark, which is in no script of its own), and
// Hangul, whose words carry their particles ("배포해줘" holds "배포").
var unspacedTables = []*unicode.RangeTable{unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul}

// unspaced reports whether r is written in one of unspacedTables.
func unspaced(r rune) bool {
	if r < 0x1100 { // below Hangul Jamo: Latin, Greek, Cyrillic, Arabic…
		return false
	}
	return r == 'ー' || unicode.IsOneOf(unspacedTables, r)
}

// hasUnspaced reports whether s holds a rune of an unspaced script.
func hasUnspaced(s string) bool {
	for _, r := range s {
		if unspaced(r) {
			return true
		}
	}
	return false
}

// allUnspaced reports whether every rune of s is of an unspaced script.
func allUnspaced(s string) bool {
	for _, r := range s {
		if !unspaced(r) {
			return false
		}
	}
	return s != ""
}

// segmenter holds an agent's unspaced vocabulary by first rune, each
// rune's words longest first.
type segmenter struct {
	byFirst map[rune][]string
}

// segmenterOf builds the Router's segmenter on first use: only a request
// in an unspaced script needs it, and an agent without such words gets
// an empty one.
func (r *Router) segmenterOf() *segmenter {
	r.segOnce.Do(func() { r.seg = buildSegmenter(r.src) })
	return r.seg
}

// buildSegmenter collects the trigger and name tokens of src written
// wholly in unspaced scripts.
func buildSegmenter(src Source) *segmenter {
	sg := &segmenter{byFirst: map[rune][]string{}}
	seen := map[string]bool{}
	var toks []string
	add := func(text string) {
		if !hasUnspaced(text) {
			return
		}
		toks = appendTokens(toks[:0], text)
		for _, tok := range toks {
			if seen[tok] || !allUnspaced(tok) {
				continue
			}
			seen[tok] = true
			r, _ := utf8.DecodeRuneInString(tok)
			sg.byFirst[r] = append(sg.byFirst[r], strings.Clone(tok))
		}
	}
	for i := 0; i < src.Len(); i++ {
		name, _, triggers := src.Phrases(i)
		add(name)
		for _, p := range triggers {
			add(p)
		}
	}
	for _, words := range sg.byFirst {
		slices.SortFunc(words, func(a, b string) int {
			return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b))
		})
	}
	return sg
}

// Bounds on cutting, so a hostile request costs what an ordinary one
// does: a run longer than maxSegmentRun bytes (about 5,000 characters
// without a space or a punctuation mark: a pasted document, not a
// request) is kept whole, and once the words reach MaxRequestWords the
// remaining tokens are kept as they are (checkRequest bounds the words
// before cutting; cutting must not multiply them).
const maxSegmentRun = 16 << 10

// split appends toks to dst with each token that holds unspaced runes
// read as words: its runs of other runes ("k8s" in "k8s部署") stay words,
// and each unspaced run is cut at the agent's words found in it, longest
// first from left to right, with the text between them kept as words. A
// token in which the agent has no word is kept whole. It reports whether
// any token was cut.
func (sg *segmenter) split(dst, toks []string) ([]string, bool) {
	cut := false
	for k, tok := range toks {
		if len(dst)+len(toks)-k > MaxRequestWords {
			return append(dst, toks[k:]...), cut
		}
		if len(sg.byFirst) == 0 || len(tok) > maxSegmentRun || !hasUnspaced(tok) {
			dst = append(dst, tok)
			continue
		}
		n := len(dst)
		found := false
		for run := range scriptRuns(tok) {
			if !unspaced(firstRune(run)) {
				dst = append(dst, run)
				continue
			}
			var f bool
			dst, f = sg.cutRun(dst, run)
			found = found || f
		}
		if !found { // nothing of the agent's in it: as it was
			dst = append(dst[:n], tok)
			continue
		}
		cut = true
	}
	return dst, cut
}

// cutRun appends run cut at the agent's words (see split), and reports
// whether it found one.
func (sg *segmenter) cutRun(dst []string, run string) ([]string, bool) {
	found := false
	rest := 0 // start of the text not yet emitted
	for i := 0; i < len(run); {
		word, size := sg.wordAt(run, i)
		if word == "" {
			i += size
			continue
		}
		if rest < i {
			dst = append(dst, run[rest:i])
		}
		dst = append(dst, word)
		found = true
		i += len(word)
		rest = i
	}
	if rest < len(run) {
		dst = append(dst, run[rest:])
	}
	return dst, found
}

// wordAt returns the longest of the agent's words that text[i:] starts
// with ("" when none), and the size of the rune at i.
func (sg *segmenter) wordAt(text string, i int) (string, int) {
	r, size := utf8.DecodeRuneInString(text[i:])
	for _, w := range sg.byFirst[r] {
		if strings.HasPrefix(text[i:], w) {
			return w, size
		}
	}
	return "", size
}

// spaced appends text to dst with a space on each side of every agent
// word found in it, as split finds them: the body index reads a body cut
// where a request is cut (bodyReader.terms), so that no pair of
// characters straddles the edge of an agent word.
func (sg *segmenter) spaced(dst []byte, text string) []byte {
	for i := 0; i < len(text); {
		word, size := "", 1
		if text[i] >= utf8.RuneSelf {
			word, size = sg.wordAt(text, i)
		}
		if word == "" {
			dst = append(dst, text[i:i+size]...)
			i += size
			continue
		}
		dst = append(append(append(dst, ' '), word...), ' ')
		i += len(word)
	}
	return dst
}

// scriptRuns yields tok's maximal runs of unspaced and of other runes.
func scriptRuns(tok string) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		start, kind := 0, false
		for i, r := range tok {
			k := unspaced(r)
			if i > start && k != kind {
				if !yield(tok[start:i]) {
					return
				}
				start = i
			}
			kind = k
		}
		if start < len(tok) {
			yield(tok[start:])
		}
	}
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}
