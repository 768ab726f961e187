package router

import (
	"cmp"
	"slices"
)

// rank returns the positions in cands of the first limit candidates (all
// when limit is 0), in order: by tier (key>>32), then, when byRel, by
// whether the request holds the whole name, by evidence and by relevance,
// all descending, then by key (z).
//
// Only the tiers that reach into the first limit are ordered, and a tier
// that straddles the limit only has its best few selected, so a request
// that hits thousands of skills costs little more than a pass over them
// when the caller wants ten. When byRel, relevance is called first with
// the positions whose order it decides, the members of those tiers that
// share their tier with another, and must set their rel.
func rank(cands []candidate, limit int, byRel bool, s *rankScratch, relevance func(which []int) error) ([]int, error) {
	if limit == 0 || limit > len(cands) {
		limit = len(cands)
	}
	// The tiers present, each with its members. There are few (exact or
	// not, times the distinct phrase counts), so a linear search finds a
	// candidate's tier; members go in one buffer, bucketed by tier.
	tiers := s.tiers[:0]
	var byTier map[uint64]int // once tiers are too many to search
	tierOf := slices.Grow(s.buf[:0], 2*len(cands))[:2*len(cands)]
	last := -1
	for i := range cands {
		t := cands[i].key >> 32
		if last < 0 || tiers[last].tier != t {
			if byTier != nil {
				last = -1
				if k, ok := byTier[t]; ok {
					last = k
				}
			} else {
				last = slices.IndexFunc(tiers, func(r tierRun) bool { return r.tier == t })
			}
			if last < 0 {
				tiers = append(tiers, tierRun{tier: t})
				last = len(tiers) - 1
				if byTier != nil {
					byTier[t] = last
				} else if len(tiers) > maxLinearTiers {
					byTier = make(map[uint64]int, 2*len(tiers))
					for k, r := range tiers {
						byTier[r.tier] = k
					}
				}
			}
		}
		tierOf[i] = last
		tiers[last].n++
	}
	members := tierOf[len(cands):]
	start := 0
	for k := range tiers {
		tiers[k].members = members[start : start : start+tiers[k].n]
		start += tiers[k].n
	}
	for i, k := range tierOf[:len(cands)] {
		tiers[k].members = append(tiers[k].members, i)
	}
	s.buf, s.tiers = tierOf, tiers
	slices.SortFunc(tiers, func(a, b tierRun) int { return cmp.Compare(a.tier, b.tier) })
	keep, total := 0, 0
	for keep < len(tiers) && total < limit {
		total += len(tiers[keep].members)
		keep++
	}
	tiers = tiers[:keep]
	if byRel && relevance != nil {
		which := s.which[:0]
		for _, t := range tiers {
			if len(t.members) > 1 {
				which = append(which, t.members...)
			}
		}
		s.which = which
		if len(which) > 0 {
			if err := relevance(which); err != nil {
				return nil, err
			}
		}
	}
	// Keys are distinct, so this is a total order.
	order := func(a, b int) int {
		ca, cb := &cands[a], &cands[b]
		if byRel {
			if ca.full != cb.full {
				return b2i(cb.full) - b2i(ca.full)
			}
			if c := cmp.Compare(cb.ev, ca.ev); c != 0 {
				return c
			}
			if c := cmp.Compare(cb.rel, ca.rel); c != 0 {
				return c
			}
		}
		return cmp.Compare(ca.key, cb.key)
	}
	out := slices.Grow(s.out[:0], limit)
	for _, t := range tiers {
		out = appendBest(out, t.members, limit-len(out), order)
	}
	s.out = out
	return out, nil
}

// rankScratch is rank's reusable memory, pooled with a route's tally. The
// order rank returns lives in it: it is valid until the next rank with the
// same scratch.
type rankScratch struct {
	buf   []int // tier of each candidate, then the members bucketed by tier
	tiers []tierRun
	which []int // candidates whose relevance is asked for
	out   []int
}

// tierRun is one tier of rank's candidates and its members.
type tierRun struct {
	tier    uint64
	n       int
	members []int
}

// maxLinearTiers is how many tiers are searched linearly before a map
// takes over: agents rarely give more than a handful, but one whose
// skills hit hundreds of phrases each could.
const maxLinearTiers = 32

// selectMax is the largest want for which appendBest selects through an
// insertion buffer; beyond it a sort is cheaper.
const selectMax = 64

// appendBest appends to out the first want of members by order, in order.
func appendBest(out, members []int, want int, order func(a, b int) int) []int {
	if want >= len(members) || want > selectMax {
		slices.SortFunc(members, order)
		return append(out, members[:min(want, len(members))]...)
	}
	before := func(a, b int) bool { return order(a, b) < 0 }
	base := len(out)
	for _, k := range members {
		n := len(out) - base
		if n == want && !before(k, out[len(out)-1]) {
			continue
		}
		lo, hi := base, len(out)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if before(k, out[m]) {
				hi = m
			} else {
				lo = m + 1
			}
		}
		if n < want {
			out = append(out, 0)
		}
		copy(out[lo+1:], out[lo:len(out)-1])
		out[lo] = k
	}
	return out
}
