package router

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/searcher"
)

// Term statistics let a route compute bleve's relevance without bleve:
// the phrase tier needs relevance only to order a few candidates, and
// BM25 over one field is a small closed formula of a term's document
// frequency, its frequency in the skill, the skill's field length and two
// index-wide numbers. One pass runs every skill's document through the
// index field's own analyzer (the one the mapping hands bleve, so the
// statistics can never describe other tokens than bleve indexes) and
// keeps, per term, the skills holding it and how often. That is a third
// of the work of building the bleve index, so a cold router answers the
// phrase tier while bleve builds (see Options.Background).
//
// The arithmetic below repeats bleve's own (search/scorer/scorer_term.go,
// search/searcher/search_term.go and the zap segment's norm) operation for
// operation, in the order relevanceOf sums, so the relevance is the same
// float64, bit for bit; TestTermStatsRelevance holds it to that.

// termStats are the BM25 statistics of the index field.
type termStats struct {
	ids map[string]uint32 // term → term id
	// The skills holding term t are post[start[t]:start[t+1]], by skill
	// position.
	start []uint32
	post  []posting
	// length is each skill's field length in tokens: bleve's norm is
	// derived from it.
	length []uint32
	// avgLength is bleve's BM25 average document length: the number of
	// distinct terms over the number of skills, rounded up (sic: bleve
	// divides the field's dictionary size, not its token count).
	avgLength float64
	// lengthNorm is, per skill, BM25's length normalisation (see
	// lengthNormOf) when avgLength > 0: the part of docScore that depends
	// only on the skill, with its three divisions and a square root,
	// worked out once instead of for every term and skill a route scores.
	lengthNorm []float64
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
	ts := &termStats{length: make([]uint32, n)}
	chunks := make([]*statsChunk, k)
	errs := make([]error, k)
	var next atomic.Int32
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := int(next.Add(1)) - 1; c < k; c = int(next.Add(1)) - 1 {
				chunks[c], errs[c] = analyzeChunk(ctx, an, in.skills, c*n/k, (c+1)*n/k, ts.length)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	ts.merge(chunks)
	if n > 0 {
		ts.avgLength = math.Ceil(float64(len(ts.ids)) / float64(n))
	}
	if ts.avgLength > 0 {
		ts.lengthNorm = make([]float64, n)
		for s, l := range ts.length {
			ts.lengthNorm[s] = ts.lengthNormOf(l)
		}
	}
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

// docs is the number of skills.
func (ts *termStats) docs() int { return len(ts.length) }

// postings returns the skills holding term, nil when none does.
func (ts *termStats) postings(term string) ([]posting, bool) {
	id, ok := ts.ids[term]
	if !ok {
		return nil, false
	}
	return ts.post[ts.start[id]:ts.start[id+1]], true
}

// idf is bleve's inverse document frequency of a term df skills hold
// (scorer_term.go computeIDF).
func (ts *termStats) idf(df int) float64 {
	total, term := uint64(ts.docs()), uint64(df)
	if ts.avgLength > 0 {
		return math.Log(1 + (float64(total)-float64(term)+0.5)/
			(float64(term)+0.5))
	}
	return 1.0 + math.Log(float64(total)/
		float64(term+1.0))
}

// norm is the norm a zap segment reports for a field of length tokens:
// 1/sqrt(length) rounded to float32.
func norm(length uint32) float64 {
	return float64(float32(1.0 / math.Sqrt(float64(length))))
}

// lengthNormOf is BM25's normalisation of a field of length tokens,
// 1 - b + b·fieldLength/avgLength, with the field length bleve derives
// from the norm. No addition takes a product here, so no compiler fuses
// one into a multiply-add: computed ahead, it is the same float64.
func (ts *termStats) lengthNormOf(length uint32) float64 {
	nm := norm(length)
	fieldLength := 1 / (nm * nm)
	return 1 - bsearch.BM25_b + (bsearch.BM25_b * fieldLength / ts.avgLength)
}

// docScore is bleve's per-document term score before the query weight
// (scorer_term.go docScore), with tf the square root of the frequency.
func (ts *termStats) docScore(idf float64, p posting) float64 {
	tf := math.Sqrt(float64(p.freq))
	if ts.avgLength > 0 {
		return idf * (tf * bsearch.BM25_k1) /
			(tf + bsearch.BM25_k1*ts.lengthNorm[p.skill])
	}
	return tf * norm(ts.length[p.skill]) * idf
}

// tableTerm is one request term as the table scores it.
type tableTerm struct {
	post        []posting
	idf         float64
	queryWeight float64
}

// maxStackTerms is how many request terms the table scores without
// allocating: ordinary requests have fewer.
const maxStackTerms = 16

// query looks up the request terms some skill holds, with bleve's query
// weights: each term's idf over the disjunction's query norm, which every
// term weighs in, held or not.
func (ts *termStats) query(dst []tableTerm, terms []term) []tableTerm {
	var weights float64
	for _, t := range terms {
		post, ok := ts.postings(t.term)
		idf := ts.idf(len(post))
		w := 1.0 * idf // bleve's Weight: (boost·idf)², boost 1
		weights += w * w
		if ok {
			dst = append(dst, tableTerm{post: post, idf: idf})
		}
	}
	qnorm := 1 / math.Sqrt(weights)
	for i := range dst {
		dst[i].queryWeight = 1.0 * dst[i].idf * qnorm
	}
	return dst
}

// score is q's score for the skill of p.
func (ts *termStats) score(q *tableTerm, p posting) float64 {
	score := ts.docScore(q.idf, p)
	if q.queryWeight != 1.0 {
		score = score * q.queryWeight
	}
	return score
}

// relevanceOf is scorerIndex.relevanceOf from the table: the same
// disjunction score for each of all[which], the same float64.
func (ts *termStats) relevanceOf(terms []term, all []candidate, which []int) {
	if len(terms) == 0 || len(which) == 0 {
		return
	}
	var onStack [maxStackTerms]tableTerm
	qs := ts.query(onStack[:0], terms)
	for _, k := range which {
		c := &all[k]
		var sum float64
		matched := 0
		for i := range qs {
			p, ok := find(qs[i].post, uint32(c.skill))
			if !ok {
				continue
			}
			sum += ts.score(&qs[i], p)
			matched++
		}
		c.rel = roundRelevance(sum * float64(matched) / float64(len(terms)))
	}
}

// search is what searchTies finds for relevanceQuery over terms, from the
// table: of the skills holding at least one term, the first size by the
// score bleve's search gives them (searchScores), best first, equal
// scores in skill order. Since it sees every skill a term holds, a tie
// at the cut needs no second search. ok is false when the table cannot
// give bleve's scores.
func (ts *termStats) search(terms []term, size int) (best []scored, ok bool) {
	if size <= 0 {
		return nil, true
	}
	ok = ts.searchScores(terms, func(skill int, score float64) {
		best = keepBest(best, scored{skill, roundRelevance(score)}, size)
	})
	return best, ok
}

// searchScores calls fn, in skill order, for every skill holding at
// least one of terms, with the score a bleve search of relevanceQuery
// gives it, the same float64. That is not relevanceOf's: the search's
// disjunction (of at most searcher.DisjunctionHeapTakeover terms, past
// which ok is false) orders its terms by how many skills hold them
// (sort.Sort, stable for so few), sums their weights and a skill's
// scores in that order, and multiplies the sum by the fraction of terms
// matched. searchScores does the same, operation for operation, merging
// the terms' postings, which are in skill order.
func (ts *termStats) searchScores(terms []term, fn func(skill int, score float64)) (ok bool) {
	if len(terms) > searcher.DisjunctionHeapTakeover || len(terms) > maxStackTerms {
		return false
	}
	if len(terms) == 0 {
		return true
	}
	var onStack [maxStackTerms]tableTerm
	qs := onStack[:0]
	for _, t := range terms {
		post, _ := ts.postings(t.term)
		qs = append(qs, tableTerm{post: post, idf: ts.idf(len(post))})
	}
	slices.SortStableFunc(qs, func(a, b tableTerm) int { return cmp.Compare(len(a.post), len(b.post)) })
	var weights float64
	for i := range qs {
		w := 1.0 * qs[i].idf // bleve's Weight: (boost·idf)², boost 1
		weights += w * w
	}
	qnorm := 1 / math.Sqrt(weights)
	for i := range qs {
		qs[i].queryWeight = 1.0 * qs[i].idf * qnorm
	}
	for {
		next := uint32(math.MaxUint32) // the next skill holding a term
		for i := range qs {
			if len(qs[i].post) > 0 {
				next = min(next, qs[i].post[0].skill)
			}
		}
		if next == math.MaxUint32 {
			return true
		}
		var sum float64
		matched := 0
		for i := range qs {
			if post := qs[i].post; len(post) > 0 && post[0].skill == next {
				sum += ts.score(&qs[i], post[0])
				matched++
				qs[i].post = post[1:]
			}
		}
		coord := float64(matched) / float64(len(terms))
		fn(int(next), sum*coord)
	}
}

// keepBest adds h to best (at most size hits, by score descending) unless
// size hits score at least as much: h's skill comes after theirs, so they
// win ties.
func keepBest(best []scored, h scored, size int) []scored {
	at := len(best)
	for at > 0 && best[at-1].score < h.score {
		at--
	}
	if at == size {
		return best
	}
	if len(best) < size {
		best = append(best, scored{})
	}
	copy(best[at+1:], best[at:len(best)-1])
	best[at] = h
	return best
}

// stats returns the term statistics that answer relevance for s, nil
// while there are none.
func (s *scorerIndex) stats() *termStats {
	if s == nil {
		return nil
	}
	if s.table != nil {
		return s.table
	}
	return s.later.Load()
}

// searchRelevant is searchTies(relevanceQuery(a)) for the top size
// skills. Term statistics, when the router has them, answer it without a
// bleve search: a small agent's relaxed route spent half its time setting
// up bleve's searchers and collector. They answer it exactly when every
// tie can be settled, within maxTieHits, and the request has few enough
// terms (search); otherwise bleve searches.
// A background build is still waited for, so a relaxed route keeps
// failing when the build does (Options.Background).
func (r *Router) searchRelevant(ctx context.Context, a analyzed, size int) ([]scored, error) {
	n := r.src.Len()
	if ts := r.scorer.stats(); ts != nil && n <= maxTieHits {
		if p := r.late; p != nil {
			p.kick()
			if err := p.wait(ctx); err != nil {
				return nil, err
			}
		}
		if res, ok := ts.search(a.text, size); ok {
			return res, nil
		}
	}
	return searchTies(ctx, r.idx, relevanceQuery(a), size, n)
}

// find returns skill's posting in post.
func find(post []posting, skill uint32) (posting, bool) {
	i, ok := slices.BinarySearchFunc(post, skill, func(p posting, s uint32) int {
		switch {
		case p.skill < s:
			return -1
		case p.skill > s:
			return 1
		}
		return 0
	})
	if !ok {
		return posting{}, false
	}
	return post[i], true
}

// size is the table's approximate memory in bytes.
func (ts *termStats) size() int {
	n := 8*len(ts.post) + 4*len(ts.start) + 4*len(ts.length) + 8*len(ts.lengthNorm)
	for t := range ts.ids {
		n += len(t) + 16 + 8 // string header, value, bucket share
	}
	return n
}
