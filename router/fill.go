package router

import (
	"context"
	"slices"
	"unicode/utf8"
)

// relevanceFill appends to out, an answer shorter than the limit after
// the plain ranking's runner-ups, the most relevant skills it does not
// hold by the one engine (relevance.go: stems, triggers, tools and
// bodies, which the plain ranking does not read), as runner-ups with
// their fit: a request whose words a skill says only through a stem or
// in its body ("update cobra" for a skill whose body says go get -u)
// still gets a short list a model can pick from rather than none.
func (r *Router) relevanceFill(ctx context.Context, text string, rq request, pt *plainText, out []Match, limit int) ([]Match, error) {
	want := limit
	if want == 0 {
		want = relaxedLimit
	}
	if len(out) >= want || r.late.pending() || r.scorer == nil {
		return out, nil
	}
	pool := min(want*relaxedPool, max(r.src.Len(), 1))
	a, res, body, ok := rq.memo.get(pool)
	if !ok {
		a = requestTerms(r.an, text, rq.toks, rq.stems, true, nil)
		if len(a.text) == 0 {
			return out, nil
		}
		var err error
		if res, err = r.searchRelevant(ctx, a, nil, pool); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return out, nil
		}
		res, body = r.withBodies(a, res, pool)
	}
	p := r.plainIndex()
	q := pt.read(p)
	for _, h := range res {
		if len(out) == want {
			break
		}
		if h.skill < 0 || h.skill >= r.src.Len() {
			continue
		}
		name, z, _ := r.src.Phrases(h.skill)
		if slices.ContainsFunc(out, func(o Match) bool { return o.Name == name && o.Z == z }) {
			continue
		}
		m := Match{Name: name, Z: z, Relevance: roundRelevance(h.score), Tier: TierRunnerUp}
		m.Fit, m.Hits = p.fit(q, h.skill, true)
		if len(m.Hits) == 0 {
			m.Hits = r.fillWords(a, h.skill, body)
		}
		out = append(out, m)
	}
	return out, nil
}

// fillWords are the request words (of a) the one engine found skill by,
// for the reader, at most runnerUpHits: those whose term one of its
// fields or its body holds (single letters, the tails of contractions,
// left out), in request order.
func (r *Router) fillWords(a analyzed, skill int, body []bodyScored) []string {
	s := r.src.Skill(skill)
	st := r.fieldTerms(skill, &s)
	bh, _ := findBody(body, skill)
	var words []string
	for k, t := range a.text {
		if len(words) == runnerUpHits {
			break
		}
		if utf8.RuneCountInString(t.word) < 2 || slices.Contains(words, t.word) {
			continue
		}
		held := k < 64 && bh.terms&(1<<k) != 0
		for f := 0; f < len(st) && !held; f++ {
			if fields[f].analyzer != exactAnalyzer {
				_, held = slices.BinarySearch(st[f], t.term)
			}
		}
		if held {
			words = append(words, t.word)
		}
	}
	return words
}

// searchMemo is a route's relaxed search (relaxedSearchWith) kept for
// the fill: the same request terms, searched without synonyms, over a
// pool at least as deep as the fill's, so the fill reads it instead of
// searching again (on a small agent the search is most of the route).
type searchMemo struct {
	ok   bool
	a    analyzed
	pool int
	res  []scored
	body []bodyScored
}

// keep records a search of a, widened by ex, over pool hits: one the
// fill can read only when ex brought no synonym.
func (m *searchMemo) keep(a analyzed, ex *expansion, pool int, res []scored, body []bodyScored) {
	if m == nil || ex != nil && len(ex.syn) > 0 || m.ok && m.pool >= pool {
		return
	}
	*m = searchMemo{ok: true, a: a, pool: pool, res: res, body: body}
}

// get returns the kept search when it reaches pool hits deep.
func (m *searchMemo) get(pool int) (analyzed, []scored, []bodyScored, bool) {
	if m == nil || !m.ok || m.pool < pool {
		return analyzed{}, nil, nil, false
	}
	return m.a, m.res, m.body, true
}
