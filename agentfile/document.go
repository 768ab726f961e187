package agentfile

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// ErrChanged reports that bytes read back from a file no longer match what
// the scan saw: the file changed after it was scanned.
var ErrChanged = errors.New("the file changed since it was scanned")

// Normalize returns body bytes with every CRLF turned into LF (a lone CR
// stays). It reuses b's storage.
func Normalize(b []byte) []byte {
	if bytes.IndexByte(b, '\r') < 0 {
		return b
	}
	out := b[:0]
	for i := 0; i < len(b); i++ {
		if b[i] == '\r' && i+1 < len(b) && b[i+1] == '\n' {
			continue
		}
		out = append(out, b[i])
	}
	return out
}

// ReadSpan reads a body span from r, normalises it and checks it against
// the CRC the scan recorded. A short read or a CRC mismatch returns an
// error wrapping ErrChanged; a span with End before Start or a negative
// Start is an error too.
func ReadSpan(r io.ReaderAt, s Span, crc uint32) ([]byte, error) {
	if s.Start < 0 || s.End < s.Start {
		return nil, fmt.Errorf("span %d-%d is not a byte range of a file; spans come from Parse", s.Start, s.End)
	}
	if s.Len() == 0 {
		if crc != 0 {
			return nil, fmt.Errorf("empty span with a non-empty checksum: %w", ErrChanged)
		}
		return []byte{}, nil
	}
	buf := make([]byte, s.Len())
	n, err := r.ReadAt(buf, s.Start)
	if n < len(buf) {
		if err == nil || err == io.EOF {
			return nil, fmt.Errorf("bytes %d-%d are past the end of the file: %w", s.Start, s.End, ErrChanged)
		}
		return nil, err
	}
	buf = Normalize(buf)
	if got := crc32.Checksum(buf, castagnoli); got != crc {
		return nil, fmt.Errorf("bytes %d-%d have checksum %08x, the scan saw %08x: %w", s.Start, s.End, got, crc, ErrChanged)
	}
	return buf, nil
}

// Document is the whole-document view of a parse, bodies included, in the
// shape of the 3md conformance vectors.
type Document struct {
	Version  string            `json:"version"`
	Axis     string            `json:"axis"`
	Title    *string           `json:"title"`
	Metadata map[string]string `json:"metadata"`
	Preamble *string           `json:"preamble"`
	Planes   []DocPlane        `json:"planes"`
}

// DocPlane is one plane of a Document.
type DocPlane struct {
	Z          float64  `json:"z"`
	Label      *string  `json:"label"`
	X          *float64 `json:"x"`
	Y          *float64 `json:"y"`
	Attributes Attrs    `json:"attributes"`
	Body       string   `json:"body"`
}

// DocLink is one link in the conformance vectors' shape.
type DocLink struct {
	SourceZ      float64 `json:"sourceZ"`
	TargetZ      float64 `json:"targetZ"`
	Text         *string `json:"text"`
	TargetExists bool    `json:"targetExists"`
}

// Document reads every body back from r (the scanned file) and returns the
// conformance-vector view of the catalog.
func (c *Catalog) Document(r io.ReaderAt) (*Document, error) {
	d := &Document{Version: c.Version, Axis: c.Axis, Metadata: c.Metadata, Planes: []DocPlane{}}
	if c.HasTitle {
		t := c.Title
		d.Title = &t
	}
	if c.HasPreamble {
		b, err := ReadSpan(r, c.Preamble, c.PreambleCRC)
		if err != nil {
			return nil, fmt.Errorf("preamble (line %d): %w", c.PreambleLine, err)
		}
		s := string(b)
		d.Preamble = &s
	}
	for _, p := range c.Planes {
		b, err := ReadSpan(r, p.Body, p.CRC)
		if err != nil {
			return nil, fmt.Errorf("plane z=%s (line %d): %w", p.ZText, p.Line, err)
		}
		dp := DocPlane{Z: p.Z, Attributes: p.Attributes, Body: string(b)}
		if p.HasLabel {
			l := p.Label
			dp.Label = &l
		}
		if p.HasX {
			x := p.X
			dp.X = &x
		}
		if p.HasY {
			y := p.Y
			dp.Y = &y
		}
		d.Planes = append(d.Planes, dp)
	}
	return d, nil
}

// DocLinks returns the catalog's links in the conformance vectors' shape.
func (c *Catalog) DocLinks() []DocLink {
	links := c.AllLinks()
	out := make([]DocLink, 0, len(links))
	for _, l := range links {
		dl := DocLink{SourceZ: l.SourceZ, TargetZ: l.TargetZ, TargetExists: l.TargetExists}
		if l.HasText {
			t := l.Text
			dl.Text = &t
		}
		out = append(out, dl)
	}
	return out
}
