package segment

import (
	"cmp"
	"iter"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// unspacedTables are the scripts read this way: Han, the Japanese kana
// (and the prolonged sound mark, which is in no script of its own), and
// Hangul, whose words carry their particles ("배포해줘" holds "배포").
var unspacedTables = []*unicode.RangeTable{unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul}

// Unspaced reports whether r is written in one of the unspaced scripts.
func Unspaced(r rune) bool {
	if r < 0x1100 { // below Hangul Jamo: Latin, Greek, Cyrillic, Arabic…
		return false
	}
	return r == 'ー' || unicode.IsOneOf(unspacedTables, r)
}

// HasUnspaced reports whether s holds a rune of an unspaced script. Its
// ASCII bytes, which are none, are skipped four at a time: a route asks
// this of its request several times.
func HasUnspaced(s string) bool {
	i := 0
	for ; i+4 <= len(s) && (s[i]|s[i+1]|s[i+2]|s[i+3]) < utf8.RuneSelf; i += 4 {
	}
	for i < len(s) && s[i] < utf8.RuneSelf {
		i++
	}
	for _, r := range s[i:] {
		if Unspaced(r) {
			return true
		}
	}
	return false
}

// AllUnspaced reports whether s is not empty and every rune of it is of
// an unspaced script.
func AllUnspaced(s string) bool {
	for _, r := range s {
		if !Unspaced(r) {
			return false
		}
	}
	return s != ""
}

// ScriptRuns yields tok's maximal runs of unspaced and of other runes.
func ScriptRuns(tok string) iter.Seq[string] {
	return func(yield func(string) bool) {
		start, kind := 0, false
		for i, r := range tok {
			k := Unspaced(r)
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

// Segmenter holds a vocabulary of unspaced words by first rune, each
// rune's words longest first once Sort has run. The zero value is empty.
type Segmenter struct {
	byFirst map[rune][]string
}

// Add files word, which the caller has not added before, under its first
// rune; Sort must run before the Segmenter is read.
func (sg *Segmenter) Add(word string) {
	if sg.byFirst == nil {
		sg.byFirst = map[rune][]string{}
	}
	r, _ := utf8.DecodeRuneInString(word)
	sg.byFirst[r] = append(sg.byFirst[r], word)
}

// Sort puts each rune's words longest first, ties by their bytes.
func (sg *Segmenter) Sort() {
	for _, words := range sg.byFirst {
		slices.SortFunc(words, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	}
}

// Empty reports whether sg holds no word.
func (sg *Segmenter) Empty() bool { return len(sg.byFirst) == 0 }

// MaxRun bounds cutting: a longer token (a pasted document) is kept whole,
// so cutting costs at most this much a token.
const MaxRun = 16 << 10

// Split appends toks to dst, each unspaced run cut at sg's words (longest
// first, left to right; the text between kept as words, other runes such
// as "k8s" of "k8s部署" as their own). A token holding none of sg's words
// stays whole, and once the words so far and the tokens left pass
// maxWords the rest are appended as they are, so cutting never multiplies
// a hostile text's words. It reports whether any token was cut.
func (sg *Segmenter) Split(dst, toks []string, maxWords int) ([]string, bool) {
	cut := false
	for k, tok := range toks {
		if len(dst)+len(toks)-k > maxWords {
			return append(dst, toks[k:]...), cut
		}
		if sg.Empty() || len(tok) > MaxRun || !HasUnspaced(tok) {
			dst = append(dst, tok)
			continue
		}
		n := len(dst)
		found := false
		for run := range ScriptRuns(tok) {
			if r, _ := utf8.DecodeRuneInString(run); !Unspaced(r) {
				dst = append(dst, run)
				continue
			}
			var f bool
			dst, f = sg.cutRun(dst, run)
			found = found || f
		}
		if !found { // none of sg's words in it: as it was
			dst = append(dst[:n], tok)
			continue
		}
		cut = true
	}
	return dst, cut
}

// cutRun appends run cut at sg's words (see Split), and reports whether
// it found one.
func (sg *Segmenter) cutRun(dst []string, run string) ([]string, bool) {
	found := false
	rest := 0 // start of the text not yet emitted
	for i := 0; i < len(run); {
		word, size := sg.WordAt(run, i)
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

// WordAt returns the longest of sg's words that text[i:] starts with (""
// when none), and the size of the rune at i.
func (sg *Segmenter) WordAt(text string, i int) (string, int) {
	r, size := utf8.DecodeRuneInString(text[i:])
	for _, w := range sg.byFirst[r] {
		if strings.HasPrefix(text[i:], w) {
			return w, size
		}
	}
	return "", size
}

// Spaced appends text to dst with a space on each side of every word of
// sg's that Split would find, so a text read in pairs of runes is cut
// where Split cuts a request.
func (sg *Segmenter) Spaced(dst []byte, text string) []byte {
	for i := 0; i < len(text); {
		word, size := "", 1
		if text[i] >= utf8.RuneSelf {
			word, size = sg.WordAt(text, i)
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
