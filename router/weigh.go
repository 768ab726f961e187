package router

import (
	"slices"
)

// Stage 3 of a ranked route: weigh the candidates whose order is not
// settled by their tier (order.go asks for them): evidence, the
// specificity of the request words their phrases and names account for,
// and relevance, the request's BM25 over their indexed field
// (relevance.go).

// weigh sets the evidence of cands[which]: the summed specificity of the
// distinct request words that its hit phrases or its name account for, a
// word met only through its stem ("joined" for "join") counting
// stemOnlyWeight of one met as written, and whether the request says its
// whole name. It uses the tally's counts as candidate positions;
// phraseHits resets them.
func (r *Router) weigh(t *hitTally, sp *specifics, rq request, reqP []uint32, cands []candidate, which []int) {
	x := r.phrases
	for i := range cands {
		t.count[cands[i].skill] = 0
	}
	for _, i := range which {
		t.count[cands[i].skill] = uint32(i + 1)
	}
	lastSet, lastExact := ^uint32(0), false
	lastStems, words, compound := ^uint32(0), uint64(0), 0.0
	for _, p := range t.hits {
		k := t.count[x.skillOf[p]]
		if k == 0 {
			continue
		}
		c := &cands[k-1]
		if es := x.exactSet[p]; es != lastSet {
			lastSet, lastExact = es, x.exact.covered(es, reqP)
		}
		if ss := sp.setOf[p]; ss != lastStems {
			lastStems, words, compound = ss, 0, 0
			for _, id := range sp.phraseStems(p) {
				if k, ok := slices.BinarySearch(rq.ids, id); !ok {
					// Not a request word: a compound of two adjacent ones
					// ("crash-looping" for "crashloop"), which accounts
					// for both.
					compound += 2 * sp.idf[id]
				} else if k < 64 {
					words |= 1 << k
				}
			}
		}
		if lastExact {
			c.wordsExact |= words
			c.ev += compound
		} else {
			c.wordsStem |= words
			c.ev += stemOnlyWeight * compound
		}
	}
	for _, i := range which {
		c := &cands[i]
		var nameWords uint64
		nameWords, c.full = sp.nameSaid(rq, c.skill)
		// A one-word name that the request hit as a trigger is that
		// hit again, not a second piece of evidence ("pods", "verify").
		if c.full && len(sp.names.list(c.skill)) == 1 && nameWords&^c.wordsExact == 0 {
			c.full = false
		}
		c.ev += rq.weight(c.wordsExact|nameWords) + stemOnlyWeight*rq.weight(c.wordsStem&^(c.wordsExact|nameWords))
		c.ev = roundRelevance(c.ev)
	}
}

// rankedKey orders Ranked candidates: skills with a phrase hit as written
// first (Spec's own answer: Ranked never demotes it for a skill found only
// through stems or its name), then within each of those two tiers the
// skills the request names, then by phrases hit, then z; evidence and
// relevance order each tier (see rank).
func (r *Router) rankedKey(c *candidate) uint64 {
	const maxRankedScore = 1<<30 - 1
	return uint64(1-b2i(c.exact > 0))<<63 | uint64(1-b2i(c.named))<<62 |
		uint64(maxRankedScore-min(c.score, maxRankedScore))<<32 | uint64(r.zRank[c.skill])
}

// stemOnlyWeight is how much a request word met only through its stem
// counts: the word the user wrote is weaker evidence when it is a variant
// of the skill's than when it is the skill's own.
const stemOnlyWeight = 0.75

// relevance fills in the relevance of cands[which] for the request
// text (read as rq), in the memory of t.
func (r *Router) relevance(text string, rq request, all []candidate, which []int, t *hitTally) {
	if r.scorer == nil || len(which) == 0 {
		return
	}
	t.terms = requestTerms(r.an, text, rq.toks, rq.stems, false, t.terms).text
	r.scorer.relevanceOf(t.terms, all, which)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
