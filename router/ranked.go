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
	return r.matches(cands, hits, rankedTop(cands[:end], limit), true), nil
}

// rankedTop returns the positions of the first limit (all when 0) of
// cands, sorted by key, in ranked order: skills with an exact phrase hit
// first, then phrases hit (the key's tier), then relevance, then z. Only
// runs of equal tier reorder, each by (relevance desc, key); for the run
// that straddles the limit only its best few are selected. Candidates are
// never moved: they hold slices, and shuffling them costs more than the
// ranking.
func rankedTop(cands []candidate, limit int) []int {
	if limit == 0 || limit > len(cands) {
		limit = len(cands)
	}
	out := make([]int, 0, limit)
	for i := 0; i < len(cands) && len(out) < limit; {
		j := i + 1
		for j < len(cands) && cands[j].key>>32 == cands[i].key>>32 {
			j++
		}
		out = appendRun(out, cands, i, j, limit-len(out))
		i = j
	}
	return out
}

// ranks reports whether cands[a] ranks before cands[b] within a run.
func ranks(cands []candidate, a, b int) bool {
	if cands[a].rel != cands[b].rel {
		return cands[a].rel > cands[b].rel
	}
	return cands[a].key < cands[b].key
}

// appendRun appends the best want of the run cands[i:j] to out, in order.
func appendRun(out []int, cands []candidate, i, j, want int) []int {
	base := len(out)
	if j-i == 1 {
		return append(out, i)
	}
	// Insertion into a buffer of at most want: cheap for the usual small
	// want, and no worse than a sort when want is the whole run.
	for k := i; k < j; k++ {
		n := len(out) - base
		if n == want && !ranks(cands, k, out[len(out)-1]) {
			continue
		}
		lo, hi := base, len(out)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if ranks(cands, k, out[m]) {
				hi = m
			} else {
				lo = m + 1
			}
		}
		if n < want {
			out = append(out, 0)
		}
		copy(out[lo+1:], out[lo:len(out)-1])
		out[lo] = k
	}
	return out
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
// only computed where it decides the order: most requests have no ties.
func (r *Router) relevance(ctx context.Context, text string, all []candidate, which []int) error {
	if r.scorer == nil || len(which) == 0 {
		return nil
	}
	return r.scorer.relevanceOf(ctx, analyze(r.an, text, false).text, all, which)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
