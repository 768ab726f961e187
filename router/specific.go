package router

import "slices"

// specificWindow is how deep specificFirst looks for a specific match:
// the answer a model reads (DefaultLimit). Routes asked for fewer are
// ordered this deep first, so every limit gets the same first match.
const specificWindow = DefaultLimit

// specificFirst puts first, among the phrase matches as sure as the
// first (out[0]: hit as written, or through stems, alike) that hit fewer
// phrases than it, the one whose trigger phrases cover the most
// informative request words, when that is strictly more than the
// first's: a generic trigger ("run tests", hit twice as "run the tests"
// and "run tests") does not go ahead of a specific one ("flaky test")
// for having more phrases. Matches with as many phrases as the first
// were ordered by evidence already (weigh). A word's weight is its
// specificity among the agent's triggers and names (specifics' idf); a
// word the phrases cover twice counts once. Only the first place
// changes, and only between phrase matches.
func (r *Router) specificFirst(sp *specifics, rq request, out []Match) []Match {
	win := out[:min(len(out), specificWindow)]
	if len(win) < 2 || win[0].Tier != TierPhrase || win[0].Score < 2 ||
		!slices.ContainsFunc(win[1:], func(m Match) bool { return m.Tier == TierPhrase && m.Score < win[0].Score }) {
		return out // nothing ordered by its count of phrases alone
	}
	var content uint64 // the request's positions that are not stop words
	for i, tok := range rq.toks[:min(len(rq.toks), 64)] {
		if !stopWords[tok] {
			content |= 1 << i
		}
	}
	var onStack [16]string
	buf := onStack[:0]
	firstExact, firstW, buf := phraseCover(sp, rq, content, out[0], buf)
	best, bestW := 0, firstW
	for i := 1; i < len(win) && win[i].Tier == TierPhrase; i++ {
		if out[i].Score >= out[0].Score {
			continue
		}
		var exact bool
		var w float64
		if exact, w, buf = phraseCover(sp, rq, content, out[i], buf); exact == firstExact && w > bestW {
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

// phraseCover reports whether one of m's hit phrases is in the request
// as written, every token of it (Spec's own hit: rankedKey's first key),
// and the summed specificity of the distinct
// request words at the positions of content (stop words aside) whose
// stems the phrases hold; buf is scratch for the phrases' tokens,
// returned for the next call.
func phraseCover(sp *specifics, rq request, content uint64, m Match, buf []string) (bool, float64, []string) {
	exact := false
	var covered uint64 // request positions covered, the first 64
	for _, h := range m.Hits {
		buf = appendTokens(buf[:0], h)
		written := true
		for _, tok := range buf {
			var st string
			if k := slices.Index(rq.toks, tok); k >= 0 {
				st = rq.stems[k] // as written: its stem is read already
			} else {
				written, st = false, routeStem(tok)
			}
			for i, s := range rq.stems {
				if i < 64 && content&(1<<i) != 0 && s == st {
					covered |= 1 << i
				}
			}
		}
		exact = exact || written && len(buf) > 0
	}
	var ids [64]uint32
	seen := ids[:0]
	w := 0.0
	for i := 0; i < len(rq.stems) && i < 64; i++ {
		if covered&(1<<i) == 0 {
			continue
		}
		if id, ok := sp.id(rq.stems[i]); ok && !slices.Contains(seen, id) {
			seen = append(seen, id)
			w += sp.idf[id]
		}
	}
	return exact, w, buf
}
