package router

import "slices"

// hitTally is one route's scratch: per-skill hit counts indexed by skill,
// so phrase hits fold into candidates without sorting them, and the lists
// that grow with the hits. Tallies are pooled per Router: at 100,000
// skills the counts alone are 800 KB, and a route touches only the skills
// it hits, which it zeroes again before the tally goes back.
type hitTally struct {
	count []uint32 // phrases hit per skill; doubles as a mark in phraseHits
	exact []uint32 // of those, hit token for token
	seen  []uint32 // skills with a hit, in first-hit order
	hits  []uint32 // the phrases hit
	cands []candidate
	named []int  // skills the request names (Ranked)
	said  []said // of those, the ones named by their command
	rank  rankScratch
	// The request as routeRanked reads it: tokens, stems, ids in the
	// exact, stem and plural lookups, the pair buffer of lookupStems, and
	// the request's words.
	toks, stems      []string
	reqE, reqS, reqP []uint32
	pair             []byte
	rq               request
	memo             searchMemo // the route's relaxed search (fill.go)
	terms            []term     // the request's terms, for relevance
	// phraseHits' memory.
	flat      []uint32
	off, fill []int
	ords      [][]uint32
}

func (r *Router) getTally() *hitTally {
	if t, ok := r.tallies.Get().(*hitTally); ok {
		return t
	}
	n := r.src.Len()
	return &hitTally{count: make([]uint32, n), exact: make([]uint32, n)}
}

// putTally clears what the route touched and pools the tally.
func (r *Router) putTally(t *hitTally) {
	for _, s := range t.seen {
		t.count[s], t.exact[s] = 0, 0
	}
	t.seen, t.hits, t.cands, t.named, t.said = t.seen[:0], t.hits[:0], t.cands[:0], t.named[:0], t.said[:0]
	// The request's tokens stay behind until the next route overwrites
	// them: clearing them cost more than the rest of putTally, and the
	// pool lets its tallies go within two collections anyway.
	r.tallies.Put(t)
}

// add records that phrase p hit, exactly or through stems.
func (t *hitTally) add(x *phraseIndex, p uint32, exact bool) {
	s := x.skillOf[p]
	if t.count[s] == 0 {
		t.seen = append(t.seen, s)
	}
	t.count[s]++
	if exact {
		t.exact[s]++
	}
	t.hits = append(t.hits, p)
}

// candidates folds the tally into one candidate per skill hit. The slice
// is the tally's: it goes back to the pool with it.
func (t *hitTally) candidates() []candidate {
	out := slices.Grow(t.cands[:0], len(t.seen))[:len(t.seen)]
	for i, s := range t.seen {
		out[i] = candidate{skill: int(s), score: int(t.count[s]), exact: int(t.exact[s])}
	}
	t.cands = out
	return out
}

// phraseHits returns, for each of cands[order[i]], the indexes in its
// skill's Triggers of the phrases it hit, ascending: one pass over the
// hits, whatever the number of candidates. The lists live in the tally
// until the next call.
func (t *hitTally) phraseHits(x *phraseIndex, cands []candidate, order []int) [][]uint32 {
	off := slices.Grow(t.off[:0], len(order)+1)[:len(order)+1]
	off[0] = 0
	for i, k := range order {
		off[i+1] = off[i] + cands[k].score
	}
	flat := slices.Grow(t.flat[:0], off[len(order)])[:off[len(order)]]
	fill := append(t.fill[:0], off[:len(order)]...)
	t.off, t.flat, t.fill = off, flat, fill
	// count[s] becomes 1 + the position in order of skill s (0: not
	// shown); putTally zeroes it either way.
	for _, s := range t.seen {
		t.count[s] = 0
	}
	for i, k := range order {
		t.count[cands[k].skill] = uint32(i + 1)
	}
	for _, p := range t.hits {
		if i := t.count[x.skillOf[p]]; i > 0 {
			flat[fill[i-1]] = x.ordOf[p]
			fill[i-1]++
		}
	}
	out := slices.Grow(t.ords[:0], len(order))[:len(order)]
	t.ords = out
	for i := range order {
		out[i] = flat[off[i]:off[i+1]:off[i+1]]
		slices.Sort(out[i])
	}
	return out
}

// said is a skill whose command the request says: toks[at:at+n].
type said struct{ skill, at, n int }

// collect is stage 2 of a ranked route: the skills the request read
// into t finds, through a trigger phrase (as written or through stems)
// or by name or command (specificity.go, commands.go), tallied in t
// (seen, hits, named, said).
func (r *Router) collect(t *hitTally, sp *specifics, rq request) {
	x := r.phrases
	// Phrases sharing a stem set mostly share their exact set too, so the
	// last exact-set verdict is reused.
	lastSet, lastExact := ^uint32(0), false
	x.stems.each(t.reqS, func(p uint32) {
		if es := x.exactSet[p]; es != lastSet {
			lastSet, lastExact = es, x.exact.covered(es, t.reqE)
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
}
