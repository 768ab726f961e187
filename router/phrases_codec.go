package router

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
)

// The phrase index is saved beside a cached bleve index so a warm start
// reads it instead of tokenising and stemming every trigger again. The file
// is covered by the entry's manifest checksums; decodePhrases still checks
// every bound, so even a file that slipped past them cannot make routing
// index out of range.
const (
	phrasesName  = "phrases.bin"
	phrasesMagic = "A3PH"
	// maxPhraseItems bounds any one decoded list, so a damaged length
	// cannot make the decoder allocate without limit.
	maxPhraseItems = 1 << 28
)

var errBadPhrases = errors.New("phrase index file is damaged")

// writePhrases saves x to path.
func writePhrases(path string, x *phraseIndex) error {
	return writeLists(path, phrasesMagic, func(lw *listWriter) {
		lw.ints(x.skillOf)
		lw.ints(x.ordOf)
		lw.ints(x.exactSet)
		for _, v := range []*vocabLists{&x.exact, &x.stems} {
			lw.terms(v.ids)
			for _, l := range [][]uint32{v.start, v.toks, v.ownS, v.own, v.anchorS, v.anchor} {
				lw.ints(l)
			}
		}
	})
}

// writeLists writes a saved index's file at path: magic, then what
// write puts there through a listWriter, each list its length (eight
// bytes, little-endian) and its items, the form phraseReader reads.
func writeLists(path, magic string, write func(lw *listWriter)) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	lw := &listWriter{w: bufio.NewWriterSize(f, 1<<16), buf: make([]byte, 0, 4096)}
	lw.w.WriteString(magic)
	write(lw)
	if err := lw.w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// listWriter writes the lists of a saved index (writeLists); the
// writer's errors surface at its Flush.
type listWriter struct {
	w   *bufio.Writer
	buf []byte
}

// count writes a list's length.
func (lw *listWriter) count(n int) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(n))
	lw.w.Write(b[:])
}

// ints writes a list of 32-bit integers.
func (lw *listWriter) ints(v []uint32) {
	lw.count(len(v))
	buf := lw.buf[:0]
	for _, n := range v {
		buf = binary.LittleEndian.AppendUint32(buf, n)
		if len(buf) == cap(buf) {
			lw.w.Write(buf)
			buf = buf[:0]
		}
	}
	lw.w.Write(buf)
}

// terms writes a vocabulary, each term by its id, as phraseReader.terms
// reads it back.
func (lw *listWriter) terms(ids map[string]uint32) {
	terms := make([]string, len(ids))
	for t, id := range ids {
		terms[id] = t
	}
	lw.count(len(terms))
	for _, t := range terms {
		lw.count(len(t))
		lw.w.WriteString(t)
	}
}

// bytes writes a list of bytes.
func (lw *listWriter) bytes(b []byte) {
	lw.count(len(b))
	lw.w.Write(b)
}

// phraseReader decodes the file's lists, remembering the first error.
type phraseReader struct {
	r   *bufio.Reader
	err error
	// left, when positive, is how many bytes the file has left: a list
	// whose items cannot fit in them is damage, found before anything
	// is allocated for it. Zero means unknown.
	left int64
}

// count reads a list's length, whose items take at least unit bytes each.
func (p *phraseReader) count(unit int64) int {
	var b [8]byte
	if p.err != nil {
		return 0
	}
	if _, err := io.ReadFull(p.r, b[:]); err != nil {
		p.err = err
		return 0
	}
	n := binary.LittleEndian.Uint64(b[:])
	if p.left > 0 {
		p.left -= 8
		if p.left <= 0 && n > 0 || p.left > 0 && n > uint64(p.left)/uint64(unit) {
			p.err = fmt.Errorf("%w: list of %d items in the %d bytes left", errBadPhrases, n, max(p.left, 0))
			return 0
		}
	}
	if n > maxPhraseItems {
		p.err = fmt.Errorf("%w: list of %d items", errBadPhrases, n)
		return 0
	}
	return int(n)
}

// spent counts n bytes read off left.
func (p *phraseReader) spent(n int) {
	if p.left > 0 {
		p.left = max(p.left-int64(n), 1)
	}
}

func (p *phraseReader) ints() []uint32 {
	n := p.count(4)
	if p.err != nil {
		return nil
	}
	buf := make([]byte, 4*n)
	if _, err := io.ReadFull(p.r, buf); err != nil {
		p.err = err
		return nil
	}
	p.spent(len(buf))
	out := make([]uint32, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(buf[4*i:])
	}
	return out
}

func (p *phraseReader) terms() map[string]uint32 {
	n := p.count(8) // each term has its length before it
	ids := make(map[string]uint32, n)
	for i := 0; i < n && p.err == nil; i++ {
		l := p.count(1)
		if p.err != nil {
			break
		}
		b := make([]byte, l)
		if _, err := io.ReadFull(p.r, b); err != nil {
			p.err = err
			break
		}
		p.spent(l)
		ids[string(b)] = uint32(i)
	}
	if p.err == nil && len(ids) != n {
		p.err = fmt.Errorf("%w: repeated vocabulary term", errBadPhrases)
	}
	return ids
}

// readPhrases loads the phrase index saved for skills.
func readPhrases(path string, skills Source) (*phraseIndex, error) {
	x, err := decodePhrases(path)
	if err != nil {
		return nil, err
	}
	if err := x.check(skills); err != nil {
		return nil, err
	}
	return x, nil
}

// decodePhrases loads a saved phrase index without checking it against
// any skills: nothing may route with it before check.
func decodePhrases(path string) (*phraseIndex, error) {
	var x *phraseIndex
	err := readLists(path, func(r io.Reader, size int64) error {
		p := &phraseReader{r: bufio.NewReader(r), left: max(size-int64(len(phrasesMagic)), 1)}
		magic := make([]byte, len(phrasesMagic))
		if _, err := io.ReadFull(p.r, magic); err != nil || string(magic) != phrasesMagic {
			return fmt.Errorf("%w: bad magic", errBadPhrases)
		}
		x = &phraseIndex{skillOf: p.ints(), ordOf: p.ints(), exactSet: p.ints()}
		for _, v := range []*vocabLists{&x.exact, &x.stems} {
			v.ids = p.terms()
			v.start, v.toks, v.ownS, v.own, v.anchorS, v.anchor = p.ints(), p.ints(), p.ints(), p.ints(), p.ints(), p.ints()
		}
		if p.err != nil {
			return fmt.Errorf("%w: %v", errBadPhrases, p.err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return x, nil
}

// readLists opens a saved index's file at path and calls decode with it
// and its size.
func readLists(path string, decode func(r io.Reader, size int64) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	return decode(bufio.NewReaderSize(f, 1<<16), fi.Size())
}

// check verifies every index the router will follow is in bounds.
func (x *phraseIndex) check(skills Source) error {
	n := len(x.skillOf)
	if len(x.ordOf) != n || len(x.exactSet) != n || uint64(n) > math.MaxUint32 {
		return fmt.Errorf("%w: phrase lists differ in length", errBadPhrases)
	}
	for p := range n {
		s := x.skillOf[p]
		if int(s) >= skills.Len() {
			return fmt.Errorf("%w: phrase %d points past the skills", errBadPhrases, p)
		}
		if _, _, t := skills.Phrases(int(s)); int(x.ordOf[p]) >= len(t) {
			return fmt.Errorf("%w: phrase %d points past the skills", errBadPhrases, p)
		}
	}
	if err := x.exact.check(n); err != nil {
		return err
	}
	if err := x.stems.check(n); err != nil {
		return err
	}
	for _, u := range x.exactSet {
		if int(u) >= x.exact.sets() {
			return fmt.Errorf("%w: phrase set out of range", errBadPhrases)
		}
	}
	return nil
}

func (v *vocabLists) check(phrases int) error {
	sets := len(v.start) - 1
	ok := sets >= 0 && csrOK(v.start, len(v.toks)) && csrOK(v.ownS, len(v.own)) &&
		len(v.ownS) == sets+1 && csrOK(v.anchorS, len(v.anchor)) && len(v.anchorS) == len(v.ids)+1 &&
		allBelow(v.toks, len(v.ids)) && allBelow(v.own, phrases) && allBelow(v.anchor, sets)
	if !ok {
		return fmt.Errorf("%w: inconsistent vocabulary lists", errBadPhrases)
	}
	return nil
}

// csrOK reports whether start is a valid CSR offset list over n items.
func csrOK(start []uint32, n int) bool {
	return len(start) > 0 && start[0] == 0 && int(start[len(start)-1]) == n && slices.IsSorted(start)
}

func allBelow(v []uint32, n int) bool {
	for _, x := range v {
		if int(x) >= n {
			return false
		}
	}
	return true
}
