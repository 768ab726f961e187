package router

import "slices"

// specificFirst puts first, among the phrase matches as sure as the
// first (out[0]: hit as written, or through stems, alike) that hit fewer
// phrases than it, the one whose trigger phrases cover the most
// informative request words, when that is strictly more than the
// first's: a generic trigger ("run tests", hit twice as "run the tests"
// and "run tests") does not go ahead of a specific one ("flaky test")
// for having more phrases. Matches with as many phrases as the first
// were ordered by evidence already (weigh). A word's weight
// is its specificity among the agent's triggers and names (specifics'
// idf); a word the phrases cover twice counts once. Only the first place
// changes, and only between phrase matches.
func (r *Router) specificFirst(sp *specifics, rq request, out []Match) []Match {
	if len(out) < 2 || out[0].Tier != TierPhrase || out[0].Score < 2 ||
		!slices.ContainsFunc(out[1:], func(m Match) bool { return m.Tier == TierPhrase && m.Score < out[0].Score }) {
		return out // nothing ordered by its count of phrases alone
	}
	exact := func(m Match) bool {
		for _, h := range m.Hits {
			for _, tok := range appendTokens(nil, h) {
				if !slices.Contains(rq.toks, tok) {
					return false
				}
			}
		}
		return true
	}
	cover := func(m Match) float64 {
		var stems []string
		for _, h := range m.Hits {
			stems = appendStems(stems, appendTokens(nil, h))
		}
		w := 0.0
		seen := map[uint32]bool{}
		for i, st := range rq.stems {
			if stopWords[rq.toks[i]] || !slices.Contains(stems, st) {
				continue
			}
			if id, ok := sp.id(st); ok && !seen[id] {
				seen[id] = true
				w += sp.idf[id]
			}
		}
		return w
	}
	firstExact, best, bestW := exact(out[0]), 0, cover(out[0])
	for i := 1; i < len(out) && out[i].Tier == TierPhrase; i++ {
		if exact(out[i]) != firstExact || out[i].Score >= out[0].Score {
			// Equal counts were ordered by evidence already (weigh).
			continue
		}
		if w := cover(out[i]); w > bestW {
			best, bestW = i, w
		}
	}
	if best > 0 {
		m := out[best]
		copy(out[1:best+1], out[:best])
		out[0] = m
	}
	return out
}
