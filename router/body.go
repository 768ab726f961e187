package router

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/agent3md/agent3md/internal/listfile"
	"hash/crc32"
	"os"
	"unicode/utf8"

	"github.com/agent3md/agent3md/internal/textclip"
	"github.com/blevesearch/bleve/v2/mapping"
)

// A skill's body says what it is for in many more words than its triggers
// ("显示已签收可我根本没拿到" meets the right skill only in its body). While
// the index is built, every body is read once through the text analyzer
// and its distinct terms (at most Options.BodyTerms) go into the body
// index (bodyIndex), a low-weight signal of the relaxed tier: in the
// bleve field, body terms (other skills' names, everyday words) made
// relevance noisier.

// Bodies is implemented by a Source whose skills have bodies. Without
// it, the index holds no body words.
type Bodies interface {
	// EachBody calls fn with every skill's body in skill order, stopping
	// at (and returning) fn's first error; body is valid only during the
	// call. It runs while an index is built, never while routing.
	EachBody(ctx context.Context, fn func(i int, body []byte) error) error
	// BodySum is a checksum of skill i's body, cheap without reading it
	// (the agent file's CRC-32C): a cache entry's fingerprint holds it.
	BodySum(i int) uint32
}

// EachBody calls fn with each skill's Body field.
func (s Skills) EachBody(ctx context.Context, fn func(i int, body []byte) error) error {
	for i := range s {
		if i%progressEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if err := fn(i, []byte(s[i].Body)); err != nil {
			return err
		}
	}
	return nil
}

// BodySum is the CRC-32C of skill i's Body field.
func (s Skills) BodySum(i int) uint32 { return crc32.Checksum([]byte(s[i].Body), castagnoli) }

const (
	// DefaultBodyTerms is the most distinct terms of one body the index
	// keeps: a skill's procedure and examples, not every word of a body
	// of reference tables.
	DefaultBodyTerms = 160
	// bodyScanBytes is how much of a body is read: enough for
	// DefaultBodyTerms terms in any body seen, and a bound on its work.
	bodyScanBytes = 32 << 10
)

// bodyReader turns bodies into the ids of their distinct terms in a body
// index being built, on one goroutine, reusing its buffers.
type bodyReader struct {
	src    Bodies // nil: no bodies
	skills Source
	seg    *segmenter // cuts unspaced runs at the agent's words; made when first needed
	an     *analyzers
	max    int
	x      *bodyIndexBuilder
	// words remembers each lowercased ASCII word's term id (stopTerm for
	// a stop word): bodies repeat a vocabulary, and a stem costs far more
	// than a lookup.
	words map[string]int32
	word  []byte
	text  []byte   // a body cut at the agent's words
	seen  []uint32 // seen[id] == mark: a term of the body being read
	mark  uint32
	out   []uint32
}

const stopTerm = -1

// newBodyReader reads the bodies of skills into x when it has them and
// max is positive; otherwise it reads none.
func newBodyReader(skills Source, an *analyzers, max int, x *bodyIndexBuilder) *bodyReader {
	br := &bodyReader{skills: skills, an: an, max: max, x: x, words: map[string]int32{}}
	if b, ok := skills.(Bodies); ok && max > 0 {
		br.src = b
	}
	return br
}

// terms returns the ids of body's distinct terms in first-use order, at
// most br.max, valid until the next call.
func (br *bodyReader) terms(body []byte) []uint32 {
	if len(body) > bodyScanBytes {
		body = body[:textclip.Cut(body, bodyScanBytes)]
	}
	br.out = br.out[:0]
	br.mark++
	if br.mark == 0 { // wrapped: no id may look seen
		clear(br.seen)
		br.mark = 1
	}
	if !br.ascii(body) {
		for _, tok := range br.an.text.Analyze(br.cut(body)) {
			if !br.add(br.x.id(string(tok.Term))) {
				break
			}
		}
	}
	return br.out
}

// cut returns body with its unspaced runs cut at the agent's words, as a
// request is cut, so no pair spans an agent word's edge ("款原" of
// "退款原路返回").
func (br *bodyReader) cut(body []byte) []byte {
	if br.seg == nil {
		br.seg = buildSegmenter(br.skills)
	}
	if br.seg.Empty() {
		return body
	}
	br.text = br.seg.Spaced(br.text[:0], string(body))
	return br.text
}

// ascii reads an ASCII body (false, having read nothing, for any other)
// as the text analyzer would (see requestTerms), a lookup in words a word.
func (br *bodyReader) ascii(body []byte) bool {
	for _, c := range body {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	w := br.word[:0]
	flush := func() bool {
		if len(w) == 0 {
			return true
		}
		id, ok := br.words[string(w)]
		if !ok {
			tok := string(w)
			id = stopTerm
			if !stopWords[tok] {
				id = int32(br.x.id(stem(tok)))
			}
			if len(br.words) < stemCacheMax {
				br.words[tok] = id
			}
		}
		w = w[:0]
		return id == stopTerm || br.add(uint32(id))
	}
	for _, c := range body {
		switch {
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
			w = append(w, c)
		case 'A' <= c && c <= 'Z':
			w = append(w, c+'a'-'A')
		default:
			if !flush() {
				br.word = w
				return true
			}
		}
	}
	flush()
	br.word = w
	return true
}

// add adds term id to the body's terms once; false when they are full.
func (br *bodyReader) add(id uint32) bool {
	for int(id) >= len(br.seen) {
		br.seen = append(br.seen, 0)
	}
	if br.seen[id] != br.mark {
		br.seen[id] = br.mark
		br.out = append(br.out, id)
	}
	return len(br.out) < br.max
}

// corpus is what an index is built from.
type corpus struct {
	m         mapping.IndexMapping
	skills    Source
	bodyTerms int        // 0: bodies are not read
	stats     *termStats // a background router's: saved in a new entry as they are
}

// bodies is c's skills' bodies, or nil when an index of c holds no body
// terms (they have none, or bodyTerms is 0).
func (c *corpus) bodies() Bodies {
	if b, ok := c.skills.(Bodies); ok && c.bodyTerms > 0 {
		return b
	}
	return nil
}

func (r *Router) corpus() *corpus {
	return &corpus{m: r.mapping, skills: r.src, bodyTerms: max(r.opts.BodyTerms, 0), stats: r.scorer}
}

// docMaker makes the skills' index documents one at a time on one
// goroutine, adding their bodies' terms to a body index.
type docMaker struct {
	skills Source
	body   *bodyReader
	bodies *bodyIndexBuilder // nil when no body is read
}

// maker returns a docMaker over c, which builds the body index.
func (c *corpus) maker() (*docMaker, error) {
	an, err := newAnalyzers(c.m)
	if err != nil {
		return nil, err
	}
	x := newBodyIndexBuilder(c.skills.Len())
	d := &docMaker{skills: c.skills, body: newBodyReader(c.skills, an, c.bodyTerms, x)}
	if d.body.src != nil {
		d.bodies = x
	}
	return d, nil
}

// each calls fn with every skill's document in skill order, its body's
// terms added to the body index first.
func (d *docMaker) each(ctx context.Context, fn func(i int, s *Skill, doc map[string]interface{}) error) error {
	if d.bodies == nil {
		for i := 0; i < d.skills.Len(); i++ {
			s := d.skills.Skill(i)
			if err := fn(i, &s, document(&s)); err != nil {
				return err
			}
		}
		return nil
	}
	next := 0
	err := d.body.src.EachBody(ctx, func(i int, body []byte) error {
		if i != next {
			return fmt.Errorf("router: the skills' bodies came out of order: skill %d where %d was next", i, next)
		}
		next++
		d.bodies.add(i, d.body.terms(body))
		s := d.skills.Skill(i)
		return fn(i, &s, document(&s))
	})
	if err == nil && next != d.skills.Len() {
		err = fmt.Errorf("router: read %d skills' bodies of %d", next, d.skills.Len())
	}
	return err
}

// bodyIndex is the body index so far (nil when no body is read).
func (d *docMaker) bodyIndex() *bodyIndex {
	if d.bodies == nil {
		return nil
	}
	return d.bodies.finish()
}

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
// (bodies.bin, in internal/listfile's form), so a warm start reads it instead of
// every body; decodeBodyIndex checks every bound and every posting.
const (
	bodiesName  = "bodies.bin"
	bodiesMagic = "A3BD"
)

var errBadBodies = errors.New("body index file is damaged")

func writeBodyIndex(path string, x *bodyIndex) error {
	buf := listfile.AppendTerms([]byte(bodiesMagic), x.ids)
	for _, l := range [][]uint32{x.start, x.df, x.length} {
		buf = listfile.AppendInts(buf, l)
	}
	buf = binary.AppendUvarint(buf, uint64(len(x.post)))
	return os.WriteFile(path, append(buf, x.post...), 0o644)
}

func readBodyIndex(path string, skills int) (*bodyIndex, error) {
	data, err := listfile.Read(path, errBadBodies)
	if err != nil {
		return nil, err
	}
	return decodeBodyIndex(data, skills)
}

// decodeBodyIndex decodes a body index of skills skills, checking that
// every term's postings are df of them, ascending, each a skill.
func decodeBodyIndex(data []byte, skills int) (*bodyIndex, error) {
	d := listfile.NewReader(data, bodiesMagic, errBadBodies)
	ids := d.Terms()
	x := &bodyIndex{ids: ids, start: d.Ints("offsets"), df: d.Ints("counts"), length: d.Ints("lengths"), post: d.Bytes("posting bytes")}
	if err := d.End("postings"); err != nil {
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
		skill += gap // the first gap is the skill itself
		if skill >= uint64(skills) {
			return fmt.Errorf("%w: a posting of skill %d, of %d", errBadBodies, skill, skills)
		}
	}
	if k != x.df[id] {
		return fmt.Errorf("%w: %d postings where the count says %d", errBadBodies, k, x.df[id])
	}
	return nil
}
