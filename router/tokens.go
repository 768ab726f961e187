package router

import (
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/go-porterstemmer"
)

// isWordRune reports whether r belongs to a token: the reference routing
// (docs/format.md §10) defines tokens as maximal runs of Unicode letters and digits.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// appendTokens appends the lowercased tokens of s to dst (docs/format.md
// §10: maximal runs of Unicode letters/digits, lowercased rune by rune).
// Invalid UTF-8 bytes separate tokens like any other non-letter.
func appendTokens(dst []string, s string) []string {
	start := -1
	ascii, lower := true, true
	flush := func(end int) {
		tok := s[start:end]
		if !ascii || !lower {
			tok = lowerToken(tok)
		}
		dst = append(dst, tok)
		start = -1
	}
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		if isWordRune(r) && !(r == utf8.RuneError && size == 1) {
			if start < 0 {
				start, ascii, lower = i, true, true
			}
			if r >= utf8.RuneSelf {
				ascii = false
			} else if 'A' <= r && r <= 'Z' {
				lower = false
			}
		} else if start >= 0 {
			flush(i)
		}
		i += size
	}
	if start >= 0 {
		flush(len(s))
	}
	return dst
}

// lowerToken maps every rune of tok through unicode.ToLower. Unlike
// strings.ToLower it has no special cases, so a token never gains runes
// that are not letters or digits (strings.ToLower("İ") adds U+0307).
func lowerToken(tok string) string {
	buf := make([]byte, 0, len(tok))
	for _, r := range tok {
		buf = utf8.AppendRune(buf, unicode.ToLower(r))
	}
	return string(buf)
}

// stem is the English (Porter) stem of a lowercased token, after its
// British -ise spelling is made -ize (americanSpelling): the same steps
// the index's analyzer applies, so phrase stems and indexed terms agree.
func stem(tok string) string {
	for i := 0; i < len(tok); i++ {
		if tok[i] >= utf8.RuneSelf {
			return string(porterstemmer.StemWithoutLowerCasing([]rune(tok)))
		}
	}
	if len(tok) <= 2 {
		return tok
	}
	return string(porterstemmer.StemWithoutLowerCasing([]rune(americanSpelling(tok))))
}

// zEndings are the endings of British -ise and -yse words ("summarise",
// "visualised", "analyses", "normalisation"), longest first.
var zEndings = []string{"isations", "isation", "isers", "ising", "iser", "ised", "ises", "ise",
	"ysers", "ysing", "yser", "ysed", "yses", "yse"}

// americanSpelling writes the s of a British -ise or -yse ending as z, so
// that "summarise" and a trigger "summarize" share a stem (Porter keeps
// them apart: "summaris", "summar"). Words that only look British
// ("promise") become words nobody writes ("promize") on both sides of a
// match alike, which changes nothing; at least three letters must come
// before the ending ("raise" stays).
func americanSpelling(tok string) string {
	for _, e := range zEndings {
		if len(tok) >= len(e)+3 && tok[len(tok)-len(e):] == e {
			i := len(tok) - len(e) + 1 // the s
			return tok[:i] + "z" + tok[i+1:]
		}
	}
	return tok
}
