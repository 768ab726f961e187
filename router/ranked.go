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

// routeRanked is a Ranked answer: its stages, and the keys and signals
// that order it, are described in doc.go.
func (r *Router) routeRanked(ctx context.Context, text string, limit int) ([]Match, error) {
	return r.rankedRoute(ctx, text, limit, true)
}

// rankedRoute is routeRanked; slips says whether a request that hits
// nothing may be read again with its typing slips corrected (once: the
// corrected request is routed with slips false). Its stages, each in its
// own file: read the request (request.go), collect the skills its
// phrases and names find (collect.go), weigh those whose order the tier
// leaves open (weigh.go), order them (order.go), and fill the list with
// relaxed matches (relaxed.go) and runners-up (runnersup.go).
func (r *Router) rankedRoute(ctx context.Context, text string, limit int, slips bool) ([]Match, error) {
	t := r.getTally()
	defer r.putTally(t)
	sp := r.specificsOf()
	rq := r.readRequest(t, sp, text)
	r.collect(t, sp, rq)
	pt := plainTextOf(text, t.toks)
	if len(t.seen) == 0 {
		// No phrase and no name: read typing slips as the agent words
		// they stand for and route again (spelling.go), else relax.
		if slips {
			if fixed, ok := r.spellerOf().correct(t.toks); ok {
				return r.rankedRoute(ctx, strings.Join(fixed, " "), limit, false)
			}
		}
		rel, err := r.relaxedOnly(ctx, text, sp, rq, limit)
		if err != nil {
			return nil, err
		}
		return r.runnersUp(pt, rel, limit), nil
	}
	out, err := r.sure(ctx, t, sp, rq, text, limit)
	if err != nil {
		return nil, err
	}
	out = r.demoteLoneEveryday(pt, demoteAboutSubject(text, out))
	if out, err = r.relaxedAfter(ctx, text, sp, rq, out, limit); err != nil {
		return nil, err
	}
	return r.runnersUp(pt, out, limit), nil
}

// relaxedOnly is the answer to a request that hits no phrase and names
// no skill: relaxed matches, a described skill first (described.go), a
// question about a subject left relaxed (subject.go).
func (r *Router) relaxedOnly(ctx context.Context, text string, sp *specifics, rq request, limit int) ([]Match, error) {
	rel, err := r.relaxed(ctx, text, limit, sp, rq, false)
	if err != nil {
		return nil, err
	}
	rel = demoteAboutSubject(text, r.describedFirst(text, rq, rel))
	if limit > 0 && len(rel) > limit {
		rel = rel[:limit]
	}
	return rel, nil
}

// sure weighs and orders the skills collect found (keys: rankedKey;
// evidence and relevance within a tier: weigh) and returns the first
// limit of them as matches, a weak leader challenged by the best relaxed
// match (challenge).
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
	// into the first deep results: at least specificWindow, so that
	// specificFirst weighs the same matches whatever the limit (a shorter
	// answer stays a prefix of a longer one).
	deep := limit
	if limit > 0 && limit < specificWindow {
		deep = specificWindow
	}
	order, err := rank(cands, deep, true, &t.rank, func(which []int) error {
		t.reqP = r.phrases.exact.lookupPlurals(t.reqP[:0], t.toks)
		r.weigh(t, sp, rq, t.reqP, cands, which)
		r.relevance(text, rq, cands, which, t)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := r.matches(cands, order, t.phraseHits(r.phrases, cands, order), true)
	nameTier(t, rq, cands, order, out)
	if len(out) > 0 && out[0].Tier == TierPhrase && out[0].Score == 1 && cands[order[0]].exact == 0 && len(rq.words) >= challengeRequest {
		if out, err = r.challenge(ctx, text, rq, cands[order[0]].skill, out, deep); err != nil {
			return nil, err
		}
	}
	out = r.specificFirst(sp, rq, out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// nameTier gives the matches found by name alone, no phrase hit, tier
// name and, as their hits, the request's words, or the words that say
// the skill's command.
func nameTier(t *hitTally, rq request, cands []candidate, order []int, out []Match) {
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

// relaxedAfter appends to out, the sure matches (phrase and name tiers,
// and a challenger), the best relaxed matches it does not hold, up to
// limit matches in all (relaxedLimit when limit is 0): skills the
// relaxed tier's evidence keeps, before the plain ranking's runners-up
// (runnersUp). They keep their tier, so nothing about the sure answer
// changes: Limit 1 (run) never gets one beside a sure match.
func (r *Router) relaxedAfter(ctx context.Context, text string, sp *specifics, rq request, out []Match, limit int) ([]Match, error) {
	want := limit
	if want == 0 {
		want = relaxedLimit
	}
	if len(out) >= want || r.late.pending() {
		// A route answered while the index builds in the background
		// (Options.Background) has no relaxed matches after its sure
		// ones: they would wait for the build, which the sure matches
		// do not need.
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
		if !slices.ContainsFunc(out, func(o Match) bool { return o.Name == m.Name && o.Z == m.Z }) {
			out = append(out, m)
		}
	}
	return out, nil
}

// challengeWords is how many distinct request words a relaxed match must
// account for to go ahead of a phrase-tier leader that hit one phrase,
// and challengeRatio how much more relevant than the leader it must be.
// challengeRequest is how many distinct content words the request must
// have for the leader to be challenged at all: in a request this long,
// one phrase accounts for a small part of what is asked, while a shorter
// one is mostly a phrase and its object, where the phrase is the intent.
// It also keeps the challenge's search (what a relaxed route costs) off
// the short requests most routes are.
const (
	challengeWords   = 4
	challengeRatio   = 1.5
	challengeRequest = 7
)

// challenge lets the best relaxed match go ahead of a weak phrase-tier
// leader (lead, out[0]): one phrase hit, a word or two of a longer
// request, against a skill whose triggers, name, command and
// description account for challengeWords of its words or more and whose
// relevance is challengeRatio times the leader's. The relaxed match
// keeps its tier; the phrase matches follow it.
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
