package router

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
)

// bodyIndex is which skills' bodies hold each term (body.go): term t's
// skills, ascending, are df[t] varint differences in post[start[t]:
// start[t+1]] (a byte or two each, for millions of postings).
type bodyIndex struct {
	ids   map[string]uint32
	start []uint32
	df    []uint32
	post  []byte
	// Each skill's number of body terms and their mean, for BM25.
	length    []uint32
	avgLength float64
}

// bodyIndexBuilder gathers a body index skill by skill, in skill order.
type bodyIndexBuilder struct {
	ids    map[string]uint32
	lists  []bodyList
	length []uint32
}

// bodyList is one term's postings while they are gathered.
type bodyList struct {
	buf  []byte
	last uint32 // the last skill added
	n    uint32
}

func newBodyIndexBuilder(skills int) *bodyIndexBuilder {
	return &bodyIndexBuilder{ids: make(map[string]uint32, 1024), length: make([]uint32, skills)}
}

// id returns term's id, adding the term when it is new.
func (b *bodyIndexBuilder) id(term string) uint32 {
	id, ok := b.ids[term]
	if !ok {
		id = uint32(len(b.lists))
		b.ids[term] = id
		b.lists = append(b.lists, bodyList{})
	}
	return id
}

// add records skill's distinct body terms; skills come in order.
func (b *bodyIndexBuilder) add(skill int, terms []uint32) {
	b.length[skill] = uint32(len(terms))
	for _, id := range terms {
		l := &b.lists[id]
		gap := uint32(skill)
		if l.n > 0 {
			gap -= l.last
		}
		l.buf = binary.AppendUvarint(l.buf, uint64(gap))
		l.last, l.n = uint32(skill), l.n+1
	}
}

// finish flattens what was added into a bodyIndex.
func (b *bodyIndexBuilder) finish() *bodyIndex {
	x := &bodyIndex{ids: b.ids, start: make([]uint32, len(b.lists)+1), df: make([]uint32, len(b.lists)), length: b.length}
	total := 0
	for id, l := range b.lists {
		total += len(l.buf)
		x.start[id+1] = uint32(total)
		x.df[id] = l.n
	}
	x.post = make([]byte, 0, total)
	for id := range b.lists {
		x.post = append(x.post, b.lists[id].buf...)
		b.lists[id].buf = nil // each list can go as soon as it is copied
	}
	x.setAverage()
	return x
}

func (x *bodyIndex) setAverage() {
	var sum float64
	for _, l := range x.length {
		sum += float64(l)
	}
	if len(x.length) > 0 {
		x.avgLength = sum / float64(len(x.length))
	}
}

// The body index is saved in a cache entry beside the bleve index
// (bodies.bin, in codec.go's form), so a warm start reads it instead of
// every body; decodeBodyIndex checks every bound and every posting.
const (
	bodiesName  = "bodies.bin"
	bodiesMagic = "A3BD"
)

var errBadBodies = errors.New("body index file is damaged")

// writeBodyIndex saves x to path.
func writeBodyIndex(path string, x *bodyIndex) error {
	buf := appendTerms([]byte(bodiesMagic), x.ids)
	for _, l := range [][]uint32{x.start, x.df, x.length} {
		buf = appendInts(buf, l)
	}
	buf = binary.AppendUvarint(buf, uint64(len(x.post)))
	return os.WriteFile(path, append(buf, x.post...), 0o644)
}

// readBodyIndex reads the body index of skills skills from path.
func readBodyIndex(path string, skills int) (*bodyIndex, error) {
	data, err := readListFile(path, errBadBodies)
	if err != nil {
		return nil, err
	}
	return decodeBodyIndex(data, skills)
}

// decodeBodyIndex decodes a body index of skills skills, checking that
// every term's postings are df of them, ascending, each a skill.
func decodeBodyIndex(data []byte, skills int) (*bodyIndex, error) {
	d := newListReader(data, bodiesMagic, errBadBodies)
	ids := d.terms()
	x := &bodyIndex{ids: ids, start: d.ints("offsets"), df: d.ints("counts"), length: d.ints("lengths"), post: d.bytes("posting bytes")}
	if err := d.end("postings"); err != nil {
		return nil, err
	}
	if len(x.start) != len(ids)+1 || len(x.df) != len(ids) || x.start[0] != 0 || int(x.start[len(ids)]) != len(x.post) || len(x.length) != skills {
		return nil, fmt.Errorf("%w: lists of %d terms, %d posting bytes, %d skills do not fit together", errBadBodies, len(ids), len(x.post), len(x.length))
	}
	for t := range ids {
		if err := x.checkPostings(x.ids[t], skills); err != nil {
			return nil, err
		}
	}
	x.setAverage()
	return x, nil
}

// checkPostings checks term id's postings: in range, df[id] of them,
// ascending, each a skill.
func (x *bodyIndex) checkPostings(id uint32, skills int) error {
	lo, hi := x.start[id], x.start[id+1]
	if lo > hi || int(hi) > len(x.post) {
		return fmt.Errorf("%w: term offsets out of order", errBadBodies)
	}
	b := x.post[lo:hi]
	var skill uint64
	k := uint32(0)
	for ; len(b) > 0; k++ {
		gap, n := binary.Uvarint(b)
		if n <= 0 || k > 0 && gap == 0 {
			return fmt.Errorf("%w: a posting is not a varint, or repeats a skill", errBadBodies)
		}
		b = b[n:]
		if k == 0 {
			skill = gap
		} else {
			skill += gap
		}
		if skill >= uint64(skills) {
			return fmt.Errorf("%w: a posting of skill %d, of %d", errBadBodies, skill, skills)
		}
	}
	if k != x.df[id] {
		return fmt.Errorf("%w: %d postings where the count says %d", errBadBodies, k, x.df[id])
	}
	return nil
}
