package listfile

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
)

// MaxFile bounds a file read into memory: far past any agent's (stats.bin
// is 3.4 MB at 100,000 skills), and few enough items for uint32 offsets.
const MaxFile = 1 << 30

// AppendInts appends a list of integers.
func AppendInts(buf []byte, v []uint32) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(v)))
	for _, n := range v {
		buf = binary.AppendUvarint(buf, uint64(n))
	}
	return buf
}

// AppendFloat appends a float.
func AppendFloat(buf []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
}

// AppendTerms appends a vocabulary (term -> id, ids 0 to len-1) in id
// order: the number of terms, their lengths, then their bytes.
func AppendTerms(buf []byte, ids map[string]uint32) []byte {
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

// Read reads the file at path whole; bad is its damage error, which one
// larger than MaxFile wraps.
func Read(path string, bad error) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > MaxFile {
		return nil, fmt.Errorf("%w: %s is %d bytes, over %d", bad, path, fi.Size(), MaxFile)
	}
	data := make([]byte, fi.Size())
	if _, err := f.ReadAt(data, 0); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return data, nil
}

// Reader decodes a file held in memory, remembering the first error;
// after one, every read gives a zero value.
type Reader struct {
	data []byte
	// whole, when set (ShareStrings), is the input as one string whose
	// end is data's end: String cuts its strings from it.
	whole string
	bad   error
	err   error
}

// ShareStrings makes String cut its strings from s, the whole input the
// Reader was made with as a string (a copy, or the same memory when the
// caller owns it), instead of allocating each: one copy backs them all.
func (d *Reader) ShareStrings(s string) { d.whole = s }

// NewReader reads data after magic (an error when it is not there); its
// errors wrap bad.
func NewReader(data []byte, magic string, bad error) *Reader {
	d := &Reader{bad: bad}
	if len(data) < len(magic) || string(data[:len(magic)]) != magic {
		d.Fail("bad magic")
	} else {
		d.data = data[len(magic):]
	}
	return d
}

// Fail records the error bad: format, unless one is recorded already.
func (d *Reader) Fail(format string, a ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: "+format, append([]any{d.bad}, a...)...)
	}
}

// Err is the first error.
func (d *Reader) Err() error { return d.err }

// Left is how many bytes are still to read.
func (d *Reader) Left() int { return len(d.data) }

// End is the first error, or one when bytes are left after the lists.
func (d *Reader) End(after string) error {
	if d.err == nil && len(d.data) > 0 {
		d.Fail("%d bytes after the %s", len(d.data), after)
	}
	return d.err
}

// Uvarint reads an integer.
func (d *Reader) Uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.data)
	if n <= 0 {
		d.Fail("a number is cut off or overlong")
		return 0
	}
	d.data = d.data[n:]
	return v
}

// Count reads a list's length, whose items take at least unit bytes
// each: a length the bytes left cannot hold is damage, found before
// anything is allocated for it.
func (d *Reader) Count(unit int, what string) int {
	n := d.Uvarint()
	if d.err == nil && n > uint64(len(d.data)/unit) {
		d.Fail("%d %s in the %d bytes left", n, what, len(d.data))
		return 0
	}
	return int(n)
}

// Float reads a float.
func (d *Reader) Float() float64 {
	if d.err == nil && len(d.data) < 8 {
		d.Fail("a number is cut off")
	}
	if d.err != nil {
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.data))
	d.data = d.data[8:]
	return v
}

// Byte reads one byte.
func (d *Reader) Byte(what string) byte {
	if d.err == nil && len(d.data) == 0 {
		d.Fail("%s cut off", what)
	}
	if d.err != nil {
		return 0
	}
	v := d.data[0]
	d.data = d.data[1:]
	return v
}

// String reads a string (a list of bytes), from the shared input when
// ShareStrings was called.
func (d *Reader) String(what string) string {
	n := d.Count(1, what)
	if d.err != nil {
		return ""
	}
	if d.whole == "" {
		s := string(d.data[:n])
		d.data = d.data[n:]
		return s
	}
	off := len(d.whole) - len(d.data)
	d.data = d.data[n:]
	return d.whole[off : off+n]
}

// Ints reads a list of 32-bit integers.
func (d *Reader) Ints(what string) []uint32 {
	out := make([]uint32, d.Count(1, what))
	for i := range out {
		v := d.Uvarint()
		if v > math.MaxUint32 {
			d.Fail("%s item %d is %d", what, i, v)
		}
		out[i] = uint32(v)
	}
	return out
}

// Bytes reads a list of bytes, which shares the file's memory.
func (d *Reader) Bytes(what string) []byte {
	n := d.Count(1, what)
	b := d.data[:n:n]
	d.data = d.data[n:]
	return b
}

// Terms reads a vocabulary (AppendTerms) into term ids; a term listed
// twice is damage.
func (d *Reader) Terms() map[string]uint32 {
	nt := d.Count(1, "terms")
	lengths := make([]int, nt)
	total := 0
	for t := range lengths {
		lengths[t] = d.Count(1, "term bytes")
		total += lengths[t]
		if d.err == nil && total > len(d.data) {
			d.Fail("terms of %d bytes in the %d left", total, len(d.data))
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
		d.Fail("a term is listed twice")
	}
	return ids
}
