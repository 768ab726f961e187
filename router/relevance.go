package router

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
)

// Tie-breaking relevance is computed straight from bleve's postings with
// bleve's own term searchers and scorer, over the few skills whose order
// it decides. A bleve search that restricts a disjunction to those skills
// gives the same scores (relevance_test.go pins it), but it spends most of
// a route turning skill ids into bleve's internal document ids and running
// a collector: 300-400 µs at 4,000 skills against a route budget of
// 100 µs. Holding one index snapshot and each skill's internal id makes
// the relevance of k skills cost k postings advances per request term.

// docIDs are the bleve internal document ids of every skill, by skill
// position, in one index snapshot. Bleve's ids are opaque bytes; the ones
// scorch hands out all have one width, which keeps this one flat slice
// instead of a slice per skill.
type docIDs struct {
	width int
	flat  []byte
}

func (d *docIDs) id(skill int) index.IndexInternalID {
	return d.flat[skill*d.width : (skill+1)*d.width : (skill+1)*d.width]
}

func (d *docIDs) len() int {
	if d.width == 0 {
		return 0
	}
	return len(d.flat) / d.width
}

// order returns the positions in which to visit cands: by internal id,
// the order postings are read in. Scorch's ids are 8-byte big-endian
// document numbers, which sort as integers packed with the position;
// other ids sort as bytes.
func (d *docIDs) order(all []candidate, which []int, s *orderScratch) []int {
	out := slices.Grow(s.out[:0], len(which))[:len(which)]
	s.out = out
	if d.width == 8 {
		keys := slices.Grow(s.keys[:0], len(which))[:len(which)]
		s.keys = keys
		fits := true
		for i, k := range which {
			n := binary.BigEndian.Uint64(d.id(all[k].skill))
			fits = fits && n < 1<<32
			keys[i] = n<<32 | uint64(i)
		}
		if fits {
			slices.Sort(keys)
			for i, key := range keys {
				out[i] = which[uint32(key)]
			}
			return out
		}
	}
	copy(out, which)
	slices.SortFunc(out, func(a, b int) int { return bytes.Compare(d.id(all[a].skill), d.id(all[b].skill)) })
	return out
}

// orderScratch is order's reusable memory; the order it returns lives in
// it until the next call.
type orderScratch struct {
	out  []int
	keys []uint64
}

// lookupDocIDs asks snapshot for the internal id of every skill (ids are
// skill positions in decimal, see document).
func lookupDocIDs(ctx context.Context, snapshot index.IndexReader, n int) (*docIDs, error) {
	d := &docIDs{}
	for i := 0; i < n; i++ {
		if i%progressEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		id, err := snapshot.InternalID(strconv.Itoa(i))
		if err != nil {
			return nil, fmt.Errorf("router: looking up skill %d in the index: %w", i, err)
		}
		if len(id) == 0 {
			return nil, fmt.Errorf("router: skill %d is missing from the index; rebuild it (agent3md index)", i)
		}
		if i == 0 {
			d.width = len(id)
			d.flat = make([]byte, 0, n*d.width)
		}
		if len(id) != d.width {
			return nil, fmt.Errorf("router: bleve internal ids of varying width (%d and %d bytes); the index schema needs a new version", d.width, len(id))
		}
		d.flat = append(d.flat, id...)
	}
	return d, nil
}

// The ids are saved beside a cached index, so a warm start reads them
// instead of looking up every skill. The manifest's checksums cover the
// file; readDocIDs checks its shape and spotChecks a few ids against the
// index, which catches a bleve upgrade that numbers documents differently.
const (
	docIDsName  = "docids.bin"
	docIDsMagic = "A3DI"
	maxIDWidth  = 64
)

var errBadDocIDs = errors.New("document id file is damaged")

func writeDocIDs(path string, d *docIDs) error {
	var head [len(docIDsMagic) + 4 + 8]byte
	copy(head[:], docIDsMagic)
	binary.LittleEndian.PutUint32(head[4:], uint32(d.width))
	binary.LittleEndian.PutUint64(head[8:], uint64(d.len()))
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	_, err = f.Write(append(head[:], d.flat...))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// readDocIDs reads the ids of n skills (n < 0: however many the file
// holds).
func readDocIDs(path string, n int) (*docIDs, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var head [len(docIDsMagic) + 4 + 8]byte
	if _, err := io.ReadFull(f, head[:]); err != nil || string(head[:4]) != docIDsMagic {
		return nil, fmt.Errorf("%w: bad header", errBadDocIDs)
	}
	width := binary.LittleEndian.Uint32(head[4:])
	count := binary.LittleEndian.Uint64(head[8:])
	if n < 0 { // any count the file really holds: the caller checks it
		fi, err := f.Stat()
		if err != nil {
			return nil, err
		}
		if width == 0 || count > uint64(fi.Size())/uint64(width) {
			return nil, fmt.Errorf("%w: %d ids of %d bytes in a file of %d bytes", errBadDocIDs, count, width, fi.Size())
		}
		n = int(count)
	}
	if width == 0 || width > maxIDWidth || count != uint64(n) {
		return nil, fmt.Errorf("%w: %d ids of %d bytes, want %d ids", errBadDocIDs, count, width, n)
	}
	d := &docIDs{width: int(width), flat: make([]byte, n*int(width))}
	if _, err := io.ReadFull(f, d.flat); err != nil {
		return nil, fmt.Errorf("%w: %v", errBadDocIDs, err)
	}
	return d, nil
}

// spotCheck compares a few of d's ids with the snapshot's.
func (d *docIDs) spotCheck(snapshot index.IndexReader) error {
	n := d.len()
	for _, i := range []int{0, n / 2, n - 1} {
		if i < 0 || i >= n {
			continue
		}
		id, err := snapshot.InternalID(strconv.Itoa(i))
		if err != nil {
			return err
		}
		if !bytes.Equal(id, d.id(i)) {
			return fmt.Errorf("%w: skill %d has internal id %x in the index, %x in the file", errBadDocIDs, i, []byte(id), []byte(d.id(i)))
		}
	}
	return nil
}

// scorerIndex is what direct relevance needs: a snapshot held for the
// Router's life (so the ids stay valid) and the ids in it.
type scorerIndex struct {
	snapshot index.IndexReader
	ids      *docIDs
	// vocab holds the indexed terms. A request term outside it matches no
	// skill, so it needs no postings reader; it still weighs in the query
	// norm and the coordination factor, with absentWeight, the weight
	// bleve gives any term no document has.
	vocab        map[string]struct{}
	absentWeight float64
	// table, when set, answers relevance instead of the snapshot (which
	// is then nil): see termstats.go.
	table *termStats
	// later is the same statistics built after a warm open (see
	// Router.startTable): once set, they answer instead of the snapshot's
	// term searchers, with the same values, for less work per route.
	later atomic.Pointer[termStats]
}

// openScorer takes a snapshot of idx and the skills' ids in it: from
// saved (read from a cache entry; checked here) when given, else looked
// up.
func openScorer(ctx context.Context, idx bleve.Index, n int, saved *docIDs) (*scorerIndex, error) {
	s, err := newScorer(ctx, idx)
	if err != nil {
		return nil, err
	}
	if err := s.attachIDs(ctx, n, saved); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// newScorer takes a snapshot of idx and reads its vocabulary; the skills'
// ids come later (attachIDs).
func newScorer(ctx context.Context, idx bleve.Index) (*scorerIndex, error) {
	adv, err := idx.Advanced()
	if err != nil {
		return nil, fmt.Errorf("router: opening the index for scoring: %w", err)
	}
	snapshot, err := adv.Reader()
	if err != nil {
		return nil, fmt.Errorf("router: opening the index for scoring: %w", err)
	}
	s := &scorerIndex{snapshot: snapshot}
	if err := s.readVocab(ctx); err != nil {
		snapshot.Close()
		return nil, err
	}
	return s, nil
}

// attachIDs gives s the ids of n skills: saved when it checks out against
// the snapshot, else looked up.
func (s *scorerIndex) attachIDs(ctx context.Context, n int, saved *docIDs) error {
	if saved != nil && saved.len() == n && saved.spotCheck(s.snapshot) == nil {
		s.ids = saved
		return nil
	}
	ids, err := lookupDocIDs(ctx, s.snapshot, n)
	if err != nil {
		return err
	}
	s.ids = ids
	return nil
}

// absentTerm is a term no document can hold: the tokenizer never emits
// a NUL.
const absentTerm = "\x00"

// readVocab fills vocab from the index's dictionary and asks bleve for the
// weight of a term no document holds.
func (s *scorerIndex) readVocab(ctx context.Context) (err error) {
	dict, err := s.snapshot.FieldDict(indexField)
	if err != nil {
		return fmt.Errorf("router: reading the index vocabulary: %w", err)
	}
	defer func() {
		if cerr := dict.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("router: reading the index vocabulary: %w", cerr)
		}
	}()
	s.vocab = make(map[string]struct{}, dict.Cardinality())
	for {
		e, err := dict.Next()
		if err != nil {
			return fmt.Errorf("router: reading the index vocabulary: %w", err)
		}
		if e == nil {
			break
		}
		s.vocab[e.Term] = struct{}{}
	}
	t, err := searcher.NewTermSearcher(bm25Context(ctx), s.snapshot, absentTerm, indexField, 1.0, bsearch.SearcherOptions{})
	if err != nil {
		return fmt.Errorf("router: scoring setup: %w", err)
	}
	defer t.Close()
	if t.Count() != 0 {
		return fmt.Errorf("router: the index holds the reserved term %q; rebuild it (agent3md index)", absentTerm)
	}
	s.absentWeight = t.Weight()
	return nil
}

// skillsHolding is how many skills' indexed fields (name, triggers,
// description, tool, inputs) hold term; ok is false when s cannot tell.
func (s *scorerIndex) skillsHolding(ctx context.Context, term string) (n int, ok bool) {
	if s == nil {
		return 0, false
	}
	if t := s.stats(); t != nil {
		p, _ := t.postings(term)
		return len(p), true
	}
	if s.snapshot == nil {
		return 0, false
	}
	if _, ok := s.vocab[term]; !ok {
		return 0, true
	}
	tr, err := s.snapshot.TermFieldReader(ctx, []byte(term), indexField, false, false, false)
	if err != nil {
		return 0, false
	}
	defer tr.Close()
	return int(tr.Count()), true
}

func (s *scorerIndex) close() error {
	if s == nil || s.snapshot == nil {
		return nil
	}
	return s.snapshot.Close()
}

// seqFactor: a term with at most this many postings per candidate is read
// in sequence rather than by seeking.
const seqFactor = 4

// bm25Context is what bleve's index sets before a search so its term
// searchers score with the mapping's model (BM25, see newMapping).
func bm25Context(ctx context.Context) context.Context {
	return context.WithValue(ctx, bsearch.GetScoringModelCallbackKey,
		bsearch.GetScoringModelCallbackFn(func() string { return index.BM25Scoring }))
}

// relevanceOf sets the bleve relevance of the request terms for each
// candidate: the score the disjunction relevanceQuery builds would give
// it. Bleve scores a disjunction as the sum of its matching term scores
// times the fraction of terms that match, each term searcher normalised
// by the disjunction's query norm; the same searchers do that here, one
// Advance per term and candidate, in internal id order.
func (s *scorerIndex) relevanceOf(ctx context.Context, terms []term, all []candidate, which []int, ord *orderScratch) (err error) {
	if len(terms) == 0 || len(which) == 0 {
		return nil
	}
	if t := s.table; t != nil {
		t.relevanceOf(terms, all, which)
		return nil
	}
	if t := s.later.Load(); t != nil {
		t.relevanceOf(terms, all, which)
		return nil
	}
	// terms are distinct (analyze keeps each once), as bleve's disjunction
	// of term queries would have them.
	bctx := bm25Context(ctx)
	ts := make([]bsearch.Searcher, 0, len(terms))
	defer func() {
		for _, t := range ts {
			if cerr := t.Close(); err == nil && cerr != nil {
				err = fmt.Errorf("router: closing a term searcher: %w", cerr)
			}
		}
	}()
	var weights float64
	for _, t := range terms {
		if _, ok := s.vocab[t.term]; !ok {
			weights += s.absentWeight
			continue
		}
		x, err := searcher.NewTermSearcher(bctx, s.snapshot, t.term, indexField, 1.0, bsearch.SearcherOptions{})
		if err != nil {
			return fmt.Errorf("router: reading postings of %q: %w", t.term, err)
		}
		ts = append(ts, x)
		weights += x.Weight()
	}
	qnorm := 1 / math.Sqrt(weights)
	for _, t := range ts {
		t.SetQueryNorm(qnorm)
	}
	sctx := &bsearch.SearchContext{DocumentMatchPool: bsearch.NewDocumentMatchPool(2*len(ts), 0)}
	at := make([]*bsearch.DocumentMatch, len(ts)) // each searcher's current match
	done := make([]bool, len(ts))
	// A term whose postings are few next to the candidates is read in
	// sequence: stepping through a short list costs less than seeking
	// once per candidate.
	seq := make([]bool, len(ts))
	for i, t := range ts {
		done[i] = t.Count() == 0 // a term no skill has scores nothing, but counts in coord
		seq[i] = t.Count() <= uint64(seqFactor*len(which))
	}
	for n, k := range s.ids.order(all, which, ord) {
		c := &all[k]
		if n%64 == 63 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		id := s.ids.id(c.skill)
		var sum float64
		matched := 0
		for i, t := range ts {
			for !done[i] && (at[i] == nil || at[i].IndexInternalID.Compare(id) < 0) {
				if at[i] != nil {
					sctx.DocumentMatchPool.Put(at[i])
				}
				var m *bsearch.DocumentMatch
				var err error
				if seq[i] {
					m, err = t.Next(sctx)
				} else {
					m, err = t.Advance(sctx, id)
				}
				if err != nil {
					return fmt.Errorf("router: reading postings of %q: %w", terms[i].term, err)
				}
				at[i], done[i] = m, m == nil
			}
			if at[i] != nil && at[i].IndexInternalID.Equals(id) {
				sum += at[i].Score
				matched++
			}
		}
		c.rel = roundRelevance(sum * float64(matched) / float64(len(terms)))
	}
	return nil
}
