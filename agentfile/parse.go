package agentfile

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"strings"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

var bom = []byte{0xEF, 0xBB, 0xBF}

// Parse scans a 3md document from r in one pass and returns its body-less
// Catalog. It reads r line by line and never holds a whole plane body; every
// input it refuses gets a *ParseError naming the canonical error, the line
// and, for a bound, the flag that raises it.
func Parse(r io.Reader, opts *Options) (*Catalog, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	p := newParser(r, &o)
	err := p.run()
	if err != nil {
		return nil, p.wrap(err)
	}
	return p.cat, nil
}

type parser struct {
	file   string
	limits Limits
	lr     lineReader
	sum    hash.Hash
	tee    tee // sees every chunk read: feeds sum, marks suspect bytes
	cat    *Catalog

	sec     section // the preamble or plane being read
	inFence byte    // fence character while inside a fenced block
	desc    describer

	// The preamble is kept until the end: it becomes the implicit plane of
	// a document without directives.
	preamble     section
	preambleDesc string

	links    int // links found so far, preamble included
	interned map[string]string
	scratch  Attrs  // reused by tokens
	keyBuf   []byte // reused by lower
	valBuf   []byte // reused by unquoteValue
	// fmEmptyKey is the last frontmatter key read with an empty value: a
	// YAML block list under it is the likely reason a line has no colon.
	fmEmptyKey string
	// fmParent is set after a frontmatter line under which YAML would nest
	// an indented line: a key with no value, a block scalar, a list item.
	fmParent bool
	chunks   [][]Plane
	nplanes  int
	stopAt   int // Options.Planes

	// wrapLine is the line of the last directive, or of the last line
	// read as its wrapped continuation (NoticeWrappedDirective).
	wrapLine int

	// The frontmatter's opening line and its offset, for errors that
	// point back at it.
	openLine int
	openOff  int64
}

// section accumulates one body (the preamble or a plane) while streaming:
// its trimmed span, its CRC and its links.
type section struct {
	plane     int // index in Planes; -1 for the preamble
	started   bool
	span      Span
	firstLine int
	crcRun    uint32 // CRC through every line since the first non-blank one
	crcDone   uint32 // CRC through the last non-blank line
	links     []Link
}

func newParser(r io.Reader, o *Options) *parser {
	p := &parser{file: o.File, limits: o.Limits.withDefaults(), sum: sha256.New(), stopAt: o.Planes}
	p.tee.sum = p.sum
	p.lr = lineReader{
		r:       bufio.NewReaderSize(io.TeeReader(r, &p.tee), 64<<10),
		max:     p.limits.MaxLineBytes,
		maxSize: p.limits.MaxBytes,
	}
	p.cat = &Catalog{Axis: "layer", Metadata: map[string]string{}, MetadataLines: map[string]int{}}
	return p
}

func (p *parser) run() error {
	if err := p.frontmatter(); err != nil {
		return err
	}
	p.sec = section{plane: -1}
	p.desc.reset(p.limits.MaxDescriptionBytes)
	for {
		l, start, err := p.lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		directive := p.inFence == 0 && isDirective(l)
		if directive && p.stopAt > 0 && p.nplanes >= p.stopAt {
			p.cat.Partial = true
			break
		}
		p.inspect(l, p.inFence == 0)
		if !directive && p.inFence == 0 {
			if word, ok := nearDirective(l); ok {
				p.note(Notice{Kind: NoticeDirectiveTypo, Line: p.lr.line, Form: word})
			}
			if p.lr.line == p.wrapLine+1 {
				if keys := p.wrappedKeys(l); keys != nil {
					p.note(Notice{Kind: NoticeWrappedDirective, Line: p.lr.line, Key: strings.Join(keys, ", ")})
					p.wrapLine = p.lr.line // a third line may continue it too
				}
			}
		}
		if directive {
			if err := p.directive(l); err != nil {
				return err
			}
			p.wrapLine = p.lr.line
			continue
		}
		if err := p.bodyLine(l, start); err != nil {
			return err
		}
	}
	p.endSection()
	p.finish()
	return nil
}

// next reads one line, dropping a leading BOM from the first.
func (p *parser) next() ([]byte, int64, error) {
	l, start, err := p.lr.next()
	if err == nil && start == 0 {
		l = bytes.TrimPrefix(l, bom)
	}
	return l, start, err
}

func (p *parser) frontmatter() error {
	open, err := p.openFrontmatter()
	if err != nil {
		return err
	}
	n := 0
	for {
		l, _, err := p.next()
		if err == io.EOF {
			return p.errorf(InvalidFrontmatter, open, "the frontmatter opened here is never closed; add a '---' line after its last key")
		}
		if err != nil {
			return err
		}
		p.inspect(l, false)
		t := bytes.TrimSpace(l)
		if string(t) == "---" {
			break
		}
		// The bound counts the lines between the delimiters, the
		// closing '---' excluded.
		if n++; n > p.limits.MaxFrontmatterLines {
			return &LimitError{Limit: "frontmatter lines", Flag: "--max-frontmatter-lines", Max: int64(p.limits.MaxFrontmatterLines)}
		}
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		colon := bytes.IndexByte(t, ':')
		if colon <= 0 {
			return p.errorf(InvalidFrontmatter, p.lr.line, "frontmatter line %s is not 'key: value'%s", quoted(t), p.yamlHint(l, t))
		}
		key, raw := strings.TrimSpace(string(t[:colon])), bytes.TrimSpace(t[colon+1:])
		p.noteYAML(l, key, raw)
		p.setMeta(key, string(unquoteValue(raw, &p.valBuf)))
	}
	if p.cat.Version == "" {
		return p.errorf(MissingVersion, open, "the frontmatter has no '3md' version key; add '3md: 1.0'")
	}
	return nil
}

// openFrontmatter reads up to the opening '---' line and returns its line.
func (p *parser) openFrontmatter() (int, error) {
	for {
		l, _, err := p.next()
		if err == io.EOF {
			// Line 1 even for an empty file: editors and tools count
			// lines from 1, and "line 0" points nowhere.
			return 0, p.errorf(MissingFrontmatter, 1, "the document is empty; it must start with a '---' frontmatter block containing '3md: 1.0'")
		}
		if err != nil {
			return 0, err
		}
		p.inspect(l, false)
		if isBlank(l) {
			continue
		}
		if string(bytes.TrimRight(l, " \t")) != "---" {
			return 0, p.errorf(MissingFrontmatter, p.lr.line, "the document must start with a '---' line opening the frontmatter (found %s)%s", quoted(l), crHint(l))
		}
		p.openLine, p.openOff = p.lr.line, p.lr.start
		return p.lr.line, nil
	}
}

func (p *parser) setMeta(key, val string) {
	switch strings.ToLower(key) {
	case "3md":
		p.cat.Version = val
	case "axis":
		p.cat.Axis = strings.ToLower(strings.TrimSpace(val))
		if p.cat.Axis == "" {
			p.cat.Axis = "layer"
		}
	case "title":
		p.cat.Title, p.cat.HasTitle, p.cat.TitleLine = val, true, p.lr.line
	default:
		p.cat.Metadata[key] = val
		p.cat.MetadataLines[key] = p.lr.line
	}
}

// isDirective reports a line starting at column 0 with the token @plane.
func isDirective(l []byte) bool {
	return bytes.HasPrefix(l, []byte("@plane")) && (len(l) == 6 || l[6] == ' ' || l[6] == '\t')
}

func (p *parser) bodyLine(l []byte, start int64) error {
	if f := isFence(l); f != 0 {
		if p.inFence == 0 {
			p.inFence = f
		} else if f == p.inFence {
			p.inFence = 0
		}
	}
	s := &p.sec
	blank := isBlank(l)
	if !s.started {
		if blank {
			return nil
		}
		s.started = true
		s.span.Start = start
		s.firstLine = p.lr.line
		s.crcRun = crc32.Update(0, castagnoli, l)
	} else {
		s.crcRun = crc32.Update(s.crcRun, castagnoli, newline)
		s.crcRun = crc32.Update(s.crcRun, castagnoli, l)
	}
	p.desc.line(l)
	if blank {
		return nil
	}
	s.crcDone = s.crcRun
	s.span.End = start + int64(len(l))
	if bytes.Contains(l, linkOpen) {
		n := len(s.links)
		s.links = appendLinks(s.links, l, p.lr.line)
		if p.links += len(s.links) - n; p.links > p.limits.MaxLinks {
			return &LimitError{Limit: "number of [[z=…]] links", Flag: "--max-links", Max: int64(p.limits.MaxLinks)}
		}
	}
	return nil
}

var newline = []byte{'\n'}

// endSection stores the finished section's span, CRC, links and description.
func (p *parser) endSection() {
	s := &p.sec
	if s.plane < 0 {
		if s.started {
			p.cat.Preamble, p.cat.HasPreamble, p.cat.PreambleLine, p.cat.PreambleCRC = s.span, true, s.firstLine, s.crcDone
			p.preamble = *s
			p.preambleDesc = p.desc.description()
		}
		return
	}
	pl := p.plane(s.plane)
	if s.started {
		pl.Body, pl.BodyLine, pl.CRC = s.span, s.firstLine, s.crcDone
	} else {
		pl.Body = Span{Start: p.lr.off, End: p.lr.off}
	}
	for i := range s.links {
		s.links[i].SourceZ = pl.Z
	}
	pl.Links = s.links
	pl.Description = p.desc.description()
}

// finish applies the single-plane shorthand and resolves link targets.
func (p *parser) finish() {
	c := p.cat
	c.Size, c.Lines = p.lr.off, p.lr.line
	if !c.Partial { // a partial scan hashed whatever its buffer read ahead
		c.SHA256 = hex.EncodeToString(p.sum.Sum(nil))
	}
	if p.nplanes > 0 {
		c.Planes = make([]Plane, 0, p.nplanes)
		for _, ch := range p.chunks {
			c.Planes = append(c.Planes, ch...)
		}
		p.chunks = nil
	}
	if len(c.Planes) == 0 && c.HasPreamble {
		pre := p.preamble
		for i := range pre.links {
			pre.links[i].SourceZ = 0
		}
		c.Planes = append(c.Planes, Plane{
			ZText: "0", Implicit: true,
			Body: pre.span, BodyLine: pre.firstLine, CRC: pre.crcDone,
			Links: pre.links, Description: p.preambleDesc,
		})
		c.byZ.Add(0, false)
		c.HasPreamble, c.Preamble, c.PreambleLine, c.PreambleCRC = false, Span{}, 0, 0
	}
	for i := range c.Planes {
		for j := range c.Planes[i].Links {
			l := &c.Planes[i].Links[j]
			_, l.TargetExists = c.byZ.Find(l.TargetZ)
		}
	}
}

func (p *parser) errorf(name string, line int, format string, args ...any) error {
	e := &ParseError{File: p.file, Line: line, Name: name, Msg: fmt.Sprintf(format, args...)}
	switch {
	case line == 0:
	case line == p.lr.line:
		e.Offset = p.lr.start
	case line == p.openLine:
		e.Offset = p.openOff
	}
	return e
}

// wrap turns any error into a *ParseError with a position.
func (p *parser) wrap(err error) error {
	var pe *ParseError
	if errors.As(err, &pe) {
		return pe
	}
	var le *LimitError
	if errors.As(err, &le) {
		return &ParseError{File: p.file, Line: p.lr.line, Offset: p.lr.start, Name: LimitExceeded, Msg: le.Error(), Err: le}
	}
	return &ParseError{File: p.file, Line: p.lr.line, Offset: p.lr.start, Name: ReadFailed, Msg: "reading the input failed: " + err.Error(), Err: err}
}
