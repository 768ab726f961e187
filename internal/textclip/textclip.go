package textclip

import (
	"strings"
	"unicode/utf8"
)

// Ellipsis ends every cut text.
const Ellipsis = "…"

// Cut returns the largest index of s at most n that splits no UTF-8
// sequence: len(s) when n ≥ len(s), 0 when n ≤ 0. It steps back at most
// utf8.UTFMax-1 bytes, so a run of stray continuation bytes (invalid
// UTF-8, which no cut can split) is cut at n.
func Cut[T ~string | ~[]byte](s T, n int) int {
	if n >= len(s) {
		return len(s)
	}
	if n <= 0 {
		return 0
	}
	for k := n; k >= 0 && k > n-utf8.UTFMax; k-- {
		if utf8.RuneStart(s[k]) {
			return k
		}
	}
	return n
}

// Bytes returns s when it is at most n bytes long; otherwise its longest
// prefix of at most n bytes that splits no UTF-8 sequence (Cut), followed
// by Ellipsis. The result is at most n+len(Ellipsis) bytes.
func Bytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:Cut(s, n)] + Ellipsis
}

// Runes returns s when it has at most n runes; otherwise s cut to n runes,
// the last of them the ellipsis: at the last space in the final quarter of
// the kept text when there is one, so a word is not cut in two, with the
// spaces and ",;:" before the cut dropped. n is at least 1.
func Runes(s string, n int) string {
	n = max(n, 1)
	if len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	end := 0 // byte offset after the first n-1 runes
	for i := 0; i < n-1; i++ {
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
	}
	kept := s[:end]
	if sp := strings.LastIndexByte(kept, ' '); sp >= 0 && utf8.RuneCountInString(kept[:sp]) > n*3/4 {
		kept = kept[:sp]
	}
	return strings.TrimRight(kept, " ,;:") + Ellipsis
}
