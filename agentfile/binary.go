package agentfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"sort"
	"unsafe"

	"github.com/agent3md/agent3md/internal/hashidx"
	"github.com/agent3md/agent3md/internal/listfile"
)

// catalogMagic starts every encoded catalog; the digit is the format
// version, bumped whenever Catalog's fields change or what a scan puts in
// them does (a cached catalog is never scanned again).
const catalogMagic = "agent3md-catalog-4\n"

// ErrBadCatalog is wrapped by every failure to decode an encoded catalog:
// the bytes are not one, are truncated, or fail their checksum.
var ErrBadCatalog = errors.New("not a valid encoded catalog")

// MarshalBinary encodes the catalog in a compact, versioned form that ends
// with a CRC-32C of everything before it. Loading it back with
// UnmarshalCatalog costs a fraction of re-scanning the file, which is what
// lets a server restart on a large agent skip the scan.
func (c *Catalog) MarshalBinary() ([]byte, error) {
	if c.Partial {
		return nil, errPartialEncode
	}
	e := encoder{b: make([]byte, 0, 1<<16)}
	c.encode(&e)
	e.b = binary.LittleEndian.AppendUint32(e.b, crc32.Checksum(e.b, castagnoli))
	return e.b, nil
}

var errPartialEncode = errors.New("agentfile: a partial catalog (Options.Planes) cannot be encoded; scan the whole file")

// encodeChunk is how many encoded bytes WriteBinary gathers before it
// writes them out.
const encodeChunk = 64 << 10

// WriteBinary writes to w what MarshalBinary returns, byte for byte,
// through a 64 KiB buffer instead of one slice as large as the encoding
// (32 MB at 100,000 skills, grown by doubling): a server that caches the
// catalog it has just scanned does so while it holds the catalog, so the
// slice and its discarded smaller copies raised its peak. It returns the
// first write error.
func (c *Catalog) WriteBinary(w io.Writer) error {
	if c.Partial {
		return errPartialEncode
	}
	e := encoder{b: make([]byte, 0, encodeChunk+1<<10), w: w}
	c.encode(&e)
	e.flush()
	if e.err != nil {
		return e.err
	}
	_, err := w.Write(binary.LittleEndian.AppendUint32(nil, e.crc))
	return err
}

// encode appends the catalog to e, checksum excepted.
func (c *Catalog) encode(e *encoder) {
	e.b = append(e.b, catalogMagic...)
	e.str(c.Version)
	e.str(c.Axis)
	e.str(c.Title)
	e.bool(c.HasTitle)
	e.uint(uint64(c.TitleLine))
	keys := make([]string, 0, len(c.Metadata))
	for k := range c.Metadata {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	e.uint(uint64(len(keys)))
	for _, k := range keys {
		e.str(k)
		e.str(c.Metadata[k])
		e.uint(uint64(c.MetadataLines[k]))
	}
	e.span(c.Preamble)
	e.bool(c.HasPreamble)
	e.uint(uint64(c.PreambleLine))
	e.uint(uint64(c.PreambleCRC))
	e.uint(uint64(c.Size))
	e.uint(uint64(c.Lines))
	e.str(c.SHA256)
	e.uint(uint64(len(c.Notices)))
	for _, n := range c.Notices {
		e.str(n.Kind)
		e.uint(uint64(n.Line))
		e.str(n.Key)
		e.str(n.Form)
		e.str(n.Fix)
	}
	e.uint(uint64(c.NoticesDropped))
	e.uint(uint64(len(c.Planes)))
	for i := range c.Planes {
		e.plane(&c.Planes[i])
		if e.w != nil && len(e.b) >= encodeChunk {
			e.flush()
		}
	}
}

// encoder appends to b; with w set, flush moves b's bytes to w, keeping
// their running CRC-32C.
type encoder struct {
	b   []byte
	w   io.Writer
	crc uint32
	err error
}

// flush writes b out to w and empties it; after a write error it only
// empties it.
func (e *encoder) flush() {
	if e.err == nil {
		e.crc = crc32.Update(e.crc, castagnoli, e.b)
		_, e.err = e.w.Write(e.b)
	}
	e.b = e.b[:0]
}

func (e *encoder) uint(v uint64)   { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) float(f float64) { e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(f)) }
func (e *encoder) span(s Span)     { e.uint(uint64(s.Start)); e.uint(uint64(s.End)) }
func (e *encoder) str(s string)    { e.uint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *encoder) bool(v bool)     { e.b = append(e.b, b2u(v)) }
func b2u(v bool) byte {
	if v {
		return 1
	}
	return 0
}

func (e *encoder) plane(p *Plane) {
	e.float(p.Z)
	e.str(p.ZText)
	e.str(p.Label)
	e.float(p.X)
	e.float(p.Y)
	e.b = append(e.b, b2u(p.HasLabel)|b2u(p.HasX)<<1|b2u(p.HasY)<<2|b2u(p.Implicit)<<3)
	e.uint(uint64(len(p.Attributes)))
	for _, kv := range p.Attributes {
		e.str(kv.Key)
		e.str(kv.Value)
	}
	e.uint(uint64(p.Line))
	e.span(p.Body)
	e.uint(uint64(p.BodyLine))
	e.uint(uint64(p.CRC))
	e.uint(uint64(len(p.Links)))
	for _, l := range p.Links {
		e.float(l.TargetZ)
		e.str(l.Target)
		e.str(l.Text)
		e.b = append(e.b, b2u(l.HasText)|b2u(l.TargetExists)<<1)
		e.uint(uint64(l.Line))
	}
	e.str(p.Description)
}

// UnmarshalCatalog decodes what MarshalBinary wrote. Any damage — wrong
// magic, truncation, a bad checksum, counts past the input — is an error
// wrapping ErrBadCatalog, never a panic or an outsized allocation.
func UnmarshalCatalog(b []byte) (*Catalog, error) {
	return unmarshalCatalog(b, false)
}

// UnmarshalCatalogOwned is UnmarshalCatalog for a buffer the caller hands
// over: its bytes back the decoded strings instead of a copy of them, so
// b must never be modified afterwards. A loader that reads the encoding
// from a file and drops the buffer saves a copy as large as the catalog
// (32 MB at 100,000 skills).
func UnmarshalCatalogOwned(b []byte) (*Catalog, error) {
	return unmarshalCatalog(b, true)
}

func unmarshalCatalog(b []byte, owned bool) (*Catalog, error) {
	if len(b) < len(catalogMagic)+4 || string(b[:len(catalogMagic)]) != catalogMagic {
		return nil, fmt.Errorf("%w: wrong header", ErrBadCatalog)
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrBadCatalog)
	}
	// One copy of the input backs every decoded string: a catalog holds
	// about ten strings per plane, and allocating each cost most of a warm
	// start (1.7 million allocations at 100,000 skills).
	in := body[len(catalogMagic):]
	d := listfile.NewReader(body, catalogMagic, ErrBadCatalog)
	if owned {
		d.ShareStrings(unsafe.String(unsafe.SliceData(in), len(in)))
	} else {
		d.ShareStrings(string(in))
	}
	c := &Catalog{Metadata: map[string]string{}, MetadataLines: map[string]int{}}
	c.Version, c.Axis, c.Title, c.HasTitle = d.String("version"), d.String("axis"), d.String("title"), d.Byte("title flag") != 0
	c.TitleLine = int(d.Uvarint())
	for n := d.Count(3, "metadata"); n > 0 && d.Err() == nil; n-- {
		k, v := d.String("metadata key"), d.String("metadata value")
		c.Metadata[k], c.MetadataLines[k] = v, int(d.Uvarint())
	}
	c.Preamble, c.HasPreamble = span(d), d.Byte("preamble flag") != 0
	c.PreambleLine, c.PreambleCRC = int(d.Uvarint()), uint32(d.Uvarint())
	c.Size, c.Lines, c.SHA256 = int64(d.Uvarint()), int(d.Uvarint()), d.String("digest")
	if n := d.Count(6, "notices"); n > 0 {
		c.Notices = make([]Notice, n)
		for i := range c.Notices {
			c.Notices[i] = Notice{Kind: d.String("notice"), Line: int(d.Uvarint()), Key: d.String("notice"), Form: d.String("notice"), Fix: d.String("notice")}
		}
	}
	c.NoticesDropped = int(d.Uvarint())
	n := d.Count(20, "planes")
	if n > 0 {
		c.Planes = make([]Plane, n)
	}
	c.byZ = *hashidx.New[float64](n)
	for i := 0; i < n && d.Err() == nil; i++ {
		decodePlane(d, &c.Planes[i])
		c.byZ.Add(c.Planes[i].Z, true)
	}
	if err := d.End("planes"); err != nil {
		return nil, err
	}
	for i := range c.Planes {
		for j := range c.Planes[i].Links {
			c.Planes[i].Links[j].SourceZ = c.Planes[i].Z
		}
	}
	return c, nil
}

func span(d *listfile.Reader) Span { return Span{Start: int64(d.Uvarint()), End: int64(d.Uvarint())} }

func decodePlane(d *listfile.Reader, p *Plane) {
	p.Z, p.ZText, p.Label = d.Float(), d.String("z"), d.String("label")
	p.X, p.Y = d.Float(), d.Float()
	f := d.Byte("plane flags")
	p.HasLabel, p.HasX, p.HasY, p.Implicit = f&1 != 0, f&2 != 0, f&4 != 0, f&8 != 0
	if n := d.Count(2, "attributes"); n > 0 {
		p.Attributes = make(Attrs, n)
		for i := range p.Attributes {
			p.Attributes[i] = Attr{Key: d.String("attribute key"), Value: d.String("attribute value")}
		}
	}
	p.Line = int(d.Uvarint())
	p.Body = span(d)
	p.BodyLine, p.CRC = int(d.Uvarint()), uint32(d.Uvarint())
	if n := d.Count(12, "links"); n > 0 {
		p.Links = make([]Link, n)
		for i := range p.Links {
			l := &p.Links[i]
			l.TargetZ, l.Target, l.Text = d.Float(), d.String("link target"), d.String("link text")
			fl := d.Byte("link flags")
			l.HasText, l.TargetExists = fl&1 != 0, fl&2 != 0
			l.Line = int(d.Uvarint())
		}
	}
	p.Description = d.String("description")
}
