package router

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
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

// routeRanked lifts phrase matching to stems and orders the skills found
// (docs/architecture.md §5):
//
//  1. skills with a phrase hit token for token (Spec's answer) before
//     those found only through stems or by name;
//  2. within each, skills the request names: whose name holds every
//     content word of a short request ("tests", "commit", "run the
//     tests"), or whose command it says ("csvlook events.csv";
//     commands.go);
//  3. phrases hit, descending;
//  4. the request says the skill's whole name ("summarize the invoice");
//  5. evidence: the specificity of the request words the phrases hit and
//     the name account for (a word few of the agent's skills use
//     outweighs one many use; see weigh);
//  6. bleve relevance, then z.
//
// When nothing hits and nothing is named, it falls back to relaxed matches;
// a leader found only through the stems of one phrase in a long request
// may be overtaken by one (challenge).
func (r *Router) routeRanked(ctx context.Context, text string, limit int) ([]Match, error) {
	return r.rankedRoute(ctx, text, limit, true)
}

// rankedRoute is routeRanked; slips says whether a request that hits
// nothing may be read again with its typing slips corrected (once: the
// corrected request is routed with slips false).
func (r *Router) rankedRoute(ctx context.Context, text string, limit int, slips bool) ([]Match, error) {
	t := r.getTally()
	defer r.putTally(t)
	// The request as read lives in the tally's memory, reused route after
	// route; what a Match keeps of it is copied.
	toks := appendTokens(t.toks[:0], text)
	if hasUnspaced(text) {
		// A run of Chinese, Japanese or Korean is read as the agent's
		// words it holds (segment.go).
		if words, cut := r.segmenterOf().split(nil, toks); cut {
			toks = words
		}
	}
	stems := appendStems(t.stems[:0], toks)
	reqE := r.phrases.exact.lookup(t.reqE[:0], toks)
	reqS := r.phrases.stems.lookupStems(t.reqS[:0], toks, stems, &t.pair)
	sp := r.specificsOf()
	rq := sp.readRequest(t.rq, toks, stems)
	t.toks, t.stems, t.reqE, t.reqS, t.rq = toks, stems, reqE, reqS, rq
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
	named := t.named[:0]
	sp.namedBy(rq, func(s int) {
		if t.count[s] == 0 {
			t.seen = append(t.seen, uint32(s))
		}
		named = append(named, s)
	})
	sp.commandedBy(rq, func(s, at, n int) {
		if slices.Contains(named, s) {
			return
		}
		if t.count[s] == 0 {
			t.seen = append(t.seen, uint32(s))
		}
		named = append(named, s)
		t.said = append(t.said, said{s, at, n})
	})
	t.named = named
	if len(t.seen) == 0 {
		// No phrase and no name: read typing slips as the agent words
		// they stand for and route again (spelling.go), else relax.
		if slips {
			if fixed, ok := r.spellerOf().correct(toks); ok {
				return r.rankedRoute(ctx, strings.Join(fixed, " "), limit, false)
			}
		}
		rel, err := r.relaxed(ctx, text, limit, sp, rq, false)
		if err != nil {
			return nil, err
		}
		rel = demoteAboutSubject(text, r.describedFirst(text, rel))
		if limit > 0 && len(rel) > limit {
			rel = rel[:limit]
		}
		return r.runnersUp(&plainText{text: text}, rel, limit), nil
	}
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
	// At least specificWindow deep, so that specificFirst weighs the same
	// matches whatever the limit: a shorter answer stays a prefix of a
	// longer one.
	deep := limit
	if limit > 0 && limit < specificWindow {
		deep = specificWindow
	}
	order, err := rank(cands, deep, true, &t.rank, func(which []int) error {
		t.reqP = r.phrases.exact.lookupPlurals(t.reqP[:0], toks)
		r.weigh(t, sp, rq, t.reqP, cands, which)
		return r.relevance(ctx, text, rq, cands, which, t)
	})
	if err != nil {
		return nil, err
	}
	out := r.matches(cands, order, t.phraseHits(x, cands, order), true)
	var words []string // rq.words, copied out of the tally once
	for i, k := range order {
		if cands[k].score == 0 { // named, no phrase hit: the name is the evidence
			if words == nil && len(rq.words) > 0 {
				words = slices.Clone(rq.words)
			}
			out[i].Tier = TierName
			out[i].Hits = words
			for _, c := range t.said {
				if c.skill == cands[k].skill { // by its command: the words that say it
					out[i].Hits = slices.Clone(toks[c.at : c.at+c.n])
				}
			}
		}
	}
	if len(out) > 0 && out[0].Tier == TierPhrase && out[0].Score == 1 && cands[order[0]].exact == 0 && len(rq.words) >= challengeRequest {
		if out, err = r.challenge(ctx, text, rq, cands[order[0]].skill, out, deep); err != nil {
			return nil, err
		}
	}
	out = r.specificFirst(sp, rq, out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	pt := &plainText{text: text}
	out = r.demoteLoneEveryday(pt, demoteAboutSubject(text, out))
	out, err = r.relaxedAfter(ctx, text, sp, rq, out, limit)
	if err != nil {
		return nil, err
	}
	return r.runnersUp(pt, out, limit), nil
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
	rel, _, res, err := r.relaxedSearch(ctx, text, rq, 1)
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

// lookupPlurals is lookup over toks and, for each, the forms it has as a
// plural or a singular by English's regular -s and -es: for evidence, a
// word met in another number ("deploys" for "deploy") counts as met as
// written, not through a stem.
func (v *vocabLists) lookupPlurals(dst []uint32, toks []string) []uint32 {
	var onStack [32]byte
	buf := onStack[:0]
	try := func(b []byte) {
		if id, ok := v.ids[string(b)]; ok {
			dst = append(dst, id)
		}
	}
	for _, tok := range toks {
		buf = append(buf[:0], tok...)
		try(buf)
		try(append(buf, 's'))
		try(append(buf, "es"...))
		if n := len(tok); n > 3 && tok[n-1] == 's' {
			try(buf[:n-1])
			if tok[n-2] == 'e' {
				try(buf[:n-2])
			}
		}
	}
	slices.Sort(dst)
	return slices.Compact(dst)
}

// stemOnlyWeight is how much a request word met only through its stem
// counts: the word the user wrote is weaker evidence when it is a variant
// of the skill's than when it is the skill's own.
const stemOnlyWeight = 0.75

// lookupStems is lookup over the Porter stems of a request's tokens
// (stems, one per token) and the stem of each adjacent pair written as
// one word, so "crash-looping" meets a trigger "crashloop" and "roll
// back" meets "rollback". A pair is joined in *buf, memory the caller
// keeps: a pair whose stem is remembered costs no allocation.
func (v *vocabLists) lookupStems(dst []uint32, toks, stems []string, buf *[]byte) []uint32 {
	for _, st := range stems {
		if id, ok := v.ids[st]; ok {
			dst = append(dst, id)
		}
	}
	b := *buf
	for i := 1; i < len(toks); i++ {
		b = append(append(b[:0], toks[i-1]...), toks[i]...)
		if id, ok := v.ids[routeStemBytes(b)]; ok {
			dst = append(dst, id)
		}
	}
	*buf = b
	slices.Sort(dst)
	return slices.Compact(dst)
}

// appendStems appends the Porter stem of each token to dst.
func appendStems(dst, toks []string) []string {
	for _, tok := range toks {
		dst = append(dst, routeStem(tok))
	}
	return dst
}

// routeStems remembers the stems of request words: requests repeat a
// small vocabulary, and a Porter stem costs far more than a lookup.
var routeStems struct {
	cache sync.Map // string -> string
	size  atomic.Int64
}

// routeStem is stem behind routeStems, bounded like the analyzer's cache.
func routeStem(tok string) string {
	if v, ok := routeStems.cache.Load(tok); ok {
		return v.(string)
	}
	return storeStem(tok)
}

// routeStemBytes is routeStem of string(b), which it only builds when
// the stem is not remembered.
func routeStemBytes(b []byte) string {
	if v, ok := routeStems.cache.Load(string(b)); ok {
		return v.(string)
	}
	return storeStem(string(b))
}

// storeStem stems tok and remembers it while routeStems has room.
func storeStem(tok string) string {
	st := stem(tok)
	if routeStems.size.Load() < stemCacheMax {
		if _, loaded := routeStems.cache.LoadOrStore(tok, st); !loaded {
			routeStems.size.Add(1)
		}
	}
	return st
}

// relevance fills in the bleve relevance of cands[which] for the request
// text (read as rq), in the memory of t.
func (r *Router) relevance(ctx context.Context, text string, rq request, all []candidate, which []int, t *hitTally) error {
	if r.scorer == nil || len(which) == 0 {
		return nil
	}
	t.terms = requestTerms(r.an, text, rq.toks, rq.stems, false, t.terms).text
	return r.scorer.relevanceOf(ctx, t.terms, all, which, &t.ord)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
