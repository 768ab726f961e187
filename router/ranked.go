package router

import (
	"context"
	"slices"
	"strings"
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

// rankedRoute is a Ranked answer, in the stages doc.go describes; slips
// says whether a request that hits nothing may be routed once more with
// its typing slips corrected.
func (r *Router) rankedRoute(ctx context.Context, text string, limit int, slips bool) ([]Match, error) {
	t := r.getTally()
	defer r.putTally(t)
	sp := r.specificsOf()
	rq := r.readRequest(t, sp, text)
	t.memo, rq.memo = searchMemo{}, &t.memo
	r.collect(t, sp, rq)
	pt := t.plainText(text)
	if len(t.seen) == 0 {
		// No phrase and no name: read typing slips as the agent words
		// they stand for and route again (internal/slips), else relax.
		if slips {
			if fixed, ok := r.spellerOf().Correct(t.toks); ok {
				return r.rankedRoute(ctx, strings.Join(fixed, " "), limit, false)
			}
		}
		rel, err := r.relaxedOnly(ctx, pt, sp, rq, limit)
		if err != nil {
			return nil, err
		}
		rel = conditionLast(pt, rel)
		return r.relevanceFill(ctx, text, rq, pt, r.runnersUp(pt, rel, limit), limit)
	}
	out, err := r.sure(ctx, t, sp, rq, text, limit)
	if err != nil {
		return nil, err
	}
	out = r.demoteLoneEveryday(ctx, pt, demoteAboutSubject(pt, out), t.at)
	if out, err = r.relaxedAfter(ctx, text, sp, rq, out, limit); err != nil {
		return nil, err
	}
	out = conditionLast(pt, out)
	return r.relevanceFill(ctx, text, rq, pt, r.runnersUp(pt, out, limit), limit)
}

// relaxedOnly is the answer to a request that hits no phrase and names
// no skill: relaxed matches, a described skill first (collect.go), a
// question about a subject left relaxed (order.go).
func (r *Router) relaxedOnly(ctx context.Context, pt *plainText, sp *specifics, rq request, limit int) ([]Match, error) {
	rel, err := r.relaxed(ctx, pt.text, limit, sp, rq, false)
	if err != nil {
		return nil, err
	}
	rel = demoteAboutSubject(pt, r.describedFirst(pt.text, rq, rel))
	if limit > 0 && len(rel) > limit {
		rel = rel[:limit]
	}
	return rel, nil
}

// sure weighs and orders the skills collect found (keys: rankedKey;
// evidence and relevance within a tier: weigh) and returns the first
// limit of them as matches, a weak leader challenged by the best relaxed
// match (challenge). t.at holds each match's skill, or nothing when a
// challenge was read.
func (r *Router) sure(ctx context.Context, t *hitTally, sp *specifics, rq request, text string, limit int) ([]Match, error) {
	cands := t.candidates()
	for i := range cands {
		t.count[cands[i].skill] = uint32(i + 1)
	}
	for _, s := range t.named {
		cands[t.count[s]-1].named = true
	}
	for i := range cands {
		cands[i].key = r.rankedKey(&cands[i])
	}
	// Evidence and relevance only reorder within a tier (equal exact hit,
	// name rule and score), so they are computed for the tiers that reach
	// into the first limit results.
	order, err := rank(cands, limit, true, &t.rank, func(which []int) error {
		r.weigh(t, sp, &rq, t.reqP, cands, which)
		r.relevance(text, &rq, cands, which, t)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := r.matches(cands, order, t.phraseHits(r.phrases, cands, order), true)
	nameTier(t, &rq, cands, order, out)
	if len(out) > 0 && out[0].Tier == TierPhrase && out[0].Score == 1 && cands[order[0]].exact == 0 && len(rq.words) >= challengeRequest {
		t.at = t.at[:0] // the challenger may reorder out
		return r.challenge(ctx, text, rq, cands[order[0]].skill, out, limit)
	}
	t.at = t.at[:0]
	for _, k := range order {
		t.at = append(t.at, cands[k].skill)
	}
	return out, nil
}

// nameTier gives the matches found by name alone, no phrase hit, tier
// name and, as their hits, the request's words, or the words that say
// the skill's command.
func nameTier(t *hitTally, rq *request, cands []candidate, order []int, out []Match) {
	var words []string // rq.words, copied out of the tally once
	for i, k := range order {
		if cands[k].score != 0 {
			continue
		}
		if words == nil && len(rq.words) > 0 {
			words = slices.Clone(rq.words)
		}
		out[i].Tier = TierName
		out[i].Hits = words
		for _, c := range t.said {
			if c.skill == cands[k].skill {
				out[i].Hits = slices.Clone(t.toks[c.at : c.at+c.n])
			}
		}
	}
}

// relaxedAfter appends to out (the sure matches and a challenger) the
// best relaxed matches it lacks, up to limit in all (relaxedLimit for 0),
// as relaxed: the sure answer is unchanged, and Limit 1 (run) gets none.
func (r *Router) relaxedAfter(ctx context.Context, text string, sp *specifics, rq request, out []Match, limit int) ([]Match, error) {
	want := limit
	if want == 0 {
		want = relaxedLimit
	}
	if len(out) >= want || r.late.pending() {
		// While the index builds in the background, sure matches get no
		// relaxed ones after them: those would wait for the build.
		return out, nil
	}
	rel, err := r.relaxed(ctx, text, want+len(out), sp, rq, true)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// A background build that failed fails relaxed routes; the sure
		// matches stand without them.
		return out, nil
	}
	for _, m := range rel {
		if len(out) == want {
			break
		}
		if !holdsSkill(out, m.Name, m.Z) {
			out = append(out, m)
		}
	}
	return out, nil
}

// challengeWords is how many request words a relaxed match must account
// for to go ahead of a one-phrase leader, challengeRatio how much more
// relevant it must be, and challengeRequest how many content words the
// request needs for the challenge at all: in a shorter one the phrase is
// the intent (and the short requests most routes are skip its search).
const (
	challengeWords   = 4
	challengeRatio   = 1.5
	challengeRequest = 7
)

// challenge lets the best relaxed match, as relaxed, go ahead of a weak
// phrase leader (lead, out[0]: one phrase of a longer request) when its
// fields account for challengeWords request words and its relevance is
// challengeRatio times the leader's.
func (r *Router) challenge(ctx context.Context, text string, rq request, lead int, out []Match, limit int) ([]Match, error) {
	rel, _, res, err := r.relaxedSearchWith(ctx, text, rq, 1, nil, false)
	if err != nil || len(rel) == 0 || len(rel[0].Hits) < challengeWords || rel[0].Name == out[0].Name {
		return out, err
	}
	leadRel := 0.0
	for _, h := range res {
		leadRel = h.score // when the leader is not among the hits, at most the last one's
		if h.skill == lead {
			break
		}
	}
	if rel[0].Relevance < challengeRatio*leadRel {
		return out, nil
	}
	kept := make([]Match, 0, len(out)+1)
	kept = append(kept, rel[0])
	for _, m := range out {
		if m.Name != rel[0].Name {
			kept = append(kept, m)
		}
	}
	if limit > 0 && len(kept) > limit {
		kept = kept[:limit]
	}
	return kept, nil
}
