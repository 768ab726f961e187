package mcp

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// The answers a client asks for most (route_skill, the tool result around
// every text block) are written by hand with these appenders instead of
// through encoding/json's reflection, which was a third of a small
// route's time. They write exactly the bytes appendAnswer's encoder
// writes (compact, HTML escaping off): jsonappend_test.go checks them
// against encoding/json over every byte, edge strings and floats, and a
// fuzz target keeps checking.

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string: quote and backslash
// escaped, the five short control escapes, other control bytes as \u00XX,
// invalid UTF-8 as \ufffd, and U+2028/U+2029 escaped (JavaScript reads
// them as line ends).
func appendJSONString(dst []byte, s string) []byte {
	dst = appendJSONChars(append(dst, '"'), s)
	return append(dst, '"')
}

// appendJSONChars appends s escaped as appendJSONString escapes it, without
// the quotes: the escaping of a concatenation is the concatenation of the
// escapings, since each piece is whole runes.
func appendJSONChars(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		// Eight plain bytes at a time: most of a skill body needs no
		// escape, and a byte at a time was the largest cost of a body
		// read's answer.
		for i+8 <= len(s) && plainASCII8(s[i:i+8]) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(dst, s[start:]...)
}

// plainASCII8 reports whether the 8 bytes of b are all printable ASCII
// other than '"' and '\\': bytes appendJSONString copies as they are.
func plainASCII8(b string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	x := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
	// A byte is flagged when its high bit is set (non-ASCII), when it is
	// below 0x20, or when it equals '"' or '\\' (x^c has a zero byte
	// there); the usual "has a byte less than n" trick, exact because
	// bytes with the high bit set are caught separately.
	less := (x - ones*0x20) &^ x
	quote := x ^ (ones * '"')
	slash := x ^ (ones * '\\')
	zero := ((quote - ones) &^ quote) | ((slash - ones) &^ slash)
	return (x|less|zero)&highs == 0
}

// appendJSONFloat appends a finite f as encoding/json writes a float64:
// the shortest decimal that reads back as f, in exponent form only below
// 1e-6 or from 1e21, with a one-digit negative exponent unpadded.
// Callers pass finite values only (scores, z): JSON has no NaN.
func appendJSONFloat(dst []byte, f float64) []byte {
	// Whole numbers (every z of most agents) need no float formatting;
	// -0 is left to strconv, which keeps its sign as encoding/json does.
	if i := int64(f); float64(i) == f && i > -1e15 && i < 1e15 && (i != 0 || !math.Signbit(f)) {
		return strconv.AppendInt(dst, i, 10)
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// "1e-07" → "1e-7"
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}
