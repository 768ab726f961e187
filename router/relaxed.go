package router

import (
	"context"
	"slices"
	"unicode/utf8"
)

// relaxed finds skills for a request that hit no trigger phrase, from
// bleve relevance over all fields, keeping those within RelaxedThreshold
// of the best-scoring skill and with at least RelaxedEvidence and two
// request words (docs/architecture.md §5).
func (r *Router) relaxed(ctx context.Context, text string, limit int) ([]Match, error) {
	out := []Match{}
	if r.idx == nil {
		return out, nil
	}
	a := analyze(r.an, text, true)
	q := relevanceQuery(a)
	if q == nil {
		return out, nil
	}
	want := limit
	if want == 0 {
		want = relaxedLimit
	}
	// The index never holds more hits than skills, and bleve allocates
	// its hit pool to the requested size on every search, so a small
	// agent asks for no more than it has: same hits, less garbage.
	pool := min(want*relaxedPool, max(r.src.Len(), 1))
	res, err := search(ctx, r.idx, q, pool)
	if err != nil || len(res) == 0 {
		return out, err
	}
	cut := res[0].score * r.opts.RelaxedThreshold
	for _, h := range res {
		if h.score < cut || len(out) == want {
			break
		}
		if h.skill < 0 || h.skill >= r.src.Len() {
			continue
		}
		s := r.src.Skill(h.skill)
		weight, words := r.evidence(a, &s)
		if weight < r.opts.RelaxedEvidence || len(words) < relaxedMinWords {
			continue
		}
		out = append(out, Match{Name: s.Name, Z: s.Z, Relevance: h.score, Hits: words, Tier: TierRelaxed})
	}
	return out, nil
}

// evidence is the summed boosts of the (field, term) pairs of the request
// that skill s contains, and the request words behind them in request
// order.
func (r *Router) evidence(a analyzed, s *Skill) (float64, []string) {
	var weight float64
	matched := map[string]bool{}
	for _, f := range fields {
		terms := a.text
		if f.analyzer == exactAnalyzer {
			terms = a.exact
		}
		val := fieldValue(s, f.name)
		if val == "" || len(terms) == 0 {
			continue
		}
		have := map[string]bool{}
		an := r.an.text
		if f.analyzer == exactAnalyzer {
			an = r.an.exact
		}
		for _, tok := range an.Analyze([]byte(val)) {
			have[string(tok.Term)] = true
		}
		for _, t := range terms {
			// Single letters are mostly the tails of contractions and
			// possessives ("customer's"): no evidence of anything.
			if have[t.term] && utf8.RuneCountInString(t.word) > 1 {
				weight += f.weight
				matched[t.word] = true
			}
		}
	}
	var words []string
	for _, t := range a.exact { // every request word, in request order
		if matched[t.word] && !slices.Contains(words, t.word) {
			words = append(words, t.word)
		}
	}
	return weight, words
}
