package router

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agent3md/agent3md/internal/wordlist"
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
		// they stand for and route again (ranked.go), else relax.
		if slips {
			if fixed, ok := r.spellerOf().correct(t.toks); ok {
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
	out = r.demoteLoneEveryday(pt, demoteAboutSubject(pt, out), t.at)
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

// Typing slips ("atest the release binary"): when a Ranked route finds no
// phrase and no name, each request word that is neither an agent word
// nor English (internal/wordlist) is read as the one agent word a slip
// away (oneEditAway), and the request is routed again, once
// (docs/architecture.md §5). The English test keeps "plants" from "plans";
// a word with two agent words one edit away stays as it is.

// Bounds of the words a speller reads as slips: shorter words have too
// many neighbours one edit away to guess from, and longer ones are
// identifiers, not typing.
const (
	minSlipLen = 4
	maxSlipLen = 24
	// minSubstLen is the shortest word read with one wrong letter: a
	// four-letter word has too many real neighbours that way ("wget",
	// "gget").
	minSubstLen = 5
	// maxSlips bounds the words of one request a speller tries to
	// correct (each costs a few hundred lookups).
	maxSlips = 8
)

// speller holds the words a slip may be corrected to: the agent's trigger
// and name words of minSlipLen or more letters a-z.
type speller struct {
	words map[string]struct{}
	// fixes remembers the verdict on each uncommon word correct has read
	// (its fix, or ""), fixCount of them, up to maxFixes: requests repeat
	// their words, and a verdict costs a search of English's 72,000 words
	// and, for a word not among them, hundreds of lookups one edit away.
	fixes    sync.Map // string -> string
	fixCount atomic.Int64
}

// maxFixes bounds a speller's remembered verdicts (speller.fixes).
const maxFixes = 1 << 12

// buildSpeller collects src's trigger and name words.
func buildSpeller(src Source, x *phraseIndex) *speller {
	sp := &speller{words: map[string]struct{}{}}
	add := func(w string) {
		if len(w) >= minSlipLen && len(w) <= maxSlipLen && lowerASCII(w) {
			sp.words[w] = struct{}{}
		}
	}
	for w := range x.exact.ids {
		add(w)
	}
	var toks []string
	for i := 0; i < src.Len(); i++ {
		name, _, _ := src.Phrases(i)
		toks = appendTokens(toks[:0], name)
		for _, w := range toks {
			add(w)
		}
	}
	return sp
}

// spellerOf returns r's speller, building it on first use: most routes
// hit a phrase and never need it.
func (r *Router) spellerOf() *speller {
	r.spellOnce.Do(func() { r.speller = buildSpeller(r.src, r.phrases) })
	return r.speller
}

// correct returns toks with the slips among its first maxSlips unknown
// words replaced by the agent words they stand for, and whether any was.
func (sp *speller) correct(toks []string) ([]string, bool) {
	var out []string
	tried := 0
	for i, w := range toks {
		if len(w) < minSlipLen || len(w) > maxSlipLen || !lowerASCII(w) || stopWords[w] {
			continue
		}
		if _, ok := sp.words[w]; ok {
			continue
		}
		if tried == maxSlips {
			break
		}
		tried++
		// Every common word of four letters or more is a known one, and
		// Common is a hash lookup where Known searches 72,000 words.
		if wordlist.Common(w) {
			continue
		}
		fix := sp.fixOf(w)
		if fix == "" {
			continue
		}
		if out == nil {
			out = append([]string(nil), toks...)
		}
		out[i] = fix
	}
	return out, out != nil
}

// fixOf returns the agent word the uncommon word w is a slip for, or "",
// remembered in fixes.
func (sp *speller) fixOf(w string) string {
	if fix, ok := sp.fixes.Load(w); ok {
		return fix.(string)
	}
	fix, ok := "", false
	if !wordlist.Known(w) {
		// A plural or other form of an agent word is no slip: the stems
		// meet already, and the user's word stays in the hits.
		if fix, ok = sp.oneEditAway(w); !ok || stem(fix) == stem(w) {
			fix = ""
		}
	}
	if sp.fixCount.Load() < maxFixes {
		if _, loaded := sp.fixes.LoadOrStore(strings.Clone(w), fix); !loaded {
			sp.fixCount.Add(1)
		}
	}
	return fix
}

// oneEditAway returns the one agent word (forms of one word count as
// one) a single slip from w: a letter missing ("atest"), two neighbours
// swapped ("bulid"), a letter doubled ("isssue") or, in a word of five
// letters or more, one wrong letter ("deplpy"). The first letter is taken
// as typed; a letter added at the end or a last letter changed is jargon
// more often than a slip ("xcode", "healthz"), and is not read.
func (sp *speller) oneEditAway(w string) (string, bool) {
	var found string
	n := 0
	buf := make([]byte, 0, len(w)+1)
	var foundStem string
	try := func(b []byte) bool {
		// m[string(b)] does not allocate; only a hit is kept as a string.
		if _, ok := sp.words[string(b)]; !ok || string(b) == found {
			return true
		}
		// Two forms of one word ("test", "tests" for "tets") are one
		// reading, not two.
		if st := stem(string(b)); n == 0 || st != foundStem {
			found, foundStem = string(b), st
			n++
		}
		return n < 2
	}
	for i := 1; i < len(w); i++ { // a letter doubled
		if w[i] != w[i-1] {
			continue
		}
		buf = append(append(buf[:0], w[:i]...), w[i+1:]...)
		if !try(buf) {
			return "", false
		}
	}
	for i := 1; i+1 < len(w); i++ { // two neighbours swapped
		if w[i] == w[i+1] {
			continue
		}
		buf = append(buf[:0], w...)
		buf[i], buf[i+1] = buf[i+1], buf[i]
		if !try(buf) {
			return "", false
		}
	}
	if len(w) >= minSubstLen {
		for i := 1; i+1 < len(w); i++ { // a wrong letter, inside the word
			buf = append(buf[:0], w...)
			for c := byte('a'); c <= 'z'; c++ {
				if c == w[i] {
					continue
				}
				buf[i] = c
				if !try(buf) {
					return "", false
				}
			}
		}
	}
	for i := 1; i <= len(w); i++ { // a letter missing
		for c := byte('a'); c <= 'z'; c++ {
			buf = append(append(append(buf[:0], w[:i]...), c), w[i:]...)
			if !try(buf) {
				return "", false
			}
		}
	}
	return found, n == 1
}

// lowerASCII reports whether w is made of the letters a-z only.
func lowerASCII(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}
