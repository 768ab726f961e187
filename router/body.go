package router

import (
	"context"
	"fmt"
	"hash/crc32"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/mapping"
)

// A skill's body (its Markdown instructions) says what the skill is for
// in many more words than its triggers and description: the Chinese
// agent's buyers describe their situation ("显示已签收可我根本没拿到") in
// words only a body uses, and "enumerate the png images under assets"
// meets a files skill only in a body that talks of globs and extensions.
// So while the index is built, every body is read once, one at a time,
// through the text analyzer, and its distinct terms (at most
// Options.BodyTerms, in the order the body first uses them) go into the
// body index (bodyindex.go): which skills' bodies hold each term. The
// text is dropped once analysed; the cache entry holds the postings; the
// catalog stays body-less.
//
// The body index is its own, not a part of the bleve field relevance
// reads: mixed into it, body terms made relevance noisier (a body names
// other skills and says many everyday words) and reordered right answers
// on the development sets. The relaxed tier reads it as a signal of its
// own, at a low weight (relaxed.go).

// Bodies is implemented by a Source whose skills have bodies. Without
// it, the index holds no body words.
type Bodies interface {
	// Body returns skill i's body. It is called once per skill while an
	// index is built, never while routing; an error stops the build.
	Body(ctx context.Context, i int) (string, error)
	// BodySum is a checksum of skill i's body that changes when the body
	// does (the agent file's CRC-32C of it), cheap to get without reading
	// it: a cache entry's fingerprint holds it, so an entry built from
	// other bodies is never trusted.
	BodySum(i int) uint32
}

// Body returns skill i's Body field.
func (s Skills) Body(_ context.Context, i int) (string, error) { return s[i].Body, nil }

// BodySum is the CRC-32C of skill i's Body field.
func (s Skills) BodySum(i int) uint32 { return crc32.Checksum([]byte(s[i].Body), castagnoli) }

// Defaults for body analysis.
const (
	// DefaultBodyTerms is the most distinct terms of one body the index
	// keeps: the procedure, the example and the edge cases of an ordinary
	// skill, while a body of reference tables cannot make its skill hold
	// every word.
	DefaultBodyTerms = 160
	// bodyScanBytes is how much of a body is read for its terms: enough
	// for DefaultBodyTerms distinct terms in any body seen, and a bound
	// on the work one skill costs.
	bodyScanBytes = 32 << 10
)

// bodyReader reads bodies and gives their terms. One is used by one
// goroutine; its buffers are reused from skill to skill.
type bodyReader struct {
	src  Bodies // nil: no bodies
	an   *analyzers
	max  int
	seen map[string]struct{}
	out  []string
	toks []string
	// stems remembers this build's stems: a body vocabulary repeats
	// across skills, and a Porter stem costs far more than a lookup. It
	// is its own so that bodies do not fill the request stems' cache.
	stems map[string]string
}

// newBodyReader reads the bodies of skills when it has them and max is
// positive; otherwise it reads none.
func newBodyReader(skills Source, an *analyzers, max int) *bodyReader {
	br := &bodyReader{an: an, max: max, seen: map[string]struct{}{}}
	if b, ok := skills.(Bodies); ok && max > 0 {
		br.src = b
	}
	return br
}

// terms reads skill i's body and returns its distinct analysed terms in
// first-use order, at most br.max of them, in br's memory (valid until
// the next call).
func (br *bodyReader) terms(ctx context.Context, i int) ([]string, error) {
	if br == nil || br.src == nil {
		return nil, nil
	}
	body, err := br.src.Body(ctx, i)
	if err != nil {
		return nil, fmt.Errorf("reading its body for the index: %w", err)
	}
	if len(body) > bodyScanBytes {
		cut := bodyScanBytes
		for cut > 0 && !utf8.RuneStart(body[cut]) {
			cut--
		}
		body = body[:cut]
	}
	clear(br.seen)
	br.out = br.out[:0]
	add := func(t string) bool {
		if _, dup := br.seen[t]; !dup {
			br.seen[t] = struct{}{}
			br.out = append(br.out, t)
		}
		return len(br.out) < br.max
	}
	if isASCII(body) {
		// Over ASCII the text analyzer is appendTokens, the stop words and
		// stem (see requestTerms): the same terms, without bleve's token
		// stream for every word of the body.
		br.toks = appendTokens(br.toks[:0], body)
		for _, tok := range br.toks {
			if !stopWords[tok] && !add(br.stem(tok)) {
				break
			}
		}
	} else {
		for _, tok := range br.an.text.Analyze([]byte(body)) {
			if !add(string(tok.Term)) {
				break
			}
		}
	}
	return br.out, nil
}

// stem is stem(tok), remembered while br.stems has room.
func (br *bodyReader) stem(tok string) string {
	if st, ok := br.stems[tok]; ok {
		return st
	}
	st := stem(tok)
	if br.stems == nil {
		br.stems = make(map[string]string, 1024)
	}
	if len(br.stems) < stemCacheMax {
		br.stems[tok] = st
	}
	return st
}

// isASCII reports whether s is all ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// corpus is what an index is built from: the mapping, the skills, and
// how many terms of each body the index keeps (0: none).
type corpus struct {
	m         mapping.IndexMapping
	skills    Source
	bodyTerms int
}

// readsBodies reports whether an index of c holds body terms.
func (c *corpus) readsBodies() bool {
	_, ok := c.skills.(Bodies)
	return ok && c.bodyTerms > 0
}

// corpus is what r's index is built from.
func (r *Router) corpus() *corpus {
	return &corpus{m: r.mapping, skills: r.src, bodyTerms: max(r.opts.BodyTerms, 0)}
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
	d := &docMaker{skills: c.skills, body: newBodyReader(c.skills, an, terms)}
	if d.body.src != nil {
		d.bodies = newBodyIndexBuilder(c.skills.Len())
	}
	return d, nil
}

// document is skill i's index document (see document) and the skill, for
// errors that name it. Skills must be made in order, each once, for the
// body index.
func (d *docMaker) document(ctx context.Context, i int) (map[string]interface{}, Skill, error) {
	s := d.skills.Skill(i)
	if d.bodies != nil {
		terms, err := d.body.terms(ctx, i)
		if err != nil {
			return nil, s, fmt.Errorf("indexing skill %q: %w", s.Name, err)
		}
		d.bodies.add(i, terms)
	}
	return document(&s), s, nil
}

// bodyIndex is the body index of the documents made so far (nil when no
// body is read).
func (d *docMaker) bodyIndex() *bodyIndex {
	if d.bodies == nil {
		return nil
	}
	return d.bodies.finish()
}
