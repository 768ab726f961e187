package router

import "github.com/agent3md/agent3md/internal/wordlist"

// Typing slips. A request with "atest the release binary" or "show the
// discussion on isue 1203" hits no trigger, although the user meant
// "attest" and "issue". When a Ranked route finds no phrase and no name,
// each request word that is neither one of the agent's trigger or name
// words nor an English word (internal/wordlist) is read as the one such
// agent word a single slip away from it (see oneEditAway), and the
// request is routed again so corrected, once (docs/architecture.md §5).
//
// The English-word test is what keeps this safe: "plants" stays "plants"
// in an agent with a "plans" trigger, "later" stays "later" beside
// "latex". A word with two or more agent words one edit away is left as
// it is: a guess between them would be a coin toss.

// Bounds of the words a speller reads as slips: shorter words have too
// many neighbours one edit away to guess from, and longer ones are
// identifiers, not typing.
const (
	minSlipLen = 4
	maxSlipLen = 24
	// minSubstLen is the shortest word read with one wrong letter: a
	// four-letter word has too many real neighbours that way ("wget",
	// "gget").
	minSubstLen = 5
	// maxSlips bounds the words of one request a speller tries to
	// correct (each costs a few hundred lookups).
	maxSlips = 8
)

// speller holds the words a slip may be corrected to: the agent's trigger
// and name words of minSlipLen or more letters a-z.
type speller struct {
	words map[string]struct{}
}

// buildSpeller collects src's trigger and name words.
func buildSpeller(src Source, x *phraseIndex) *speller {
	sp := &speller{words: map[string]struct{}{}}
	add := func(w string) {
		if len(w) >= minSlipLen && len(w) <= maxSlipLen && lowerASCII(w) {
			sp.words[w] = struct{}{}
		}
	}
	for w := range x.exact.ids {
		add(w)
	}
	var toks []string
	for i := 0; i < src.Len(); i++ {
		name, _, _ := src.Phrases(i)
		toks = appendTokens(toks[:0], name)
		for _, w := range toks {
			add(w)
		}
	}
	return sp
}

// spellerOf returns r's speller, building it on first use: most routes
// hit a phrase and never need it.
func (r *Router) spellerOf() *speller {
	r.spellOnce.Do(func() { r.speller = buildSpeller(r.src, r.phrases) })
	return r.speller
}

// correct returns toks with the slips among its first maxSlips unknown
// words replaced by the agent words they stand for, and whether any was.
// A corrected word is an agent word, so correcting the result again
// changes nothing among the words already tried.
func (sp *speller) correct(toks []string) ([]string, bool) {
	var out []string
	tried := 0
	for i, w := range toks {
		if len(w) < minSlipLen || len(w) > maxSlipLen || !lowerASCII(w) || stopWords[w] {
			continue
		}
		if _, ok := sp.words[w]; ok {
			continue
		}
		if tried == maxSlips {
			break
		}
		tried++
		// Every common word of four letters or more is a known one, and
		// Common is a hash lookup where Known searches 72,000 words.
		if wordlist.Common(w) || wordlist.Known(w) {
			continue
		}
		fix, ok := sp.oneEditAway(w)
		if !ok || stem(fix) == stem(w) {
			// A plural or other form of an agent word is no slip: the
			// stems meet already, and the user's word stays in the hits.
			continue
		}
		if out == nil {
			out = append([]string(nil), toks...)
		}
		out[i] = fix
	}
	return out, out != nil
}

// oneEditAway returns the one agent word a single typing slip from w, if
// exactly one exists (forms of one word, such as a singular and its
// plural, count as one). The slips read are the ones people make far more
// often than jargon is spelt that way: a letter missing ("atest"), two
// neighbours swapped ("bulid"), a letter doubled ("isssue") and, inside a
// word of five or more letters, one wrong letter ("deplpy"). The first
// letter is taken as typed, as people rarely miss it. Jargon one letter
// off an agent word is a word plus a letter or with its last letter
// changed far more often than a misspelling: "xcode", "mutex", "upsert",
// "docx" and "healthz" are not read as "code", "mute", "upset", "docs"
// and "healthy".
func (sp *speller) oneEditAway(w string) (string, bool) {
	var found string
	n := 0
	buf := make([]byte, 0, len(w)+1)
	var foundStem string
	try := func(b []byte) bool {
		// m[string(b)] does not allocate; only a hit is kept as a string.
		if _, ok := sp.words[string(b)]; !ok || string(b) == found {
			return true
		}
		// Two forms of one word ("test", "tests" for "tets") are one
		// reading, not two.
		if st := stem(string(b)); n == 0 || st != foundStem {
			found, foundStem = string(b), st
			n++
		}
		return n < 2
	}
	for i := 1; i < len(w); i++ { // a letter doubled
		if w[i] != w[i-1] {
			continue
		}
		buf = append(append(buf[:0], w[:i]...), w[i+1:]...)
		if !try(buf) {
			return "", false
		}
	}
	for i := 1; i+1 < len(w); i++ { // two neighbours swapped
		if w[i] == w[i+1] {
			continue
		}
		buf = append(buf[:0], w...)
		buf[i], buf[i+1] = buf[i+1], buf[i]
		if !try(buf) {
			return "", false
		}
	}
	if len(w) >= minSubstLen {
		for i := 1; i+1 < len(w); i++ { // a wrong letter, inside the word
			buf = append(buf[:0], w...)
			for c := byte('a'); c <= 'z'; c++ {
				if c == w[i] {
					continue
				}
				buf[i] = c
				if !try(buf) {
					return "", false
				}
			}
		}
	}
	for i := 1; i <= len(w); i++ { // a letter missing
		for c := byte('a'); c <= 'z'; c++ {
			buf = append(append(append(buf[:0], w[:i]...), c), w[i:]...)
			if !try(buf) {
				return "", false
			}
		}
	}
	return found, n == 1
}

// lowerASCII reports whether w is made of the letters a-z only.
func lowerASCII(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}
