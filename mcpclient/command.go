package mcpclient

import (
	"errors"
	"fmt"
	"strings"
)

// SplitCommand splits a server command line, as a user types it after
// --server, into the argv Spawn takes. It reads the simple cases the way
// a shell does: spaces, tabs and newlines separate words, single quotes
// keep everything literal, double quotes keep spaces, and a backslash
// outside single quotes escapes the next character. Nothing is expanded
// ($VAR, ~, globs): the words are passed as written. An unterminated
// quote or a line with no word is an error.
func SplitCommand(s string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		in    bool // inside a word
		quote byte
	)
	// Byte by byte: every byte that quotes or separates is ASCII, so a
	// multi-byte character passes through whole, and bytes that are not
	// UTF-8 (a file name may hold them) pass through unchanged rather
	// than as U+FFFD. A backslash before a multi-byte character escapes
	// its first byte, which keeps the character whole too.
	for i := 0; i < len(s); i++ {
		r := s[i]
		switch {
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteByte(r)
			}
		case r == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			in = true
		case quote == '"':
			if r == '"' {
				quote = 0
			} else {
				cur.WriteByte(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote in %q", quote, s)
	}
	if in {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("empty command")
	}
	return words, nil
}
