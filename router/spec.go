package router

import (
	"cmp"
	"slices"
)

// candidate is one skill with phrase hits, before it becomes a Match. It
// holds no pointers, so candidate lists are cheap to allocate and move.
type candidate struct {
	key   uint64 // sort key: see routeSpec and rankedKey
	skill int
	exact int // phrases hit token for token (agent3md/1 route)
	score int // phrases hit (stems in Ranked; equal to exact in Spec)
	rel   float64
	// Ranked only: the specificity of what hit (ev), whether the request
	// holds the skill's whole name (full), and whether the request is
	// made of words of the skill's name alone (named).
	ev float64
	// Request words (bits: positions in the request's ids) the hit
	// phrases hold, as written and only through stems.
	wordsExact, wordsStem uint64
	full                  bool
	named                 bool
}

// routeSpec is the reference routing of docs/format.md §10, exactly.
func (r *Router) routeSpec(text string, limit int) []Match {
	req := r.phrases.exact.lookup(nil, appendTokens(nil, text))
	t := r.getTally()
	defer r.putTally(t)
	x := r.phrases
	x.exact.each(req, func(p uint32) { t.add(x, p, true) })
	cands := t.candidates()
	for i := range cands {
		// Score descending, then z ascending (docs/format.md §10); zRank
		// also breaks ties of equal z by name and position: a total order.
		c := &cands[i]
		c.key = uint64(maxScore-min(c.score, maxScore))<<32 | uint64(r.zRank[c.skill])
	}
	order, _ := rank(cands, limit, false, &t.rank, nil)
	return r.matches(cands, order, t.phraseHits(x, cands, order), false)
}

const maxScore = 1<<31 - 1

// zOrder ranks skills by z, then name, then position.
func zOrder(skills Source) []uint32 {
	n := skills.Len()
	order := make([]uint32, n)
	zs := make([]float64, n) // read once: the sort compares each many times
	for i := range order {
		order[i] = uint32(i)
		_, zs[i], _ = skills.Phrases(i)
	}
	less := func(a, b uint32) int {
		if c := cmp.Compare(zs[a], zs[b]); c != 0 {
			return c
		}
		na, _, _ := skills.Phrases(int(a))
		nb, _, _ := skills.Phrases(int(b))
		return cmp.Or(cmp.Compare(na, nb), cmp.Compare(a, b))
	}
	if !slices.IsSortedFunc(order, less) { // agent files are usually in z order already
		slices.SortFunc(order, less)
	}
	rank := make([]uint32, n)
	for pos, s := range order {
		rank[s] = uint32(pos)
	}
	return rank
}
