package router

import (
	"cmp"
	"math"
	"slices"
)

// TierRunnerUp marks a Ranked match that neither a phrase, a name nor
// the relaxed tier's evidence found: a skill of the plain ranking
// (plainBM25 over names and descriptions) that follows them so that the
// reader sees what a search engine would have shown. Like a relaxed
// match it is a guess, to be confirmed before anything runs; unlike one,
// an irrelevant request draws it as readily as a relevant one: its Fit
// says how much of the request it holds.
const TierRunnerUp = "runner-up"

// Sure reports whether a match of tier is one run --exec may act on: a
// phrase hit, a skill the request names, or one whose description's
// words it says and no other skill's.
func Sure(tier string) bool { return tier == TierPhrase || tier == TierName || tier == TierDescribed }

// runnerUpHits bounds the request words a runner-up lists as its
// evidence: the line is for a reader, and its fit says the rest.
const runnerUpHits = 4

// plainIndex returns the plain ranking's index, built on first use.
func (r *Router) plainIndex() *plainBM25 {
	r.plainOnce.Do(func() {
		r.plain = newPlainBM25(r.src)
		r.plainBuilt.Store(true)
	})
	return r.plain
}

// runnersUp appends to out (the sure matches, then the relaxed ones)
// the best skills of the plain ranking that out does not hold, up to
// limit matches in all (relaxedLimit when limit is 0, unless out is
// longer), as TierRunnerUp; then it sets every match's Fit. The plain
// ranking drops no skill for want of evidence but one that holds only
// stop words of the request: the answer never leaves out a skill a
// plain search would have listed this high, and the reader judges by
// the fit. Limit 1 (run) never gets one beside a sure or relaxed match.
func (r *Router) runnersUp(pt *plainText, out []Match, limit int) []Match {
	want := limit
	if want == 0 {
		want = relaxedLimit
	}
	if r.late.pending() && !r.plainBuilt.Load() {
		// While the index builds in the background (Options.Background)
		// the plain ranking's index is built after it: a cold start's
		// first routes have no runner-ups rather than wait for it.
		want = len(out)
	}
	if len(out) >= want && !slices.ContainsFunc(out, func(m Match) bool { return !Sure(m.Tier) }) {
		for i := range out {
			out[i].Fit = 1
		}
		return out
	}
	p := r.plainIndex()
	q := pt.read(p)
	out = r.gramRunnersUp(p, q, pt.text, out, want)
	if len(out) < want && len(q.toks) > 0 {
		for _, h := range p.rank(q.toks, want+len(out)) {
			if len(out) == want {
				break
			}
			name, z, _ := r.src.Phrases(h.skill)
			if slices.ContainsFunc(out, func(o Match) bool { return o.Name == name && o.Z == z }) {
				continue
			}
			m := Match{Name: name, Z: z, Relevance: roundRelevance(h.score), Tier: TierRunnerUp, Fit: -1}
			m.Fit, m.Hits = p.fit(q, h.skill)
			out = append(out, m)
		}
	}
	for i := range out {
		if Sure(out[i].Tier) {
			out[i].Fit = 1
		} else if out[i].Fit == 0 {
			out[i].Fit, _ = p.fit(q, r.skillAt(out[i]))
		}
	}
	return out
}

// requestWords are the request's plain-ranking tokens without English
// stop words and the commonest Chinese characters (commonWord), each
// once: what a runner-up may hold and fit weighs.
func requestWords(text string) []string {
	toks := distinct(baselineTokens(nil, text))
	return slices.DeleteFunc(toks, commonWord)
}

// plainText is a request's text and, once read (read), its
// plainRequest: one route reads it once for all that weigh it.
type plainText struct {
	text string
	q    *plainRequest
}

// read returns t's plainRequest, reading it on first use.
func (t *plainText) read(p *plainBM25) plainRequest {
	if t.q == nil {
		q := p.read(t.text)
		t.q = &q
	}
	return *t.q
}

// plainRequest is a request as fit reads it: its words (requestWords),
// each one's idf, and their sum.
type plainRequest struct {
	toks  []string
	idf   []float64
	total float64
}

// read reads text for fit.
func (p *plainBM25) read(text string) plainRequest {
	q := plainRequest{toks: requestWords(text)}
	q.idf = make([]float64, len(q.toks))
	for i, t := range q.toks {
		q.idf[i] = p.idf(len(p.post[t]))
		q.total += q.idf[i]
	}
	return q
}

// fit is how much of the request q the skill's name and description
// hold: the summed idf of the words it holds over the summed idf of them
// all, a word no skill holds weighing as a word only one in N+1 skills
// would, rounded to hundredths; and the words it holds, in q's order,
// at most runnerUpHits.
func (p *plainBM25) fit(q plainRequest, skill int) (float64, []string) {
	if skill < 0 || q.total == 0 {
		return 0, nil
	}
	var held float64
	var words []string
	for i, t := range q.toks {
		if p.holds(t, skill) {
			held += q.idf[i]
			if len(words) < runnerUpHits {
				words = append(words, t)
			}
		}
	}
	return math.Round(100*held/q.total) / 100, words
}

// skillAt returns the position of m's skill (-1 when none): relaxed
// matches name their skill by name and z.
func (r *Router) skillAt(m Match) int {
	p := r.plainIndex()
	k, _ := slices.BinarySearchFunc(p.byZ, m.Z, func(s int, z float64) int {
		_, sz, _ := r.src.Phrases(s)
		return cmp.Compare(sz, z)
	})
	for ; k < len(p.byZ); k++ {
		name, z, _ := r.src.Phrases(p.byZ[k])
		if z != m.Z {
			break
		}
		if name == m.Name {
			return p.byZ[k]
		}
	}
	return -1
}
