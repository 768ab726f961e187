package router

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	index "github.com/blevesearch/bleve_index_api"
)

// The term statistics of the index field are what relevance
// (relevance.go) is computed from: per term, the skills holding it and
// how often; per skill, BM25's length normalisation; the average field
// length. They are bleve's: read out of its index once it is built or
// opened (statsFromIndex). A router built cold in the background
// (Options.Background) gathers them before its bleve index exists, by
// one pass of the index field's own analyzer (the one the mapping hands
// bleve) over the same documents (buildTermStats): a third of the work
// of building the index, so it routes while bleve builds (background.go).
// The two ways gather the same statistics (TestStatsFromBleve).

// termStats are the BM25 statistics of the index field.
type termStats struct {
	ids map[string]uint32 // term → term id
	// The skills holding term t are post[start[t]:start[t+1]], by skill
	// position.
	start []uint32
	post  []posting
	// avgLength is bleve's BM25 average field length: the size of the
	// field's dictionary over the number of skills, rounded up (bleve
	// divides the dictionary size, not the token count).
	avgLength float64
	// lengthNorm is, per skill, BM25's length normalisation,
	// 1 - b + b·fieldLength/avgLength, with the field length bleve
	// derives from its norm: the part of a term score that depends only
	// on the skill, worked out once.
	lengthNorm []float64
	// idf is each term's inverse document frequency (see idfOf), and
	// absentIDF that of a term no skill holds.
	idf       []float64
	absentIDF float64
}

type posting struct {
	skill uint32
	freq  uint32
}

// docAnalyzerOf is the analyzer the mapping gives the index field.
func docAnalyzerOf(m mapping.IndexMapping) (analysis.Analyzer, error) {
	name := m.AnalyzerNameForPath(indexField)
	a := m.AnalyzerNamed(name)
	if a == nil {
		return nil, fmt.Errorf("router: analyzer %q of the index field is not registered", name)
	}
	return a, nil
}

// The skills are cut into chunks of at least statsChunkMin skills (at
// most statsChunks of them) that up to statsWorkers goroutines (GOMAXPROCS
// at most) take in turn: on a cold start the table stands between the
// process and its first answer, and a goroutine that shares its processor
// (with the phrase index build) takes fewer chunks.
const (
	statsWorkers  = 4
	statsChunks   = 16
	statsChunkMin = 250
)

// buildTermStats analyzes every skill's document once.
func buildTermStats(ctx context.Context, in *corpus) (*termStats, error) {
	chunks := max(1, min(statsChunks, in.skills.Len()/statsChunkMin))
	return buildTermStatsOn(ctx, in, min(statsWorkers, runtime.GOMAXPROCS(0), chunks), chunks)
}

// buildTermStatsOn is buildTermStats with the skills cut into k chunks
// taken by the given number of goroutines.
func buildTermStatsOn(ctx context.Context, in *corpus, workers, k int) (*termStats, error) {
	an, err := docAnalyzerOf(in.m)
	if err != nil {
		return nil, err
	}
	n := in.skills.Len()
	length := make([]uint32, n)
	chunks := make([]*statsChunk, k)
	errs := make([]error, k)
	var next atomic.Int32
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := int(next.Add(1)) - 1; c < k; c = int(next.Add(1)) - 1 {
				chunks[c], errs[c] = analyzeChunk(ctx, an, in.skills, c*n/k, (c+1)*n/k, length)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	ts := &termStats{}
	ts.merge(chunks)
	// A zap segment's norm is 1/sqrt(length) rounded to float32.
	ts.normalize(len(ts.ids), n, func(s int) float64 {
		if length[s] == 0 {
			return 0 // as bleve reads a skill it holds no posting of
		}
		return float64(float32(1.0 / math.Sqrt(float64(length[s]))))
	})
	return ts, nil
}

// statsChunk is what is gathered over one chunk of skills [lo, hi): its own
// term ids (terms, by id) and postings as (term, skill, freq), in skill
// order.
type statsChunk struct {
	terms []string
	raw   []rawPosting
}

type rawPosting struct {
	term uint32
	posting
}

// analyzeChunk analyzes skills [lo, hi), writing their field lengths into
// length.
func analyzeChunk(ctx context.Context, an analysis.Analyzer, skills Source, lo, hi int, length []uint32) (*statsChunk, error) {
	c := &statsChunk{raw: make([]rawPosting, 0, 24*(hi-lo))}
	ids := make(map[string]uint32, 1024)
	// last[t] is the index in raw of term t's posting for the skill being
	// read, valid when lastSkill[t] is that skill.
	var last []int
	var lastSkill []int32
	for i := lo; i < hi; i++ {
		if (i-lo)%progressEvery == progressEvery-1 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		s := skills.Skill(i)
		text, _ := document(&s)[indexField].(string)
		toks := an.Analyze([]byte(text))
		length[i] = uint32(len(toks))
		// The repeat filter emits a weighted field's token in a run of
		// copies sharing one term: a run costs one lookup.
		var prev []byte
		at := -1 // the posting prev counted in
		for _, tok := range toks {
			if len(prev) > 0 && len(tok.Term) == len(prev) && &tok.Term[0] == &prev[0] {
				c.raw[at].freq++
				continue
			}
			prev = tok.Term
			id, ok := ids[string(tok.Term)]
			if !ok {
				id = uint32(len(c.terms))
				t := string(tok.Term)
				ids[t] = id
				c.terms = append(c.terms, t)
				last, lastSkill = append(last, 0), append(lastSkill, -1)
			}
			if lastSkill[id] == int32(i) {
				at = last[id]
				c.raw[at].freq++
				continue
			}
			at = len(c.raw)
			lastSkill[id], last[id] = int32(i), at
			c.raw = append(c.raw, rawPosting{id, posting{uint32(i), 1}})
		}
	}
	return c, nil
}

// merge gives the chunks' terms one numbering and groups their postings
// by term; chunks cover ascending skill ranges, so each term's skills stay
// in order.
func (ts *termStats) merge(chunks []*statsChunk) {
	ts.ids = make(map[string]uint32, len(chunks[0].terms))
	global := make([][]uint32, len(chunks)) // chunk's term id → global id
	total := 0
	for k, c := range chunks {
		global[k] = make([]uint32, len(c.terms))
		for local, t := range c.terms {
			id, ok := ts.ids[t]
			if !ok {
				id = uint32(len(ts.ids))
				ts.ids[t] = id
			}
			global[k][local] = id
		}
		total += len(c.raw)
	}
	ts.start = make([]uint32, len(ts.ids)+1)
	for k, c := range chunks {
		for _, p := range c.raw {
			ts.start[global[k][p.term]+1]++
		}
	}
	for t := 1; t < len(ts.start); t++ {
		ts.start[t] += ts.start[t-1]
	}
	ts.post = make([]posting, total)
	next := slices.Clone(ts.start[:len(ts.ids)])
	for k, c := range chunks {
		for _, p := range c.raw {
			id := global[k][p.term]
			ts.post[next[id]] = p.posting
			next[id]++
		}
	}
}

// normalize sets avgLength from the field's dictionary size (cardinality)
// and lengthNorm from each skill's norm, as bleve's BM25 does.
func (ts *termStats) normalize(cardinality, n int, norm func(skill int) float64) {
	ts.lengthNorm = make([]float64, n)
	if n == 0 {
		return
	}
	ts.avgLength = math.Ceil(float64(cardinality) / float64(n))
	ts.idf = make([]float64, len(ts.start)-1)
	for t := range ts.idf {
		ts.idf[t] = ts.idfOf(int(ts.start[t+1] - ts.start[t]))
	}
	ts.absentIDF = ts.idfOf(0)
	for s := range ts.lengthNorm {
		nm := norm(s)
		fieldLength := 1 / (nm * nm)
		ts.lengthNorm[s] = 1 - bsearch.BM25_b + (bsearch.BM25_b * fieldLength / ts.avgLength)
	}
}

// statsFromIndex reads the term statistics of n skills out of bleve's
// index: the field's dictionary, each term's postings (frequency and
// norm), and its cardinality.
func statsFromIndex(ctx context.Context, idx bleve.Index, n int) (ts *termStats, err error) {
	adv, err := idx.Advanced()
	if err != nil {
		return nil, fmt.Errorf("router: opening the index for scoring: %w", err)
	}
	snap, err := adv.Reader()
	if err != nil {
		return nil, fmt.Errorf("router: opening the index for scoring: %w", err)
	}
	defer func() {
		if cerr := snap.Close(); err == nil && cerr != nil {
			ts, err = nil, fmt.Errorf("router: reading the index statistics: %w", cerr)
		}
	}()
	skillOf, err := skillsByDoc(ctx, snap, n)
	if err != nil {
		return nil, err
	}
	dict, err := snap.FieldDict(indexField)
	if err != nil {
		return nil, fmt.Errorf("router: reading the index vocabulary: %w", err)
	}
	defer dict.Close()
	ts = &termStats{ids: make(map[string]uint32, dict.Cardinality())}
	norms := make([]float64, n)
	var doc index.TermFieldDoc
	for k := 0; ; k++ {
		if k%progressEvery == progressEvery-1 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		e, err := dict.Next()
		if err != nil {
			return nil, fmt.Errorf("router: reading the index vocabulary: %w", err)
		}
		if e == nil {
			break
		}
		tr, err := snap.TermFieldReader(ctx, []byte(e.Term), indexField, true, true, false)
		if err != nil {
			return nil, fmt.Errorf("router: reading postings of %q: %w", e.Term, err)
		}
		from := len(ts.post)
		for {
			d, err := tr.Next(&doc)
			if err != nil {
				tr.Close()
				return nil, fmt.Errorf("router: reading postings of %q: %w", e.Term, err)
			}
			if d == nil {
				break
			}
			s, ok := skillOf[string(d.ID)]
			if !ok {
				tr.Close()
				return nil, fmt.Errorf("router: the index holds a document that is no skill; rebuild it (agent3md index)")
			}
			ts.post = append(ts.post, posting{uint32(s), uint32(d.Freq)})
			norms[s] = d.Norm
		}
		tr.Close()
		slices.SortFunc(ts.post[from:], func(a, b posting) int { return cmp.Compare(a.skill, b.skill) })
		ts.ids[e.Term] = uint32(len(ts.start))
		ts.start = append(ts.start, uint32(from))
	}
	ts.start = append(ts.start, uint32(len(ts.post)))
	card, err := snap.(index.BM25Reader).FieldCardinality(indexField)
	if err != nil {
		return nil, fmt.Errorf("router: reading the index statistics: %w", err)
	}
	ts.normalize(card, n, func(s int) float64 { return norms[s] })
	return ts, nil
}

// skillsByDoc maps the internal document id of every skill in snap to
// its position (ids are skill positions in decimal, see document).
func skillsByDoc(ctx context.Context, snap index.IndexReader, n int) (map[string]int32, error) {
	out := make(map[string]int32, n)
	for i := 0; i < n; i++ {
		if i%progressEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		id, err := snap.InternalID(strconv.Itoa(i))
		if err != nil {
			return nil, fmt.Errorf("router: looking up skill %d in the index: %w", i, err)
		}
		if len(id) == 0 {
			return nil, fmt.Errorf("router: skill %d is missing from the index; rebuild it (agent3md index)", i)
		}
		out[string(id)] = int32(i)
	}
	return out, nil
}

// postings returns the skills holding term, nil when none does.
func (ts *termStats) postings(term string) ([]posting, bool) {
	id, ok := ts.ids[term]
	if !ok {
		return nil, false
	}
	return ts.post[ts.start[id]:ts.start[id+1]], true
}

// term returns the skills holding term and its idf.
func (ts *termStats) term(term string) ([]posting, float64) {
	id, ok := ts.ids[term]
	if !ok {
		return nil, ts.absentIDF
	}
	return ts.post[ts.start[id]:ts.start[id+1]], ts.idf[id]
}

// idfOf is bleve's BM25 inverse document frequency of a term df skills
// hold (scorer_term.go computeIDF).
func (ts *termStats) idfOf(df int) float64 {
	total, term := uint64(len(ts.lengthNorm)), uint64(df)
	return math.Log(1 + (float64(total)-float64(term)+0.5)/
		(float64(term)+0.5))
}

// size is the statistics' approximate memory in bytes.
func (ts *termStats) size() int {
	n := 8*len(ts.post) + 4*len(ts.start) + 8*len(ts.lengthNorm) + 8*len(ts.idf)
	for t := range ts.ids {
		n += len(t) + 16 + 8 // string header, value, bucket share
	}
	return n
}
