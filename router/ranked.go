package router

import (
	"cmp"
	"context"
)

// Relaxed-tier bounds.
const (
	// relaxedLimit caps relaxed matches when a query asks for all (Limit 0):
	// they are guesses, and a long tail of them helps nobody.
	relaxedLimit = 10
	// relaxedPool is how many top-relevance skills are examined per
	// relaxed match wanted.
	relaxedPool = 4
	// restrictMax is the largest tie group whose relevance is computed by a
	// search restricted to its skills; larger ones score every match.
	restrictMax = 512
)

// relaxedMinWords is how many distinct request words a relaxed match must
// contain: one shared word is too weak to call a match.
const relaxedMinWords = 2

// routeRanked lifts phrase matching to stems, orders by whether the skill has
// an exact (Spec) hit, then by phrases hit, then by bleve relevance, then by
// z, and falls back to relaxed matches when no phrase hits (DESIGN.md §5).
// Keeping exact hitters first means Ranked never demotes Spec's answer in
// favour of a skill that only matched through stemming.
func (r *Router) routeRanked(ctx context.Context, text string, limit int) ([]Match, error) {
	toks := appendTokens(nil, text)
	reqE := r.phrases.exact.lookup(nil, toks)
	stems := make([]string, len(toks))
	for i, t := range toks {
		stems[i] = stem(t)
	}
	reqS := r.phrases.stems.lookup(nil, stems)
	var hits []uint64
	r.phrases.stems.each(reqS, func(p uint32) {
		exact := r.phrases.exact.covered(r.phrases.exactSet[p], reqE)
		hits = append(hits, packHit(r.phrases.skillOf[p], r.phrases.ordOf[p], exact))
	})
	if len(hits) == 0 {
		return r.relaxed(ctx, text, limit)
	}
	cands := group(hits)
	for i := range cands {
		c := &cands[i]
		c.key = uint64(1-b2i(c.exact > 0))<<63 | r.specKey(c)
	}
	// Relevance only reorders within a tier (equal exact hit and score), so
	// it is needed for the tiers that reach into the first limit results.
	end := topCandidates(cands, limit)
	if err := r.relevance(ctx, text, cands[:end], tied(cands[:end])); err != nil {
		return nil, err
	}
	sortCandidatesFunc(cands[:end], rankedOrder)
	return r.matches(cands[:end], limit, true), nil
}

// rankedOrder: skills with an exact phrase hit first, then phrases hit,
// relevance, z.
func rankedOrder(a, b *candidate) int {
	if a.key>>32 != b.key>>32 { // exact hit, then score
		return cmp.Compare(a.key, b.key)
	}
	if c := cmp.Compare(b.rel, a.rel); c != 0 {
		return c
	}
	return cmp.Compare(a.key, b.key) // z
}

// tied lists the candidates (sorted by key) that share their tier with
// another: the only ones whose order relevance decides.
func tied(cands []candidate) []int {
	var out []int
	for i := 0; i < len(cands); {
		j := i + 1
		for j < len(cands) && cands[j].key>>32 == cands[i].key>>32 {
			j++
		}
		if j-i > 1 {
			for k := i; k < j; k++ {
				out = append(out, k)
			}
		}
		i = j
	}
	return out
}

// relevance fills in the bleve relevance of cands[which]. Relevance is
// only computed where it decides the order: a bleve search has a fixed
// cost far above the rest of a route, and most requests have no ties.
func (r *Router) relevance(ctx context.Context, text string, all []candidate, which []int) error {
	if r.idx == nil || len(which) == 0 {
		return nil
	}
	cands := make([]*candidate, len(which))
	for i, k := range which {
		cands[i] = &all[k]
	}
	q := relevanceQuery(analyze(r.an, text, false))
	if q == nil {
		return nil
	}
	var only []int
	size := len(r.skills)
	if len(cands) <= restrictMax {
		only = make([]int, len(cands))
		for i, c := range cands {
			only[i] = c.skill
		}
	}
	res, err := search(ctx, r.idx, q, only, size)
	if err != nil {
		return err
	}
	rel := make(map[int]float64, len(res))
	for _, s := range res {
		rel[s.skill] = s.score
	}
	for _, c := range cands {
		c.rel = rel[c.skill]
	}
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
