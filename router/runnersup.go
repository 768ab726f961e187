package router

import (
	"cmp"
	"math"
	"slices"
	"unicode/utf8"
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
		for _, h := range p.rankTerms(q.words, want+len(out)) {
			if len(out) == want {
				break
			}
			name, z, _ := r.src.Phrases(h.skill)
			if slices.ContainsFunc(out, func(o Match) bool { return o.Name == name && o.Z == z }) {
				continue
			}
			m := Match{Name: name, Z: z, Relevance: roundRelevance(h.score), Tier: TierRunnerUp, Fit: -1}
			m.Fit, m.Hits = p.fit(q, h.skill, true)
			out = append(out, m)
		}
	}
	for i := range out {
		if Sure(out[i].Tier) {
			out[i].Fit = 1
		} else if out[i].Fit == 0 {
			out[i].Fit, _ = p.fit(q, r.skillAt(out[i]), false)
		}
	}
	return out
}

// requestWords are the request's plain-ranking tokens without English
// stop words and the commonest Chinese characters (commonWord), each
// once: what a runner-up may hold and fit weighs.
func requestWords(text string) []string {
	return contentWords(baselineTokens(make([]string, 0, 16), text))
}

// contentWords is toks (reordered) without English stop words and the
// commonest Chinese characters (commonWord), each once.
func contentWords(toks []string) []string {
	return slices.DeleteFunc(distinct(toks), commonWord)
}

// plainText is a request's text and, once read (read), its
// plainRequest: one route reads it once for all that weigh it. toks,
// when set, are the text's tokens as the route read them, which are the
// plain ranking's for a text all ASCII (plainTextOf).
type plainText struct {
	text string
	toks []string
	q    plainRequest
	done bool
}

// plainTextOf is the plainText of a route's request text, read as toks.
func plainTextOf(text string, toks []string) *plainText {
	for i := 0; i < len(text); i++ {
		if text[i] >= utf8.RuneSelf {
			return &plainText{text: text}
		}
	}
	return &plainText{text: text, toks: toks}
}

// read returns t's plainRequest, reading it on first use.
func (t *plainText) read(p *plainBM25) *plainRequest {
	if !t.done {
		words := t.toks
		if words != nil {
			words = contentWords(append(make([]string, 0, len(words)), words...))
		} else {
			words = requestWords(t.text)
		}
		t.q, t.done = p.read(words), true
	}
	return &t.q
}

// plainRequest is a request as fit reads it: its words (requestWords),
// each one's postings and idf, and the idfs' sum.
type plainRequest struct {
	toks  []string
	words []plainTerm // by toks
	total float64
}

// read reads a request's words (requestWords) for fit.
func (p *plainBM25) read(words []string) plainRequest {
	q := plainRequest{toks: words}
	q.words = make([]plainTerm, len(q.toks))
	for i, t := range q.toks {
		w := &q.words[i]
		t, ok := p.post[t]
		w.post, w.idf = t.post, t.idf
		if !ok {
			w.idf = p.idf(0)
		}
		q.total += w.idf
	}
	return q
}

// holds reports whether skill's name or description holds q's word i.
func (q *plainRequest) holds(i, skill int) bool {
	_, ok := slices.BinarySearchFunc(q.words[i].post, skill, func(e bm25Posting, s int) int { return cmp.Compare(int(e.skill), s) })
	return ok
}

// fit is how much of the request q the skill's name and description
// hold: the summed idf of the words it holds over the summed idf of them
// all, a word no skill holds weighing as a word only one in N+1 skills
// would, rounded to hundredths; and, when asked for (hits), the words it
// holds, in q's order, at most runnerUpHits.
func (p *plainBM25) fit(q *plainRequest, skill int, hits bool) (float64, []string) {
	if skill < 0 || q.total == 0 {
		return 0, nil
	}
	var held float64
	var words []string
	for i, t := range q.toks {
		if q.holds(i, skill) {
			held += q.words[i].idf
			if hits && len(words) < runnerUpHits {
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
	k, _ := slices.BinarySearch(p.zs, m.Z)
	for ; k < len(p.byZ) && p.zs[k] == m.Z; k++ {
		if name, _, _ := r.src.Phrases(p.byZ[k]); name == m.Name {
			return p.byZ[k]
		}
	}
	return -1
}
