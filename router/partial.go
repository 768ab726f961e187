package router

import (
	"context"
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
// skill's fields use that word (ownWord): one shared word is no more
// telling in part of a phrase than alone (near misses that reuse an
// agent's word drew relaxed matches through such phrases).

// commonShare: a stem more than this share of the agent's skills use in
// their triggers or name says little about which is meant.
const commonShare = 0.25

// partialPhrase reports whether one of skill's trigger phrases has at
// least one informative word and all of them among the request's stems
// (rq.ids). A phrase with one informative word counts only when that word
// is the skill's own (ownWord).
func (r *Router) partialPhrase(ctx context.Context, sp *specifics, rq request, skill int) bool {
	_, _, triggers := r.src.Phrases(skill)
	var onStack [16]string
	for _, p := range triggers {
		toks := appendTokens(onStack[:0], p)
		informative, all, word, stem := 0, true, uint32(0), ""
		for _, tok := range toks {
			if stopWords[tok] {
				continue
			}
			st := routeStem(tok)
			id, ok := sp.id(st)
			if ok && (sp.common(id) || wordlist.Common(tok)) {
				continue
			}
			informative++
			word, stem = id, st
			if _, held := slices.BinarySearch(rq.ids, id); !ok || !held {
				all = false
				break
			}
		}
		if all && (informative > 1 || informative == 1 && r.ownWord(ctx, sp, word, stem)) {
			return true
		}
	}
	return false
}

// ownWord reports whether the word whose stem is st (id) is one skill's
// alone: no other skill's triggers or name use it, nor its description,
// tool or inputs (the indexed fields), where the router can tell. A word that another
// skill's description also says ("cancel" in an agent whose refund
// policy says when a cancelled plan is refunded) is used in more than one
// sense across the agent, so the one word of a phrase is no sign of that
// phrase's intent ("cancel my dentist appointment").
func (r *Router) ownWord(ctx context.Context, sp *specifics, id uint32, st string) bool {
	if int(id) >= len(sp.df) || sp.df[id] != 1 {
		return false
	}
	n, ok := r.scorer.skillsHolding(ctx, st)
	return !ok || n <= 1
}

// common reports whether more than commonShare of the agent's skills use
// stem id in their triggers or name.
func (sp *specifics) common(id uint32) bool {
	return int(id) < len(sp.df) && float64(sp.df[id]) > commonShare*float64(sp.skills)
}
