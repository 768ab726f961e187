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
	d := decoder{b: in}
	if owned {
		d.s = unsafe.String(unsafe.SliceData(in), len(in))
	} else {
		d.s = string(in)
	}
	c := &Catalog{Metadata: map[string]string{}, MetadataLines: map[string]int{}}
	c.Version, c.Axis, c.Title, c.HasTitle = d.str(), d.str(), d.str(), d.bool()
	c.TitleLine = int(d.uint())
	for n := d.count(3); n > 0 && d.err == nil; n-- {
		k, v := d.str(), d.str()
		c.Metadata[k], c.MetadataLines[k] = v, int(d.uint())
	}
	c.Preamble, c.HasPreamble = d.span(), d.bool()
	c.PreambleLine, c.PreambleCRC = int(d.uint()), uint32(d.uint())
	c.Size, c.Lines, c.SHA256 = int64(d.uint()), int(d.uint()), d.str()
	if n := d.count(6); n > 0 {
		c.Notices = make([]Notice, n)
		for i := range c.Notices {
			c.Notices[i] = Notice{Kind: d.str(), Line: int(d.uint()), Key: d.str(), Form: d.str(), Fix: d.str()}
		}
	}
	c.NoticesDropped = int(d.uint())
	n := d.count(20)
	if n > 0 {
		c.Planes = make([]Plane, n)
	}
	c.byZ = *hashidx.New[float64](n)
	for i := 0; i < n && d.err == nil; i++ {
		d.plane(&c.Planes[i])
		c.byZ.Add(c.Planes[i].Z, true)
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = errors.New("trailing bytes")
	}
	if d.err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadCatalog, d.err)
	}
	for i := range c.Planes {
		for j := range c.Planes[i].Links {
			c.Planes[i].Links[j].SourceZ = c.Planes[i].Z
		}
	}
	return c, nil
}

type decoder struct {
	b   []byte // what is left to decode
	s   string // the whole input, as a string: strings are cut from it
	err error
}

func (d *decoder) fail(msg string) {
	if d.err == nil {
		d.err = errors.New(msg)
	}
	d.b = nil
}

func (d *decoder) uint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("truncated number")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a length and refuses one that the remaining bytes cannot
// hold (each element takes at least min bytes), so damage cannot make the
// decoder allocate more than the input justifies.
func (d *decoder) count(min int) int {
	n := d.uint()
	if n > uint64(len(d.b)/min) {
		d.fail("count past the end of the input")
		return 0
	}
	return int(n)
}

func (d *decoder) str() string {
	n := d.uint()
	if n > uint64(len(d.b)) {
		d.fail("string past the end of the input")
		return ""
	}
	off := len(d.s) - len(d.b)
	d.b = d.b[n:]
	return d.s[off : off+int(n)]
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.fail("truncated flags")
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *decoder) bool() bool { return d.byte() != 0 }

func (d *decoder) float() float64 {
	if len(d.b) < 8 {
		d.fail("truncated float")
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
	d.b = d.b[8:]
	return v
}

func (d *decoder) span() Span { return Span{Start: int64(d.uint()), End: int64(d.uint())} }

func (d *decoder) plane(p *Plane) {
	p.Z, p.ZText, p.Label = d.float(), d.str(), d.str()
	p.X, p.Y = d.float(), d.float()
	f := d.byte()
	p.HasLabel, p.HasX, p.HasY, p.Implicit = f&1 != 0, f&2 != 0, f&4 != 0, f&8 != 0
	if n := d.count(2); n > 0 {
		p.Attributes = make(Attrs, n)
		for i := range p.Attributes {
			p.Attributes[i] = Attr{Key: d.str(), Value: d.str()}
		}
	}
	p.Line = int(d.uint())
	p.Body = d.span()
	p.BodyLine, p.CRC = int(d.uint()), uint32(d.uint())
	if n := d.count(12); n > 0 {
		p.Links = make([]Link, n)
		for i := range p.Links {
			l := &p.Links[i]
			l.TargetZ, l.Target, l.Text = d.float(), d.str(), d.str()
			fl := d.byte()
			l.HasText, l.TargetExists = fl&1 != 0, fl&2 != 0
			l.Line = int(d.uint())
		}
	}
	p.Description = d.str()
}
