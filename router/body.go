package router

import (
	"context"
	"fmt"
	"hash/crc32"
	"unicode/utf8"

	"github.com/agent3md/agent3md/internal/textclip"
	"github.com/blevesearch/bleve/v2/mapping"
)

// A skill's body says what it is for in many more words than its triggers
// and description ("显示已签收可我根本没拿到" meets the right skill only in
// its body). While the index is built, every body is read once through
// the text analyzer and its distinct terms (at most Options.BodyTerms, in
// first-use order) go into the body index (bodyindex.go); the text is
// dropped. It is an index of its own, a low-weight signal of the relaxed
// tier (relaxed.go): in the bleve field, body terms (other skills' names,
// everyday words) made relevance noisier.

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
		if i%progressEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := fn(i, []byte(s[i].Body)); err != nil {
			return err
		}
	}
	return nil
}

// BodySum is the CRC-32C of skill i's Body field.
func (s Skills) BodySum(i int) uint32 { return crc32.Checksum([]byte(s[i].Body), castagnoli) }

// Defaults for body analysis.
const (
	// DefaultBodyTerms is the most distinct terms of one body the index
	// keeps: an ordinary skill's procedure and examples, not every word of
	// a body of reference tables.
	DefaultBodyTerms = 160
	// bodyScanBytes is how much of a body is read for its terms: enough
	// for DefaultBodyTerms distinct terms in any body seen, and a bound
	// on the work one skill costs.
	bodyScanBytes = 32 << 10
)

// bodyReader turns bodies into the ids of their distinct terms in a body
// index being built. One is used by one goroutine; its buffers are
// reused from skill to skill.
type bodyReader struct {
	src    Bodies // nil: no bodies
	skills Source
	// seg cuts a body's unspaced runs at the agent's words, as a
	// request's are cut; made on the first body that needs it.
	seg *segmenter
	an  *analyzers
	max int
	x   *bodyIndexBuilder
	// words remembers each lowercased ASCII word's term id (stopTerm for a
	// stop word): bodies repeat a vocabulary, and a stem costs far more
	// than a lookup. It is not the request stems' cache.
	words map[string]int32
	word  []byte
	text  []byte // a body cut at the agent's words
	// seen marks the terms of the body being read: seen[id] == mark.
	seen []uint32
	mark uint32
	out  []uint32
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

// terms returns the ids of body's distinct analysed terms in first-use
// order, at most br.max of them, in br's memory (valid until the next
// call).
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

// cut returns body with its unspaced runs cut at the agent's words (in
// br's memory), as a request is cut, so no pair of characters spans an
// agent word's edge ("款原" of "退款原路返回"); text between them is still
// read in pairs.
func (br *bodyReader) cut(body []byte) []byte {
	if br.seg == nil {
		br.seg = buildSegmenter(br.skills)
	}
	if len(br.seg.byFirst) == 0 {
		return body
	}
	br.text = br.seg.spaced(br.text[:0], string(body))
	return br.text
}

// ascii reads an ASCII body (false, having read nothing, for any other):
// over ASCII the text analyzer is maximal runs of letters and digits,
// lowercased, the stop words and stem (see requestTerms), so each word
// costs a lookup in words instead of a token stream.
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

// add adds term id to the body's terms unless it has it, and reports
// whether there is room for more.
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

// corpus is what an index is built from: the mapping, the skills, and
// how many terms of each body the index keeps (0: none).
type corpus struct {
	m         mapping.IndexMapping
	skills    Source
	bodyTerms int
	// stats, when known (a background router's), are saved in a new
	// cache entry instead of being read out of its index.
	stats *termStats
}

// readsBodies reports whether an index of c holds body terms.
func (c *corpus) readsBodies() bool {
	_, ok := c.skills.(Bodies)
	return ok && c.bodyTerms > 0
}

// corpus is what r's index is built from.
func (r *Router) corpus() *corpus {
	return &corpus{m: r.mapping, skills: r.src, bodyTerms: max(r.opts.BodyTerms, 0), stats: r.scorer}
}

// docMaker makes the skills' index documents, one at a time, and, when
// it reads bodies, adds their terms to a body index. It is used by one
// goroutine.
type docMaker struct {
	skills Source
	body   *bodyReader
	bodies *bodyIndexBuilder // nil when no body is read
}

// maker returns a docMaker over c; with bodies set it also builds c's
// body index (docMaker.bodyIndex).
func (c *corpus) maker(bodies bool) (*docMaker, error) {
	an, err := newAnalyzers(c.m)
	if err != nil {
		return nil, err
	}
	terms := c.bodyTerms
	if !bodies {
		terms = 0
	}
	x := newBodyIndexBuilder(c.skills.Len())
	d := &docMaker{skills: c.skills, body: newBodyReader(c.skills, an, terms, x)}
	if d.body.src != nil {
		d.bodies = x
	}
	return d, nil
}

// each calls fn with every skill's index document (see document), in
// skill order, each skill's body read and its terms added to the body
// index first.
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

// bodyIndex is the body index of the documents made so far (nil when no
// body is read).
func (d *docMaker) bodyIndex() *bodyIndex {
	if d.bodies == nil {
		return nil
	}
	return d.bodies.finish()
}
