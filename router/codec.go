package router

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
)

// A cache entry's own files (stats.bin, phrases.bin, bodies.bin) share
// one form: a four-byte magic, then integers as LEB128 varints, floats as
// eight little-endian bytes, a list as its length and items. listReader
// checks every length against the bytes left before it allocates, so no
// file can make a decoder allocate more than its own size allows.

// maxListFile bounds a file read into memory: far past any agent's
// (stats.bin is 3.4 MB at 100,000 skills), and few enough items for
// uint32 offsets.
const maxListFile = 1 << 30

// appendInts appends a list of integers.
func appendInts(buf []byte, v []uint32) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(v)))
	for _, n := range v {
		buf = binary.AppendUvarint(buf, uint64(n))
	}
	return buf
}

// appendTerms appends a vocabulary in term id order: the number of terms,
// their lengths, then their bytes back to back.
func appendTerms(buf []byte, ids map[string]uint32) []byte {
	terms := make([]string, len(ids))
	for t, id := range ids {
		terms[id] = t
	}
	buf = binary.AppendUvarint(buf, uint64(len(terms)))
	for _, t := range terms {
		buf = binary.AppendUvarint(buf, uint64(len(t)))
	}
	for _, t := range terms {
		buf = append(buf, t...)
	}
	return buf
}

// readListFile reads the file at path whole; bad is its damage error.
func readListFile(path string, bad error) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxListFile {
		return nil, fmt.Errorf("%w: %s is %d bytes, over %d", bad, path, fi.Size(), maxListFile)
	}
	data := make([]byte, fi.Size())
	if _, err := f.ReadAt(data, 0); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return data, nil
}

// listReader decodes a file held in memory, remembering the first error.
type listReader struct {
	data []byte
	bad  error
	err  error
}

// newListReader reads data after magic (an error when it is not there).
func newListReader(data []byte, magic string, bad error) *listReader {
	d := &listReader{bad: bad}
	if len(data) < len(magic) || string(data[:len(magic)]) != magic {
		d.fail("bad magic")
	} else {
		d.data = data[len(magic):]
	}
	return d
}

func (d *listReader) fail(format string, a ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: "+format, append([]any{d.bad}, a...)...)
	}
}

// end is the first error, or one when bytes are left after the lists.
func (d *listReader) end(after string) error {
	if d.err == nil && len(d.data) > 0 {
		d.fail("%d bytes after the %s", len(d.data), after)
	}
	return d.err
}

func (d *listReader) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.data)
	if n <= 0 {
		d.fail("a number is cut off or overlong")
		return 0
	}
	d.data = d.data[n:]
	return v
}

// count reads a list's length, whose items take at least unit bytes
// each: a length the bytes left cannot hold is damage, found before
// anything is allocated for it.
func (d *listReader) count(unit int, what string) int {
	n := d.uvarint()
	if d.err == nil && n > uint64(len(d.data)/unit) {
		d.fail("%d %s in the %d bytes left", n, what, len(d.data))
		return 0
	}
	return int(n)
}

func (d *listReader) float() float64 {
	if d.err == nil && len(d.data) < 8 {
		d.fail("a number is cut off")
	}
	if d.err != nil {
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.data))
	d.data = d.data[8:]
	return v
}

// ints reads a list of 32-bit integers.
func (d *listReader) ints(what string) []uint32 {
	out := make([]uint32, d.count(1, what))
	for i := range out {
		v := d.uvarint()
		if v > math.MaxUint32 {
			d.fail("%s item %d is %d", what, i, v)
		}
		out[i] = uint32(v)
	}
	return out
}

// bytes reads a list of bytes, which shares the file's memory.
func (d *listReader) bytes(what string) []byte {
	n := d.count(1, what)
	b := d.data[:n:n]
	d.data = d.data[n:]
	return b
}

// terms reads a vocabulary (appendTerms) into term ids.
func (d *listReader) terms() map[string]uint32 {
	nt := d.count(1, "terms")
	lengths := make([]int, nt)
	total := 0
	for t := range lengths {
		lengths[t] = d.count(1, "term bytes")
		total += lengths[t]
		if d.err == nil && total > len(d.data) {
			d.fail("terms of %d bytes in the %d left", total, len(d.data))
		}
		if d.err != nil {
			return nil
		}
	}
	blob := string(d.data[:total])
	d.data = d.data[total:]
	ids := make(map[string]uint32, nt)
	at := 0
	for t, l := range lengths {
		ids[blob[at:at+l]] = uint32(t)
		at += l
	}
	if len(ids) != nt {
		d.fail("a term is listed twice")
	}
	return ids
}
