package router

import (
	"slices"

	"github.com/agent3md/agent3md/internal/wordlist"
)

// A trigger phrase is all-or-nothing in the phrase tier: "bounce the
// service" hits only a request that says bounce, the and service. People
// leave out the words a phrase spells the intent with ("payments-api is
// hanging, bounce it"), so in Ranked mode's relaxed tier a phrase whose
// informative words are all in the request counts as evidence: its
// skill may be a relaxed match on fewer request words than
// relaxedMinWords (relaxedEvidence.enough), still to be confirmed, and
// still needing the evidence bar (one trigger word reaches it). Spec
// mode never reads this.
//
// A word of a phrase is informative unless it is a stop word, or common:
// held by more than commonShare of the agent's skills in their triggers
// or name (specifics: "check" in an agent where every skill checks
// something), or one of English's commonest words (wordlist.Common:
// "service", "restart", "the"). The agent alone cannot tell: in an
// agent of eight skills every word is rare, and "service" is one that a
// request names in its own way ("payments-api"). A phrase with no
// informative word never counts, so "restart the service" needs its
// words as before, and a phrase with one counts only when no other
// skill's triggers or name use that word: one shared word is no more
// telling in part of a phrase than alone (near misses that reuse an
// agent's word drew relaxed matches through such phrases).

// commonShare: a stem more than this share of the agent's skills use in
// their triggers or name says little about which is meant.
const commonShare = 0.25

// partialPhrase reports whether one of skill's trigger phrases has at
// least one informative word and all of them among the request's stems
// (rq.ids).
func (r *Router) partialPhrase(sp *specifics, rq request, skill int) bool {
	_, _, triggers := r.src.Phrases(skill)
	var onStack [16]string
	for _, p := range triggers {
		toks := appendTokens(onStack[:0], p)
		informative, all, own := 0, true, false
		for _, tok := range toks {
			if stopWords[tok] {
				continue
			}
			id, ok := sp.id(routeStem(tok))
			if ok && (sp.common(id) || wordlist.Common(tok)) {
				continue
			}
			informative++
			own = own || ok && sp.df[id] == 1
			if _, held := slices.BinarySearch(rq.ids, id); !ok || !held {
				all = false
				break
			}
		}
		if all && (informative > 1 || informative == 1 && own) {
			return true
		}
	}
	return false
}

// common reports whether more than commonShare of the agent's skills use
// stem id in their triggers or name.
func (sp *specifics) common(id uint32) bool {
	return int(id) < len(sp.df) && float64(sp.df[id]) > commonShare*float64(sp.skills)
}
