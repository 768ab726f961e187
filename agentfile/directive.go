package agentfile

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
)

// directive reads one @plane line, closes the section before it and opens
// the plane's own.
func (p *parser) directive(l []byte) error {
	line := p.lr.line
	attrs, err := p.tokens(l[len("@plane"):], line)
	if err != nil {
		return err
	}
	if p.nplanes >= p.limits.MaxPlanes {
		return &LimitError{Limit: "number of planes", Flag: "--max-planes", Max: int64(p.limits.MaxPlanes)}
	}
	pl := Plane{Line: line}
	zText, ok := attrs.take("z")
	if !ok {
		return p.errorf(MissingPlanePosition, line, "the @plane directive has no z position; add z=<number>, e.g. z=%d", p.nplanes)
	}
	if pl.Z, err = p.number("z", zText, line); err != nil {
		return err
	}
	pl.ZText = zText
	if v, ok := attrs.take("x"); ok {
		if pl.X, err = p.number("x", v, line); err != nil {
			return err
		}
		pl.HasX = true
	}
	if v, ok := attrs.take("y"); ok {
		if pl.Y, err = p.number("y", v, line); err != nil {
			return err
		}
		pl.HasY = true
	}
	if v, ok := attrs.take("label"); ok {
		pl.Label, pl.HasLabel = v, true
	}
	if len(attrs) > 0 {
		// attrs is the parser's scratch space: keep an exact-size copy.
		pl.Attributes = append(Attrs(nil), attrs...)
		sort.Slice(pl.Attributes, func(i, j int) bool { return pl.Attributes[i].Key < pl.Attributes[j].Key })
	}
	if prev, dup := p.cat.byZ.Find(pl.Z); dup {
		return p.errorf(DuplicatePlane, line, "z=%s repeats the position of the plane on line %d (z=%s); every plane needs its own z",
			bare(zText), p.plane(prev).Line, bare(p.plane(prev).ZText))
	}
	p.endSection()
	p.cat.byZ.Add(pl.Z, false) // at position p.nplanes, as the plane
	p.addPlane(pl)
	p.sec = section{plane: p.nplanes - 1}
	p.desc.reset(p.limits.MaxDescriptionBytes)
	return nil
}

// lower returns b lowercased, in b itself when it has no upper-case ASCII
// (the common case) and in *buf otherwise, so keys cost no allocation.
func lower(b []byte, buf *[]byte) []byte {
	for _, c := range b {
		if c >= 'A' && c <= 'Z' || c >= 0x80 {
			*buf = bytes.ToLower(b)
			return *buf
		}
	}
	return b
}

// planeChunk is how many planes the parser keeps per chunk while scanning.
// Chunks grow without copying; finish copies them once into an exact-size
// slice, instead of append doubling and copying a 100,000-plane slice
// again and again.
const planeChunk = 4096

func (p *parser) addPlane(pl Plane) {
	if n := len(p.chunks); n == 0 || len(p.chunks[n-1]) == planeChunk {
		p.chunks = append(p.chunks, make([]Plane, 0, planeChunk))
	}
	last := &p.chunks[len(p.chunks)-1]
	*last = append(*last, pl)
	p.nplanes++
}

func (p *parser) plane(i int) *Plane { return &p.chunks[i/planeChunk][i%planeChunk] }

// maxInterned bounds the intern table so hostile input cannot grow it.
const maxInterned = 4096

// intern returns a shared string for b: attribute keys and short values
// (kind=skill, cost=db) repeat on every plane, and sharing them keeps large
// catalogs small.
func (p *parser) intern(b []byte) string {
	if s, ok := p.interned[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(p.interned) < maxInterned {
		if p.interned == nil {
			p.interned = map[string]string{}
		}
		p.interned[s] = s
	}
	return s
}

func (p *parser) value(b []byte) string {
	if len(b) <= 16 {
		return p.intern(b)
	}
	return string(b)
}

func (p *parser) number(key, v string, line int) (float64, error) {
	f, ok := ParseNumber(v)
	if !ok {
		return 0, p.errorf(InvalidPlaneDirective, line, "%s=%s is not a finite decimal number (write e.g. %s=2 or %s=-1.5; no hex, inf, nan or separators)", key, quoted(v), key, key)
	}
	return f, nil
}

// tokens splits a directive's remainder into key=value attributes the way
// the reference reads them. Tokens are separated by spaces or tabs outside
// quotes; a single- or double-quoted span is kept whole, quotes included,
// with a backslash inside it escaping the next character. A token's key is
// what precedes its first '=' (lowercased); its value is the rest, unquoted
// only when its first and last bytes are the same quote (see unquoteValue),
// else kept verbatim: label="frame-3"~~~ is "frame-3"~~~. Like the
// reference, that test looks at the two ends only, so "a"b"c" reads as
// a"b"c. A repeated key keeps its last value.
func (p *parser) tokens(s []byte, line int) (Attrs, error) {
	attrs := p.scratch[:0]
	defer func() { p.scratch = attrs[:0] }()
	n := 0
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i == len(s) {
			return attrs, nil
		}
		start, eq, end, err := p.token(s, i, line)
		if err != nil {
			return nil, err
		}
		i = end
		if eq < 0 {
			return nil, p.errorf(InvalidPlaneDirective, line, "token %s has no '='; directive attributes are key=value (quote values with spaces)", quoted(s[start:end]))
		}
		key := p.intern(lower(s[start:eq], &p.keyBuf))
		if key == "" {
			return nil, p.errorf(InvalidPlaneDirective, line, "token %s has an empty key before '='", quoted(s[start:end]))
		}
		val := unquoteValue(s[eq+1:end], &p.valBuf)
		if len(val) > p.limits.MaxAttributeBytes {
			return nil, &LimitError{Limit: fmt.Sprintf("attribute %s= value length", bare(key)), Flag: "--max-attribute-bytes", Max: int64(p.limits.MaxAttributeBytes)}
		}
		if n++; n > p.limits.MaxAttributes {
			return nil, &LimitError{Limit: "attributes per directive", Flag: "--max-attributes", Max: int64(p.limits.MaxAttributes)}
		}
		attrs = attrs.set(key, p.value(val))
	}
}

// token finds the token starting at s[i]: it returns the offset of its
// first '=' (-1 when it has none; an '=' inside quotes counts, as in the
// reference) and its end. An unterminated quote is an error.
func (p *parser) token(s []byte, i, line int) (start, eq, end int, err error) {
	start, eq = i, -1
	var q byte // the open quote, 0 outside quotes
	for ; i < len(s); i++ {
		c := s[i]
		if c == '=' && eq < 0 {
			eq = i
		}
		switch {
		case q != 0 && c == '\\' && i+1 < len(s):
			i++
			if s[i] == '=' && eq < 0 {
				eq = i
			}
		case q != 0 && c == q:
			q = 0
		case q != 0:
		case c == ' ' || c == '\t':
			return start, eq, i, nil
		case c == '"' || c == '\'':
			q = c
		}
	}
	if q != 0 {
		return 0, 0, 0, p.errorf(InvalidPlaneDirective, line, "the token %s opens a %c quote that is never closed; close it, or escape it with a backslash inside quotes", quoted(s[start:]), q)
	}
	return start, eq, i, nil
}

// unquoteValue returns v without one pair of matching surrounding quotes
// (" or ', first and last byte), with every backslash inside escaping the
// byte after it (\\ is \, \" is ", \= is =; a trailing lone backslash
// stays). A value not so quoted is returned as it is. The result may live
// in *buf.
func unquoteValue(v []byte, buf *[]byte) []byte {
	if len(v) < 2 || (v[0] != '"' && v[0] != '\'') || v[len(v)-1] != v[0] {
		return v
	}
	in := v[1 : len(v)-1]
	k := bytes.IndexByte(in, '\\')
	if k < 0 {
		return in
	}
	b := append((*buf)[:0], in[:k]...)
	for i := k; i < len(in); i++ {
		if in[i] == '\\' && i+1 < len(in) {
			i++
		}
		b = append(b, in[i])
	}
	*buf = b
	return b
}

// ParseNumber reads a 3md number: optional sign, digits with an optional
// fraction or a fraction alone, optional exponent; finite only. Hex, inf,
// nan, separators and overflow are refused.
func ParseNumber(s string) (float64, bool) {
	if !numberSyntax(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

func numberSyntax(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	d := digits(s, i)
	i += d
	f := 0
	if i < len(s) && s[i] == '.' {
		i++
		f = digits(s, i)
		i += f
	}
	if d == 0 && f == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		e := digits(s, i)
		if e == 0 {
			return false
		}
		i += e
	}
	return i == len(s)
}

func digits(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] >= '0' && s[i+n] <= '9' {
		n++
	}
	return n
}
