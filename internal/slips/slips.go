package slips

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agent3md/agent3md/internal/wordlist"
)

// Bounds of the words a Speller reads as slips: shorter words have too
// many neighbours one edit away to guess from, and longer ones are
// identifiers, not typing.
const (
	MinLen = 4
	MaxLen = 24
	// minSubstLen is the shortest word read with one wrong letter: a
	// four-letter word has too many real neighbours that way ("wget",
	// "gget").
	minSubstLen = 5
	// MaxSlips bounds the words of one request a Speller tries to
	// correct (each costs a few hundred lookups).
	MaxSlips = 8
)

// Options are what a Speller needs of its caller's analysis.
type Options struct {
	// Stem gives a word's stem: a slip whose reading has the word's own
	// stem is a form of it, not a slip, and two readings of one stem
	// are one.
	Stem func(word string) string
	// Skip reports words never read as slips (stop words): they do not
	// count against MaxSlips.
	Skip func(word string) bool
}

// Speller holds the words a slip may be corrected to: the vocabulary's
// words of MinLen to MaxLen letters a-z.
type Speller struct {
	words map[string]struct{}
	o     Options
	// fixes remembers the verdict on each uncommon word Correct has read
	// (its fix, or ""), fixCount of them, up to maxFixes: requests repeat
	// their words, and a verdict costs a search of English's 72,000 words
	// and, for a word not among them, hundreds of lookups one edit away.
	fixes    sync.Map // string -> string
	fixCount atomic.Int64
}

// maxFixes bounds a Speller's remembered verdicts (Speller.fixes).
const maxFixes = 1 << 12

// New returns a Speller with no words yet (Add).
func New(o Options) *Speller {
	return &Speller{words: map[string]struct{}{}, o: o}
}

// Add adds w to the vocabulary when it is MinLen to MaxLen letters a-z.
func (sp *Speller) Add(w string) {
	if len(w) >= MinLen && len(w) <= MaxLen && lowerASCII(w) {
		sp.words[w] = struct{}{}
	}
}

// Knows reports whether w is in the vocabulary.
func (sp *Speller) Knows(w string) bool {
	_, ok := sp.words[w]
	return ok
}

// Correct returns toks with the slips among its first MaxSlips unknown
// words replaced by the words they stand for, and whether any was. It is
// safe for concurrent use once every Add is done.
func (sp *Speller) Correct(toks []string) ([]string, bool) {
	var out []string
	tried := 0
	for i, w := range toks {
		if len(w) < MinLen || len(w) > MaxLen || !lowerASCII(w) || sp.o.Skip(w) {
			continue
		}
		if _, ok := sp.words[w]; ok {
			continue
		}
		if tried == MaxSlips {
			break
		}
		tried++
		// Every common word of four letters or more is a known one, and
		// Common is a hash lookup where Known searches 72,000 words.
		if wordlist.Common(w) {
			continue
		}
		fix := sp.fixOf(w)
		if fix == "" {
			continue
		}
		if out == nil {
			out = append([]string(nil), toks...)
		}
		out[i] = fix
	}
	return out, out != nil
}

// fixOf returns the vocabulary word the uncommon word w is a slip for,
// or "", remembered in fixes.
func (sp *Speller) fixOf(w string) string {
	if fix, ok := sp.fixes.Load(w); ok {
		return fix.(string)
	}
	fix, ok := "", false
	if !wordlist.Known(w) {
		// A plural or other form of a vocabulary word is no slip: the
		// stems meet already, and the user's word stays.
		if fix, ok = sp.oneEditAway(w); !ok || sp.o.Stem(fix) == sp.o.Stem(w) {
			fix = ""
		}
	}
	if sp.fixCount.Load() < maxFixes {
		if _, loaded := sp.fixes.LoadOrStore(strings.Clone(w), fix); !loaded {
			sp.fixCount.Add(1)
		}
	}
	return fix
}

// oneEditAway returns the one vocabulary word (forms of one word count as
// one) a single slip from w: a letter missing ("atest"), two neighbours
// swapped ("bulid"), a letter doubled ("isssue") or, in a word of five
// letters or more, one wrong letter ("deplpy"). The first letter is taken
// as typed; a letter added at the end or a last letter changed is jargon
// more often than a slip ("xcode", "healthz"), and is not read.
func (sp *Speller) oneEditAway(w string) (string, bool) {
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
		if st := sp.o.Stem(string(b)); n == 0 || st != foundStem {
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
