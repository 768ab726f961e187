package jsoncheck

import (
	"bytes"
	"errors"
)

// The scanner: walking a JSON object's members, or skipping one value,
// without decoding what is skipped. The server (mcp) walks messages
// Valid has already accepted; the client (mcpclient) walks answers it has
// not checked, so every function here stops with ok false, never past
// len(b), on bytes that do not hold what it looks for. It checks the
// depth of nesting (not which bracket closes it) and where strings end,
// not every token: Valid, or a full decode, is the judge of a whole
// message.

// ErrNotObject is Members' answer to bytes that are not a JSON object it
// can walk: no opening brace, a member without a name or colon, a value
// that does not end, or something other than a comma or brace after one.
var ErrNotObject = errors.New("not a JSON object")

// Members calls fn with the name (raw: its quotes and escapes as sent)
// and the raw value of each member of the JSON object b, in order, until
// fn returns false. Both are slices of b. Space around b is allowed.
// Members already handed to fn stay handed when a later one is malformed
// and the error is ErrNotObject.
func Members(b []byte, fn func(name, value []byte) bool) error {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return ErrNotObject
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil
	}
	for {
		nameEnd, ok := SkipString(b, i)
		if !ok {
			return ErrNotObject
		}
		name := b[i:nameEnd]
		i = SkipSpace(b, nameEnd)
		if i >= len(b) || b[i] != ':' {
			return ErrNotObject
		}
		i = SkipSpace(b, i+1)
		end, ok := SkipValue(b, i)
		if !ok {
			return ErrNotObject
		}
		if !fn(name, b[i:end]) {
			return nil
		}
		i = SkipSpace(b, end)
		switch {
		case i < len(b) && b[i] == ',':
			i = SkipSpace(b, i+1)
		case i < len(b) && b[i] == '}':
			return nil
		default:
			return ErrNotObject
		}
	}
}

// shortString is how far SkipString looks byte by byte before it
// searches with IndexByte.
const shortString = 32

// SkipString returns the index just past the string that opens at b[i],
// ok false when b[i] is not a quote or the string does not end. Past its
// first bytes the closing quote is found with IndexByte, fast on the long
// strings answers carry (a SKILL.md's text); escapes are not checked,
// only skipped.
func SkipString(b []byte, i int) (end int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	j := i + 1
	// Names, ids and methods end within a few bytes, where a byte loop
	// beats IndexByte's call; past shortString bytes, IndexByte.
	for stop := min(len(b), j+shortString); j < stop; j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	if j >= len(b) {
		return 0, false
	}
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, false
		}
		j += k
		backslashes := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			backslashes++
		}
		j++
		if backslashes%2 == 0 {
			return j, true
		}
	}
}

// SkipValue returns the index just past the JSON value that starts at
// b[i]: a string, an object or array (to its matching close, strings
// inside skipped whole), or a number or literal (to the next delimiter or
// space). ok is false when there is no value there or it does not end.
func SkipValue(b []byte, i int) (end int, ok bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, ok := SkipString(b, j)
				if !ok {
					return 0, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j, j > i
}
