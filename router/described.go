package router

import (
	"slices"

	"github.com/agent3md/agent3md/internal/wordlist"
)

// TierDescribed marks a Ranked match found because the request says a
// phrase of the skill's description that no other skill's name or
// description holds: two adjacent content words, one of them not among
// English's commonest ("write a semgrep rule" for the one skill whose
// description says "semgrep rule"). It is what a skills folder, which
// has no trigger phrases, offers as evidence a route may be sure of.
const TierDescribed = "described"

// pairKey is two adjacent content words, by their stems.
type pairKey struct{ a, b string }

// pairBook files every pair of adjacent content words of each skill's
// name and description under the skill that holds it; a pair two skills
// hold is filed under none (-1): it tells them apart from nothing. name
// marks the pairs of a name.
type pairBook struct {
	owner map[pairKey]int32
	name  map[pairKey]bool
}

// newPairBook reads every skill of src.
func newPairBook(src Source) *pairBook {
	b := &pairBook{owner: map[pairKey]int32{}, name: map[pairKey]bool{}}
	for i := range src.Len() {
		s := src.Skill(i)
		seen := map[pairKey]bool{}
		for k, field := range []string{s.Name, s.Description} {
			eachPair(field, func(p pairKey, _ bool, _, _ string) {
				if k == 0 {
					b.name[p] = true
				}
				if seen[p] {
					return
				}
				seen[p] = true
				if o, ok := b.owner[p]; ok && o != int32(i) {
					b.owner[p] = -1
				} else if !ok {
					b.owner[p] = int32(i)
				}
			})
		}
	}
	return b
}

// eachPair calls f with each pair of adjacent content words of text (stop
// words skipped, words of unspaced scripts left out: the segmenter, not
// adjacency, says where their words are), and whether one of the two is
// not among English's commonest words, and the two words as written.
func eachPair(text string, f func(p pairKey, rare bool, first, second string)) {
	eachPairOf(appendTokens(nil, text), nil, f)
}

// eachPairOf is eachPair over text's tokens (appendTokens) and, when
// known, their stems (routeStem), one per token.
func eachPairOf(toks, stems []string, f func(p pairKey, rare bool, first, second string)) {
	prev, prevTok, prevRare := "", "", false
	for i, tok := range toks {
		if stopWords[tok] || len(tok) < 2 {
			continue
		}
		if allUnspaced(tok) {
			prev = ""
			continue
		}
		var st string
		if stems != nil {
			st = stems[i]
		} else {
			st = routeStem(tok)
		}
		rare := !wordlist.Common(tok) // tokens are lowercase
		if prev != "" && prev != st {
			f(pairKey{prev, st}, rare || prevRare, prevTok, tok)
		}
		prev, prevTok, prevRare = st, tok, rare
	}
}

// described returns the one skill the request describes (-1 when none
// or when two skills tie) by the distinctive pairs of it it says, with
// whether they come from its name, and the pairs' words. toks and stems
// are the request's tokens and stems (eachPairOf).
func (b *pairBook) described(toks, stems []string) (skill int, byName bool, words []string) {
	type owned struct {
		skill int32
		n     int
		named bool
		said  []string
	}
	var onStack [4]owned
	found := onStack[:0]
	eachPairOf(toks, stems, func(p pairKey, rare bool, first, second string) {
		o, ok := b.owner[p]
		if !ok || o < 0 || !rare {
			return
		}
		k := slices.IndexFunc(found, func(f owned) bool { return f.skill == o })
		if k < 0 {
			k, found = len(found), append(found, owned{skill: o})
		}
		f := &found[k]
		f.n++
		f.named = f.named || b.name[p]
		f.said = append(f.said, first+" "+second)
	})
	best, tie := -1, false
	for k, f := range found {
		switch {
		case best < 0 || f.n > found[best].n:
			best, tie = k, false
		case f.n == found[best].n:
			tie = true
		}
	}
	if best < 0 || tie {
		return -1, false, nil
	}
	return int(found[best].skill), found[best].named, found[best].said
}

// pairsOf returns the agent's pair book, built on first use.
func (r *Router) pairsOf() *pairBook {
	r.pairsOnce.Do(func() { r.pairs = newPairBook(r.src) })
	return r.pairs
}

// describedFirst makes sure the first of rel, the relaxed matches of a
// request nothing hit or named, when it is the skill the request
// describes (pairBook), or puts that skill first when rel is empty:
// TierName when a pair of its name says it, TierDescribed when its
// description's does. On the development sets over skills folders every
// match it made sure was right; letting it overtake the relaxed tier's
// first cost three right first answers of 98.
//
// rq is the request as read (its tokens and stems); text its text, read
// again when it holds an unspaced script, which the route's tokens cut at
// the agent's words and pairs do not.
func (r *Router) describedFirst(text string, rq request, rel []Match) []Match {
	toks, stems := rq.toks, rq.stems
	if hasUnspaced(text) {
		toks, stems = appendTokens(nil, text), nil
	}
	s, byName, words := r.pairsOf().described(toks, stems)
	if s < 0 {
		return rel
	}
	sk := r.src.Skill(s)
	if len(rel) > 0 && (rel[0].Name != sk.Name || rel[0].Z != sk.Z) {
		// Two signals disagree: the relaxed tier's relevance leads with
		// another skill, and its order stands, as a guess.
		return rel
	}
	m := Match{Name: sk.Name, Z: sk.Z, Hits: words, Tier: TierDescribed}
	if byName {
		m.Tier = TierName
	}
	for i, o := range rel {
		if o.Name == sk.Name && o.Z == sk.Z {
			m.Relevance = o.Relevance
			rel = append(rel[:i:i], rel[i+1:]...)
			break
		}
	}
	return append([]Match{m}, rel...)
}
