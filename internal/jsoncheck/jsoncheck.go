package jsoncheck

import (
	"bytes"
	"errors"
)

// maxDepth is encoding/json's nesting bound: a value nested deeper than
// this is not valid.
const maxDepth = 10000

// Valid reports whether b is exactly one JSON value, with optional
// whitespace around it: what encoding/json.Valid reports.
func Valid(b []byte) bool {
	// open holds the containers entered and not yet closed, '{' or '[';
	// the small array keeps the common shallow message off the heap.
	var small [64]byte
	open := small[:0]
	i := SkipSpace(b, 0)
	for {
		// A value starts at b[i].
		if i >= len(b) {
			return false
		}
		switch c := b[i]; c {
		case '{', '[':
			if len(open) >= maxDepth {
				return false
			}
			open = append(open, c)
			i = SkipSpace(b, i+1)
			if i < len(b) && b[i] == c+2 { // '}' is '{'+2, ']' is '['+2
				open = open[:len(open)-1]
				i++
				break
			}
			if c == '{' {
				if i = member(b, i); i < 0 {
					return false
				}
			}
			continue
		case '"':
			if i = stringEnd(b, i); i < 0 {
				return false
			}
		case 't':
			if i = literal(b, i, "true"); i < 0 {
				return false
			}
		case 'f':
			if i = literal(b, i, "false"); i < 0 {
				return false
			}
		case 'n':
			if i = literal(b, i, "null"); i < 0 {
				return false
			}
		default:
			if i = numberEnd(b, i); i < 0 {
				return false
			}
		}
		// A value ended just before b[i]: close what it completes, then
		// either the input ends or a comma leads to the next value.
		for {
			i = SkipSpace(b, i)
			if len(open) == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			top := open[len(open)-1]
			if b[i] == top+2 {
				open = open[:len(open)-1]
				i++
				continue
			}
			if b[i] != ',' {
				return false
			}
			i = SkipSpace(b, i+1)
			if top == '{' {
				if i = member(b, i); i < 0 {
					return false
				}
			}
			break
		}
	}
}

// member reads an object member's name and colon at b[i] and returns
// where its value starts, or -1.
func member(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = stringEnd(b, i); i < 0 {
		return -1
	}
	i = SkipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return -1
	}
	return SkipSpace(b, i+1)
}

// SkipSpace returns the index of the first byte at or after b[i] that
// is not JSON whitespace (space, tab, CR, LF), len(b) when there is none.
func SkipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// stringEnd returns the index just past the string opening at b[i], or
// -1 when it is not a valid string.
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		c := b[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		switch c {
		case '"':
			return i + 1
		case '\\':
			i++
			if i >= len(b) {
				return -1
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return -1
				}
				for _, h := range b[i+1 : i+5] {
					if !isHex(h) {
						return -1
					}
				}
				i += 4
			default:
				return -1
			}
		default: // a control character
			return -1
		}
	}
	return -1
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// numberEnd returns the index just past the number starting at b[i], or
// -1: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func numberEnd(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return -1
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		if i+1 >= len(b) || !isDigit(b[i+1]) {
			return -1
		}
		i = digits(b, i+1)
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return -1
		}
		i = digits(b, i)
	}
	return i
}

func digits(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

// literal returns the index past word at b[i], or -1 when b does not
// spell it there.
func literal(b []byte, i int, word string) int {
	if len(b)-i < len(word) || string(b[i:i+len(word)]) != word {
		return -1
	}
	return i + len(word)
}

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
