package router

import (
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
	t := r.getTally()
	defer r.putTally(t)
	x := r.phrases
	// Phrases sharing a stem set mostly share their exact set too, so the
	// last exact-set verdict is reused.
	lastSet, lastExact := ^uint32(0), false
	x.stems.each(reqS, func(p uint32) {
		if es := x.exactSet[p]; es != lastSet {
			lastSet, lastExact = es, x.exact.covered(es, reqE)
		}
		t.add(x, p, lastExact)
	})
	if len(t.hits) == 0 {
		return r.relaxed(ctx, text, limit)
	}
	cands := t.candidates()
	for i := range cands {
		c := &cands[i]
		c.key = uint64(1-b2i(c.exact > 0))<<63 | r.specKey(c)
	}
	// Relevance only reorders within a tier (equal exact hit and score), so
	// it is computed for the tiers that reach into the first limit results.
	order, err := rank(cands, limit, true, &t.rank, func(which []int) error {
		return r.relevance(ctx, text, cands, which, &t.ord)
	})
	if err != nil {
		return nil, err
	}
	return r.matches(cands, order, t.phraseHits(x, cands, order), true), nil
}

// relevance fills in the bleve relevance of cands[which].
func (r *Router) relevance(ctx context.Context, text string, all []candidate, which []int, ord *orderScratch) error {
	if r.scorer == nil || len(which) == 0 {
		return nil
	}
	return r.scorer.relevanceOf(ctx, analyze(r.an, text, false).text, all, which, ord)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
