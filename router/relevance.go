package router

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/agent3md/agent3md/internal/segment"

	"github.com/blevesearch/bleve/v2/analysis"
	bsearch "github.com/blevesearch/bleve/v2/search"
)

// Relevance is computed here and nowhere else (doc.go, "Where the work
// goes"). A request is a disjunction of clauses, one per distinct term
// (a synonym's boosted by synonymBoost); a skill's relevance is the sum,
// in the order of the clauses' posting counts, of the term scores of the
// clauses it holds, times the share of the clauses it holds:
//
//	idf · tf·k1 / (tf + k1·(1 - b + b·len/avg)) · boost·idf / √Σ(boost·idf)²
//
// with idf = ln(1 + (N - df + 0.5)/(df + 0.5)), tf the square root of the
// term's frequency, len the field length bleve derives from its float32
// norm, and avg the dictionary size over N, rounded up: bleve's formulas.

// clause is one term of a request's disjunction, with its postings.
type clause struct {
	post        []posting
	idf         float64
	boost       float64
	queryWeight float64
}

const maxStackTerms = 16 // clauses a request scores without allocating

// disjunction returns the clauses of terms (boosted by boost) and extra
// (synonyms, by synonymBoost) in bleve's summing order (posting count,
// stable), with query weights; every clause weighs in the query norm.
func (ts *termStats) disjunction(dst []clause, terms []term, boost float64, extra []string) []clause {
	for _, t := range terms {
		post, idf := ts.term(t.term)
		dst = append(dst, clause{post: post, idf: idf, boost: boost})
	}
	for _, t := range extra {
		post, idf := ts.term(t)
		dst = append(dst, clause{post: post, idf: idf, boost: synonymBoost})
	}
	slices.SortStableFunc(dst, func(a, b clause) int { return cmp.Compare(len(a.post), len(b.post)) })
	var weights float64
	for i := range dst {
		w := dst[i].boost * dst[i].idf
		weights += w * w
	}
	qnorm := 1 / math.Sqrt(weights)
	for i := range dst {
		dst[i].queryWeight = dst[i].boost * dst[i].idf * qnorm
	}
	return dst
}

// score is clause q's term score for the skill of p.
func (ts *termStats) score(q *clause, p posting) float64 {
	tf := math.Sqrt(float64(p.freq))
	score := q.idf * (tf * bsearch.BM25_k1) / (tf + bsearch.BM25_k1*ts.lengthNorm[p.skill])
	if q.queryWeight != 1.0 {
		score = score * q.queryWeight
	}
	return score
}

// relevanceOf sets the relevance of terms for each of all[which].
func (ts *termStats) relevanceOf(terms []term, all []candidate, which []int) {
	if len(terms) == 0 || len(which) == 0 {
		return
	}
	var onStack [maxStackTerms]clause
	qs := ts.disjunction(onStack[:0], terms, 1, nil)
	for _, k := range which {
		c := &all[k]
		var sum float64
		matched := 0
		for i := range qs {
			if p, ok := find(qs[i].post, uint32(c.skill)); ok {
				sum += ts.score(&qs[i], p)
				matched++
			}
		}
		c.rel = roundRelevance(sum * float64(matched) / float64(len(qs)))
	}
}

// search returns the size most relevant skills holding one of terms or
// synonyms, best first, ties in skill order, merging the postings.
func (ts *termStats) search(terms []term, synonyms []string, size int) []scored {
	if size <= 0 || len(terms)+len(synonyms) == 0 {
		return nil
	}
	var onStack [maxStackTerms]clause
	qs := ts.disjunction(onStack[:0], terms, 1, synonyms)
	n, postings := len(qs), 0
	for i := range qs {
		postings += len(qs[i].post)
	}
	best := make([]scored, 0, min(size, postings)) // one allocation, not one per doubling
	for {
		next := uint32(math.MaxUint32) // the next skill holding a term
		for i := range qs {
			if len(qs[i].post) > 0 {
				next = min(next, qs[i].post[0].skill)
			}
		}
		if next == math.MaxUint32 {
			return best
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
		best = keepBest(best, scored{int(next), roundRelevance(sum * float64(matched) / float64(n))}, size)
	}
}

// keepBest adds h to best (at most size, by score descending) unless size
// hits score as much: they came first, so they win ties.
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

// find returns skill's posting in post.
func find(post []posting, skill uint32) (posting, bool) {
	i, ok := slices.BinarySearchFunc(post, skill, func(p posting, s uint32) int { return cmp.Compare(p.skill, s) })
	if !ok {
		return posting{}, false
	}
	return post[i], true
}

// skillsHolding is how many skills' indexed fields hold term; ok is false
// without statistics (no skills).
func (ts *termStats) skillsHolding(_ context.Context, term string) (n int, ok bool) {
	if ts == nil {
		return 0, false
	}
	p, _ := ts.term(term)
	return len(p), true
}

// searchRelevant returns the size skills most relevant to a, widened by
// ex's synonyms (nil: none). A background build is waited for: it brings
// the body index the relaxed tier reads.
func (r *Router) searchRelevant(ctx context.Context, a analyzed, ex *expansion, size int) ([]scored, error) {
	if p := r.late; p != nil {
		p.kick()
		if err := p.wait(ctx); err != nil {
			return nil, err
		}
	}
	return r.scorer.search(a.text, ex.searchTerms(a.text, false), size), nil
}

// plainBM25 is the baseline every evaluation set reports beside ranked
// mode, which must not do worse at any k on a held-out set: BM25 (k1 1.2,
// b 0.75) over name and description as lowercase runs of letters and
// digits, each unspaced character a token; no stems, stop words,
// triggers or bodies.
type plainBM25 struct {
	post    map[string]plainTerm // token -> skills that hold it, and its idf
	norm    []float64            // k1 · (1 - b + b · length / average length), per skill
	count   int
	idf0    float64   // idf(0): a word no skill holds (plainText.read)
	byZ     []int     // skills in z order, for finding a match's skill
	zs      []float64 // their z, in that order
	scratch sync.Pool // *plainScratch
}

// plainTerm is a token's postings, by skill ascending, and its idf.
type plainTerm struct {
	post []bm25Posting
	idf  float64
}

type bm25Posting struct {
	skill int32
	tf    float32
}

// plainScratch is one rank's memory: a score per skill, and those touched.
type plainScratch struct {
	acc     []float64
	touched []int32
}

const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// newPlainBM25 indexes every skill of src.
func newPlainBM25(src Source) *plainBM25 {
	n := src.Len()
	p := &plainBM25{post: map[string]plainTerm{}, norm: make([]float64, n), count: n}
	total := 0.0
	var toks []string
	for i := range n {
		s := src.Skill(i)
		toks = baselineTokens(baselineTokens(toks[:0], s.Name), s.Description)
		p.norm[i] = float64(len(toks))
		total += p.norm[i]
		slices.Sort(toks)
		for k := 0; k < len(toks); {
			e := k + 1
			for e < len(toks) && toks[e] == toks[k] {
				e++
			}
			t := p.post[toks[k]]
			t.post = append(t.post, bm25Posting{int32(i), float32(e - k)})
			p.post[toks[k]] = t
			k = e
		}
	}
	avg := 1.0
	if n > 0 {
		avg = max(total/float64(n), 1)
	}
	for i := range p.norm {
		p.norm[i] = bm25K1 * (1 - bm25B + bm25B*p.norm[i]/avg)
	}
	for tok, t := range p.post {
		t.idf = p.idf(len(t.post))
		p.post[tok] = t
	}
	p.idf0 = p.idf(0)
	p.byZ = make([]int, n)
	for i := range p.byZ {
		p.byZ[i] = i
	}
	slices.SortStableFunc(p.byZ, func(a, b int) int {
		_, za, _ := src.Phrases(a)
		_, zb, _ := src.Phrases(b)
		return cmp.Compare(za, zb)
	})
	p.zs = make([]float64, n)
	for i, s := range p.byZ {
		_, p.zs[i], _ = src.Phrases(s)
	}
	return p
}

// rank returns the best k skills (all when k is 0) holding one of toks,
// best first, ties in skill order.
func (p *plainBM25) rank(toks []string, k int) []scored {
	var terms []plainTerm
	for _, t := range distinct(toks) {
		terms = append(terms, p.post[t])
	}
	return p.rankTerms(nil, terms, k)
}

// rankTerms is rank over the request's tokens' postings and idfs, in
// dst's memory (a route's plainText.ranked).
func (p *plainBM25) rankTerms(dst []scored, terms []plainTerm, k int) []scored {
	sc, _ := p.scratch.Get().(*plainScratch)
	if sc == nil {
		sc = &plainScratch{acc: make([]float64, p.count)}
	}
	for _, pt := range terms {
		idf := pt.idf
		for _, e := range pt.post {
			if sc.acc[e.skill] == 0 {
				sc.touched = append(sc.touched, e.skill)
			}
			tf := float64(e.tf)
			sc.acc[e.skill] += idf * tf * (bm25K1 + 1) / (tf + p.norm[e.skill])
		}
	}
	better := func(a, b scored) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.skill, b.skill)
	}
	if k <= 0 {
		k = len(sc.touched)
	}
	out := slices.Grow(dst[:0], min(k, len(sc.touched))+1)
	for _, s := range sc.touched {
		h := scored{skill: int(s), score: sc.acc[s]}
		sc.acc[s] = 0
		if len(out) == k && better(h, out[k-1]) >= 0 {
			continue
		}
		// Insert in order; the list holds at most k.
		at, _ := slices.BinarySearchFunc(out, h, better)
		out = slices.Insert(out, at, h)
		if len(out) > k {
			out = out[:k]
		}
	}
	sc.touched = sc.touched[:0]
	p.scratch.Put(sc)
	return out
}

// idf is BM25's inverse document frequency of a token n documents hold.
func (p *plainBM25) idf(n int) float64 {
	return math.Log(1 + (float64(p.count)-float64(n)+0.5)/(float64(n)+0.5))
}

// distinct returns toks sorted, each once (toks is reordered).
func distinct(toks []string) []string {
	slices.Sort(toks)
	return slices.Compact(toks)
}

// baselineTokens appends text's tokens to dst: lowercase runs of letters
// and digits, and each character of an unspaced script alone.
func baselineTokens(dst []string, text string) []string {
	start := -1
	flush := func(end int) {
		if start >= 0 {
			dst = append(dst, strings.ToLower(text[start:end]))
			start = -1
		}
	}
	for i, c := range text {
		switch {
		case segment.Unspaced(c):
			flush(i)
			dst = append(dst, string(c))
		case unicode.IsLetter(c) || unicode.IsDigit(c):
			if start < 0 {
				start = i
			}
		default:
			flush(i)
		}
	}
	flush(len(text))
	return dst
}

// analyzed is a request's terms per analyzer, each with its request word.
type analyzed struct{ text, exact []term }

type term struct{ term, word string }

// analyze runs text through the text analyzer and, when exact is set, the
// exact one, keeping each distinct term once, in first-seen order.
func analyze(an *analyzers, text string, exact bool) analyzed {
	run := func(a analysis.Analyzer) []term {
		var out []term
		var seen map[string]struct{}
		src := []byte(text) // the analyzers lowercase it in place; words come from text
		for _, tok := range a.Analyze(src) {
			out, seen = appendDistinct(out, seen, term{string(tok.Term), lowerToken(text[tok.Start:tok.End])})
		}
		return out
	}
	a := analyzed{text: run(an.text)}
	if exact {
		a.exact = run(an.exact)
	}
	return a
}

// requestTerms is analyze(an, text, exact) for a request read as toks and
// stems, appended to buf: over ASCII the analyzers are appendTokens,
// stopWords and stem, so bleve's run only for other requests.
func requestTerms(an *analyzers, text string, toks, stems []string, exact bool, buf []term) analyzed {
	for _, tok := range toks {
		for i := 0; i < len(tok); i++ {
			if tok[i] >= utf8.RuneSelf {
				return analyze(an, wordsText(text, toks), exact)
			}
		}
	}
	var exactBuf []term
	if exact && buf == nil {
		both := make([]term, 0, 2*len(toks)) // one allocation, clipped in two
		buf, exactBuf = both[:0:len(toks)], both[len(toks):len(toks)]
	}
	a := analyzed{text: slices.Grow(buf[:0], len(toks))}
	var seen map[string]struct{}
	for i, tok := range toks {
		if !stopWords[tok] {
			a.text, seen = appendDistinct(a.text, seen, term{stems[i], tok})
		}
	}
	if exact {
		seen = nil
		a.exact = slices.Grow(exactBuf, len(toks))
		for _, tok := range toks {
			a.exact, seen = appendDistinct(a.exact, seen, term{tok, tok})
		}
	}
	return a
}

// appendDistinct appends t to out unless out holds its term, scanning
// out while it is short and keeping seen (made here) once it is not.
func appendDistinct(out []term, seen map[string]struct{}, t term) ([]term, map[string]struct{}) {
	if seen == nil && len(out) == analyzeScanMax {
		seen = make(map[string]struct{}, 2*analyzeScanMax)
		for _, o := range out {
			seen[o.term] = struct{}{}
		}
	}
	if seen != nil {
		if _, dup := seen[t.term]; dup {
			return out, seen
		}
		seen[t.term] = struct{}{}
	} else if slices.ContainsFunc(out, func(o term) bool { return o.term == t.term }) {
		return out, seen
	}
	return append(out, t), seen
}

// analyzeScanMax is how many distinct terms are de-duplicated by a scan
// before a set: below it a scan is cheaper than hashing.
const analyzeScanMax = 16

// scored is one search hit: a skill index and its relevance.
type scored struct {
	skill int
	score float64
}

// roundRelevance drops the last bits of a relevance, so scores summed in
// another order stay equal when their evidence is: ties stay ties.
func roundRelevance(x float64) float64 {
	return math.Round(x*1e9) / 1e9
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
