package agentfile

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// This file holds an independent, whole-document reference reading of the
// 3md base format (docs/format.md §1–§6), written for obviousness rather than speed:
// it holds the whole text in memory, normalises it first and then walks a
// slice of lines. The fuzz tests compare the streaming scanner against it.

// refDoc is the reference reading of one document.
type refDoc struct {
	version, axis string
	title         *string
	metadata      map[string]string
	preamble      *string
	preambleLine  int
	planes        []refPlane
	lines         int // lines in the file
}

type refPlane struct {
	z, x, y    float64
	hasX, hasY bool
	label      *string
	attrs      map[string]string
	body       string
	line       int // the directive's line; 0 for the implicit plane
	bodyLine   int // the body's first line; 0 for an empty body
}

// refError is the reference's verdict on a refused document: the canonical
// name, the line the error is reported on, and the line on which a
// streaming reader first knows about it (len(lines)+1 when only at EOF).
type refError struct {
	name   string
	line   int
	detect int
}

// refStats are the sizes the Limits bound, measured over the whole input.
type refStats struct {
	lines         []int // raw content length of each line (terminator excluded)
	lineEnds      []int64
	fmLines       int // lines between the frontmatter delimiters
	planes        int // directive lines
	maxTokens     int // most key=value tokens on one directive
	maxValueBytes int // longest attribute value as stored (unquoted, or verbatim)
	links         int // [[z=…]] links on body lines, counted by appendLinks
}

var refNumberRE = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

func refNumber(s string) (float64, bool) {
	if !refNumberRE.MatchString(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, false
	}
	return f, !math.IsInf(f, 0) && !math.IsNaN(f)
}

func refBlank(l string) bool { return strings.Trim(l, " \t") == "" }

// refSplit returns the normalised lines of src and the raw length and end
// offset of each line as it is on disk.
func refSplit(src []byte) (lines []string, st refStats) {
	var off int64
	for i, raw := range strings.SplitAfter(string(src), "\n") {
		if raw == "" {
			break
		}
		off += int64(len(raw))
		content := strings.TrimSuffix(raw, "\n")
		if len(content) < len(raw) {
			content = strings.TrimSuffix(content, "\r")
		}
		st.lines = append(st.lines, len(content))
		st.lineEnds = append(st.lineEnds, off)
		if i == 0 {
			content = strings.TrimPrefix(content, "\uFEFF")
		}
		lines = append(lines, content)
	}
	return lines, st
}

// refUnquote removes one pair of matching surrounding quotes; inside them a
// backslash escapes whatever follows it, and a trailing lone backslash
// stays. Anything else is returned as written.
func refUnquote(v string) string {
	if len(v) < 2 || !(v[0] == '"' || v[0] == '\'') || v[len(v)-1] != v[0] {
		return v
	}
	var b strings.Builder
	in := v[1 : len(v)-1]
	for i := 0; i < len(in); i++ {
		if in[i] == '\\' && i+1 < len(in) {
			i++
		}
		b.WriteByte(in[i])
	}
	return b.String()
}

// refSplitTokens cuts a directive's text into raw tokens: runs of bytes
// between spaces and tabs, where a quoted span (with backslash escapes)
// may hold spaces. ok is false for an unterminated quote; the tokens
// completed before it are still returned.
func refSplitTokens(s string) (toks []string, ok bool) {
	var cur strings.Builder
	var quote byte
	escaped := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			cur.WriteByte(c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == quote:
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
			cur.WriteByte(c)
		case c == ' ' || c == '\t':
			if cur.Len() > 0 {
				toks = append(toks, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteByte(c)
		}
	}
	if quote != 0 {
		return toks, false
	}
	if cur.Len() > 0 {
		toks = append(toks, cur.String())
	}
	return toks, true
}

// refTokens splits a directive's text after "@plane" into ordered key=value
// pairs: a token's key is what precedes its first '=', its value the rest,
// unquoted by refUnquote. It returns the pairs, the number of tokens seen
// and the longest stored value, and ok=false for a malformed token.
func refTokens(s string) (keys, vals []string, n, longest int, ok bool) {
	toks, ok := refSplitTokens(s)
	for _, t := range toks {
		k, v, found := strings.Cut(t, "=")
		n++
		if !found || k == "" {
			return nil, nil, n, longest, false
		}
		v = refUnquote(v)
		longest = max(longest, len(v))
		keys = append(keys, strings.ToLower(k))
		vals = append(vals, v)
	}
	if !ok {
		return nil, nil, n, longest, false
	}
	return keys, vals, n, longest, true
}

func refIsDirective(l string) bool {
	if !strings.HasPrefix(l, "@plane") {
		return false
	}
	rest := l[len("@plane"):]
	return rest == "" || rest[0] == ' ' || rest[0] == '\t'
}

// refFence returns the fence character of a fence line, or 0.
func refFence(l string) byte {
	t := strings.TrimLeft(l, " \t")
	switch {
	case strings.HasPrefix(t, "```"):
		return '`'
	case strings.HasPrefix(t, "~~~"):
		return '~'
	}
	return 0
}

// refTrim joins lines after dropping leading and trailing blank ones; skip
// is the number of leading lines dropped.
func refTrim(lines []string) (body *string, skip int) {
	for len(lines) > 0 && refBlank(lines[0]) {
		lines = lines[1:]
		skip++
	}
	for len(lines) > 0 && refBlank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return nil, 0
	}
	s := strings.Join(lines, "\n")
	return &s, skip
}

// refParse reads src as a whole. Exactly one of doc and err is non-nil.
func refParse(src []byte) (*refDoc, *refError, refStats) {
	lines, st := refSplit(src)
	eof := len(lines) + 1
	i := 0
	for i < len(lines) && refBlank(lines[i]) {
		i++
	}
	if i == len(lines) {
		return nil, &refError{MissingFrontmatter, 1, eof}, st
	}
	if strings.TrimRight(lines[i], " \t") != "---" {
		return nil, &refError{MissingFrontmatter, i + 1, i + 1}, st
	}
	open := i + 1
	d := &refDoc{axis: "layer", metadata: map[string]string{}}
	closed := false
	for i++; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if t == "---" {
			closed = true
			break
		}
		st.fmLines++
		if t == "" || t[0] == '#' {
			continue
		}
		k, v, found := strings.Cut(t, ":")
		if !found || strings.TrimSpace(k) == "" {
			return nil, &refError{InvalidFrontmatter, i + 1, i + 1}, st
		}
		k, v = strings.TrimSpace(k), refUnquote(strings.TrimSpace(v))
		switch strings.ToLower(k) {
		case "3md":
			d.version = v
		case "axis":
			if d.axis = strings.ToLower(strings.TrimSpace(v)); d.axis == "" {
				d.axis = "layer"
			}
		case "title":
			d.title = &v
		default:
			d.metadata[k] = v
		}
	}
	if !closed {
		return nil, &refError{InvalidFrontmatter, open, eof}, st
	}
	if d.version == "" {
		return nil, &refError{MissingVersion, open, i + 1}, st
	}
	return refBody(d, lines, i+1, &st)
}

// refBody reads the lines after the frontmatter (starting at index from).
func refBody(d *refDoc, lines []string, from int, st *refStats) (*refDoc, *refError, refStats) {
	var fence byte
	d.lines = len(lines)
	var cur []string // lines of the section being read
	curLine := from + 1
	seen := map[float64]bool{}
	flush := func(next int) {
		b, skip := refTrim(cur)
		switch {
		case b == nil:
		case len(d.planes) == 0:
			d.preamble, d.preambleLine = b, curLine+skip
		default:
			p := &d.planes[len(d.planes)-1]
			p.body, p.bodyLine = *b, curLine+skip
		}
		cur, curLine = nil, next
	}
	for i := from; i < len(lines); i++ {
		l := lines[i]
		if fence == 0 && refIsDirective(l) {
			p, name := refDirective(l[len("@plane"):], st)
			if name == "" && seen[p.z] {
				name = DuplicatePlane
			}
			if name != "" {
				return nil, &refError{name, i + 1, i + 1}, *st
			}
			seen[p.z] = true
			flush(i + 2)
			p.line = i + 1
			d.planes = append(d.planes, p)
			continue
		}
		if f := refFence(l); f != 0 {
			if fence == 0 {
				fence = f
			} else if f == fence {
				fence = 0
			}
		}
		cur = append(cur, l)
		// The link count only feeds the limit check, so it may reuse the
		// scanner's own link reader.
		st.links += len(appendLinks(nil, []byte(l), 0))
	}
	flush(0)
	if len(d.planes) == 0 && d.preamble != nil {
		d.planes = []refPlane{{attrs: map[string]string{}, body: *d.preamble, bodyLine: d.preambleLine}}
		d.preamble, d.preambleLine = nil, 0
	}
	return d, nil, *st
}

// refDirective reads one directive; name is the canonical error, or "".
func refDirective(s string, st *refStats) (refPlane, string) {
	st.planes++
	keys, vals, n, longest, ok := refTokens(s)
	st.maxTokens = max(st.maxTokens, n)
	st.maxValueBytes = max(st.maxValueBytes, longest)
	if !ok {
		return refPlane{}, InvalidPlaneDirective
	}
	p := refPlane{attrs: map[string]string{}}
	for k := range keys {
		p.attrs[keys[k]] = vals[k]
	}
	zs, ok := p.attrs["z"]
	if !ok {
		return p, MissingPlanePosition
	}
	if p.z, ok = refNumber(zs); !ok {
		return p, InvalidPlaneDirective
	}
	if v, has := p.attrs["x"]; has {
		if p.x, ok = refNumber(v); !ok {
			return p, InvalidPlaneDirective
		}
		p.hasX = true
	}
	if v, has := p.attrs["y"]; has {
		if p.y, ok = refNumber(v); !ok {
			return p, InvalidPlaneDirective
		}
		p.hasY = true
	}
	if v, has := p.attrs["label"]; has {
		p.label = &v
	}
	for _, k := range []string{"z", "x", "y", "label"} {
		delete(p.attrs, k)
	}
	return p, ""
}
