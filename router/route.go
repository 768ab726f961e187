package router

import (
	"cmp"
	"slices"
)

// candidate is one skill with phrase hits, before it becomes a Match.
type candidate struct {
	skill int
	exact int      // phrases hit token for token (agent3md/1 route)
	score int      // phrases hit (stems in Ranked; equal to exact in Spec)
	ords  []uint32 // hit phrases' indexes in the skill's Triggers, ascending
	rel   float64
}

// phraseHit is one phrase a request hit.
type phraseHit struct {
	skill, ord uint32
	exact      bool
}

// routeSpec is agent3md/1 §2 route, exactly.
func (r *Router) routeSpec(text string, limit int) []Match {
	req := r.phrases.exact.lookup(nil, appendTokens(nil, text))
	var hits []phraseHit
	r.phrases.exact.each(req, func(p uint32) {
		hits = append(hits, phraseHit{r.phrases.skillOf[p], r.phrases.ordOf[p], true})
	})
	cands := group(hits)
	slices.SortFunc(cands, r.specOrder)
	return r.matches(cands, limit, false)
}

// specOrder is score desc, then z asc; name and position only make the
// order total when a caller hands in skills with equal z.
func (r *Router) specOrder(a, b candidate) int {
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	return r.byZ(a, b)
}

func (r *Router) byZ(a, b candidate) int {
	sa, sb := &r.skills[a.skill], &r.skills[b.skill]
	if c := cmp.Compare(sa.Z, sb.Z); c != 0 {
		return c
	}
	if c := cmp.Compare(sa.Name, sb.Name); c != 0 {
		return c
	}
	return cmp.Compare(a.skill, b.skill)
}

// group folds phrase hits into one candidate per skill.
func group(hits []phraseHit) []candidate {
	slices.SortFunc(hits, func(a, b phraseHit) int {
		if c := cmp.Compare(a.skill, b.skill); c != 0 {
			return c
		}
		return cmp.Compare(a.ord, b.ord)
	})
	ords := make([]uint32, len(hits))
	var out []candidate
	for i := 0; i < len(hits); {
		j := i
		c := candidate{skill: int(hits[i].skill)}
		for ; j < len(hits) && hits[j].skill == hits[i].skill; j++ {
			ords[j] = hits[j].ord
			if hits[j].exact {
				c.exact++
			}
		}
		c.score = j - i
		c.ords = ords[i:j:j]
		out = append(out, c)
		i = j
	}
	return out
}

// matches turns the first limit candidates (all when limit is 0) into
// phrase-tier matches.
func (r *Router) matches(cands []candidate, limit int, ranked bool) []Match {
	if limit > 0 && len(cands) > limit {
		cands = cands[:limit]
	}
	out := make([]Match, len(cands))
	for i, c := range cands {
		s := &r.skills[c.skill]
		hits := make([]string, len(c.ords))
		for k, o := range c.ords {
			hits[k] = s.Triggers[o]
		}
		out[i] = Match{Name: s.Name, Z: s.Z, Score: c.score, Hits: hits, Tier: TierPhrase}
		if ranked {
			out[i].Relevance = c.rel
		}
	}
	return out
}
