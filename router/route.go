package router

import (
	"cmp"
	"slices"
)

// candidate is one skill with phrase hits, before it becomes a Match. It
// holds no pointers, so candidate lists are cheap to allocate and move.
type candidate struct {
	key   uint64 // sort key: see specKey and routeRanked
	skill int
	exact int // phrases hit token for token (agent3md/1 route)
	score int // phrases hit (stems in Ranked; equal to exact in Spec)
	hit0  int // its hits are hits[hit0:hit0+score] of the sorted hit list
	rel   float64
}

// A phrase hit is packed as skill<<33 | ord<<1 | exact, so sorting hits
// groups them by skill in trigger order.
func packHit(skill, ord uint32, exact bool) uint64 {
	h := uint64(skill)<<33 | uint64(ord)<<1
	if exact {
		h |= 1
	}
	return h
}

// routeSpec is agent3md/1 §2 route, exactly.
func (r *Router) routeSpec(text string, limit int) []Match {
	req := r.phrases.exact.lookup(nil, appendTokens(nil, text))
	var hits []uint64
	r.phrases.exact.each(req, func(p uint32) {
		hits = append(hits, packHit(r.phrases.skillOf[p], r.phrases.ordOf[p], true))
	})
	cands := group(hits)
	for i := range cands {
		cands[i].key = r.specKey(&cands[i])
	}
	end := topCandidates(cands, limit)
	if limit == 0 || limit > end {
		limit = end
	}
	return r.matches(cands, hits, firstN(limit), false)
}

// topCandidates moves every candidate whose tier (key>>32) is at or before
// the limit-th one's to the front, sorted by key, and returns how many
// that is. With limit 0 everything is sorted. Sorting only that window
// keeps a request that hits thousands of skills cheap when the caller
// wants ten.
func topCandidates(cands []candidate, limit int) int {
	if limit == 0 || limit >= len(cands) {
		sortCandidates(cands)
		return len(cands)
	}
	keys := make([]uint64, len(cands))
	for i := range cands {
		keys[i] = cands[i].key
	}
	slices.Sort(keys)
	tier := keys[limit-1] >> 32
	end := 0
	for i := range cands {
		if cands[i].key>>32 <= tier {
			cands[i], cands[end] = cands[end], cands[i]
			end++
		}
	}
	sortCandidates(cands[:end])
	return end
}

// sortCandidates sorts by key, moving small (key, index) pairs rather
// than whole candidates.
func sortCandidates(cands []candidate) {
	type keyed struct {
		key uint64
		i   int
	}
	ks := make([]keyed, len(cands))
	for i, c := range cands {
		ks[i] = keyed{c.key, i}
	}
	slices.SortFunc(ks, func(a, b keyed) int { return cmp.Compare(a.key, b.key) })
	sorted := make([]candidate, len(cands))
	for i, k := range ks {
		sorted[i] = cands[k.i]
	}
	copy(cands, sorted)
}

// specKey orders by score desc, then z asc (agent3md/1 §2); zRank also
// breaks ties of equal z by name and position, so the order is total.
func (r *Router) specKey(c *candidate) uint64 {
	return uint64(maxScore-min(c.score, maxScore))<<32 | uint64(r.zRank[c.skill])
}

const maxScore = 1<<31 - 1

// zOrder ranks skills by z, then name, then position.
func zOrder(skills []Skill) []uint32 {
	order := make([]uint32, len(skills))
	for i := range order {
		order[i] = uint32(i)
	}
	less := func(a, b uint32) int {
		sa, sb := &skills[a], &skills[b]
		return cmp.Or(cmp.Compare(sa.Z, sb.Z), cmp.Compare(sa.Name, sb.Name), cmp.Compare(a, b))
	}
	if !slices.IsSortedFunc(order, less) { // agent files are usually in z order already
		slices.SortFunc(order, less)
	}
	rank := make([]uint32, len(skills))
	for pos, s := range order {
		rank[s] = uint32(pos)
	}
	return rank
}

// group sorts phrase hits and folds them into one candidate per skill.
func group(hits []uint64) []candidate {
	slices.Sort(hits)
	out := make([]candidate, 0, len(hits))
	for i := 0; i < len(hits); {
		skill := hits[i] >> 33
		c := candidate{skill: int(skill), hit0: i}
		j := i
		for ; j < len(hits) && hits[j]>>33 == skill; j++ {
			c.exact += int(hits[j] & 1)
		}
		c.score = j - i
		out = append(out, c)
		i = j
	}
	return out
}

// firstN is 0, 1, ..., n-1.
func firstN(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// matches turns cands[order[0]], cands[order[1]], ... into phrase-tier
// matches; hits is the sorted hit list the candidates point into.
func (r *Router) matches(cands []candidate, hits []uint64, order []int, ranked bool) []Match {
	n := 0
	for _, k := range order {
		n += cands[k].score
	}
	all := make([]string, n) // one backing array for every match's hits
	out := make([]Match, len(order))
	for i, k := range order {
		c := &cands[k]
		s := &r.skills[c.skill]
		phrases := all[:c.score:c.score]
		all = all[c.score:]
		for k, h := range hits[c.hit0 : c.hit0+c.score] {
			phrases[k] = s.Triggers[uint32(h>>1)]
		}
		out[i] = Match{Name: s.Name, Z: s.Z, Score: c.score, Hits: phrases, Tier: TierPhrase}
		if ranked {
			out[i].Relevance = c.rel
		}
	}
	return out
}
