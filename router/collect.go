package router

import (
	"slices"

	"github.com/agent3md/agent3md/internal/segment"
	"github.com/agent3md/agent3md/internal/wordlist"
)

// hitTally is one route's scratch, pooled per Router: per-skill hit
// counts (800 KB at 100,000 skills; a route zeroes only those it
// touched), and the lists that grow with the hits.
type hitTally struct {
	count []uint32 // phrases hit per skill; doubles as a mark in phraseHits
	exact []uint32 // of those, hit token for token
	seen  []uint32 // skills with a hit, in first-hit order
	hits  []uint32 // the phrases hit
	cands []candidate
	named []int  // skills the request names (Ranked)
	said  []said // of those, the ones named by their command
	rank  rankScratch
	// The request as rankedRoute reads it: tokens, stems, ids in the
	// exact, stem and plural lookups, the pair buffer of readRequest, and
	// the request's words.
	toks, stems      []string
	stop             []bool // whether each of toks is a stop word
	reqE, reqS, reqP []uint32
	pair             []byte
	words            map[string]wordIDs // wordOf's memo
	rq               request
	memo             searchMemo // the route's relaxed search (relevanceFill, runnersup.go)
	terms            []term     // the request's terms, for relevance
	pt               plainText  // the request as the plain ranking reads it
	at               []int      // the skill of each of sure's matches
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

// collect is stage 2 of a ranked route: the skills the request in t
// finds by a trigger phrase (as written or through stems), a name or a
// command, tallied in t (seen, hits, named, said).
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
	name := func(s int) {
		if t.count[s] == 0 {
			t.seen = append(t.seen, uint32(s))
		}
		named = append(named, s)
	}
	sp.namedBy(rq, name)
	sp.commandedBy(&rq, func(s, at, n int) {
		if !slices.Contains(named, s) {
			name(s)
			t.said = append(t.said, said{s, at, n})
		}
	})
	t.named = named
}

// A request that says a skill's command ("kubectl rollout history for
// cart", "csvlook events.csv") names the skill: it holds, as adjacent
// words, the shortest run of the command's binary and subcommands
// (toolCommand) that no other skill's command starts with. A one-word
// command must be no other skill's trigger or name word nor a stop word
// ("make", "find" stay words).

// maxCommandWords bounds the words of a command that are read: a binary
// of a word or two and its subcommands (toolCommand keeps three).
const maxCommandWords = 4

// commandKey is up to maxCommandWords stem ids of a command, zero-padded
// after the first n (ids are offset by one so that 0 means none).
type commandKey [maxCommandWords]uint32

// readCommands reads every skill's command (toolCommand's words, as
// tokens, at most maxCommandWords) as stems, extending the vocabulary
// like readNames; skills without a command get an empty list. stop[i]
// says whether skill i's command starts with a stop word.
func (sp *specifics) readCommands(src Source) (cmds csrLists, stop []bool) {
	n := src.Len()
	cmds.start = make([]uint32, 1, n+1)
	stop = make([]bool, n)
	var toks []string
	tokID := map[string]uint32{}
	for i := 0; i < n; i++ {
		if tool := src.Skill(i).Tool; tool != "" {
			toks = appendCommandTokens(toks[:0], tool)
			for k, tok := range toks {
				if k == 0 {
					stop[i] = stopWords[tok]
				}
				cmds.items = append(cmds.items, sp.wordID(tokID, tok))
			}
		}
		cmds.start = append(cmds.start, uint32(len(cmds.items)))
	}
	return cmds, stop
}

// appendCommandTokens appends the tokens of toolCommand(tool), at most
// maxCommandWords, without building the command's string: it reads every
// skill's tool when a router first routes in Ranked mode.
func appendCommandTokens(dst []string, tool string) []string {
	start := len(dst)
	for w := range commandWords(tool) {
		if len(dst)-start >= maxCommandWords {
			break
		}
		dst = appendTokens(dst, w)
	}
	if len(dst)-start > maxCommandWords {
		dst = dst[:start+maxCommandWords]
	}
	return dst
}

// pickCommands keeps, of each skill's command (cmds), the shortest prefix
// no other skill's command shares, subject to the one-word rule above
// (df: skills using each stem in triggers or name; uses reports whether
// skill s itself does), and files the prefixes under their first word.
func (sp *specifics) pickCommands(cmds csrLists, stop []bool, df []uint32, uses func(s int, id uint32) bool) {
	n := len(cmds.start) - 1
	prefixes := func(i int, fn func(k int, key commandKey) bool) {
		var key commandKey
		for k, id := range cmds.list(i) {
			key[k] = id + 1
			if !fn(k, key) {
				return
			}
		}
	}
	shared := map[commandKey]int32{}
	for i := 0; i < n; i++ {
		prefixes(i, func(_ int, key commandKey) bool { shared[key]++; return true })
	}
	sp.cmdPrefix.start = make([]uint32, 1, n+1)
	var firstOf, owner []uint32
	for i := 0; i < n; i++ {
		cmd := cmds.list(i)
		prefixes(i, func(k int, key commandKey) bool {
			if shared[key] > 1 {
				return true
			}
			if k == 0 && (stop[i] || df[cmd[0]] > 1 || df[cmd[0]] == 1 && !uses(i, cmd[0])) {
				return false
			}
			sp.cmdPrefix.items = append(sp.cmdPrefix.items, cmd[:k+1]...)
			firstOf = append(firstOf, cmd[0])
			owner = append(owner, uint32(i))
			sp.cmdSig |= 1 << (cmd[0] % 64)
			return false
		})
		sp.cmdPrefix.start = append(sp.cmdPrefix.start, uint32(len(sp.cmdPrefix.items)))
	}
	start, order := csr(len(sp.idf), firstOf)
	sp.cmdFirst.start = start
	sp.cmdFirst.items = make([]uint32, len(order))
	for k, at := range order {
		sp.cmdFirst.items[k] = owner[at]
	}
}

// commandedBy calls fn for every skill whose command the request says,
// with the position and length of the words that say it.
func (sp *specifics) commandedBy(rq *request, fn func(skill, at, n int)) {
	if sp.cmdSig&rq.sig == 0 {
		return
	}
	for i, id := range rq.seq {
		if id == noID || sp.cmdSig&(1<<(id%64)) == 0 {
			continue
		}
		for _, s := range sp.cmdFirst.list(int(id)) {
			p := sp.cmdPrefix.list(int(s))
			if i+len(p) <= len(rq.seq) && slices.Equal(rq.seq[i:i+len(p)], p) {
				fn(int(s), i, len(p))
			}
		}
	}
}

// TierDescribed marks a Ranked match whose description's two adjacent
// content words, one not common English, the request says and no other
// skill's name or description holds ("write a semgrep rule"): the sure
// evidence a skills folder, without triggers, offers.
const TierDescribed = "described"

// pairKey is two adjacent content words, by their stems.
type pairKey struct{ a, b string }

// pairBook files each pair of adjacent content words of a skill's name
// and description under that skill, or under none (-1) when two skills
// hold it; name marks the pairs of a name.
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
			eachPairOf(appendTokens(nil, field), nil, func(p pairKey, _, _ string) {
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

// eachPairOf calls f with each pair of adjacent content words of a text's
// tokens (appendTokens) and, when known, their stems (stop words skipped,
// words of unspaced scripts left out: the segmenter, not adjacency, says
// where their words are) and the two words as written.
func eachPairOf(toks, stems []string, f func(p pairKey, first, second string)) {
	prev, prevTok := "", ""
	for i, tok := range toks {
		if stopWords[tok] || len(tok) < 2 {
			continue
		}
		if segment.AllUnspaced(tok) {
			prev = ""
			continue
		}
		var st string
		if stems != nil {
			st = stems[i]
		} else {
			st = routeStem(tok)
		}
		if prev != "" && prev != st {
			f(pairKey{prev, st}, prevTok, tok)
		}
		prev, prevTok = st, tok
	}
}

// described returns the one skill whose distinctive pairs the request
// (toks, stems) says most (-1: none, or a tie), whether they come from
// its name, and the pairs' words.
func (b *pairBook) described(toks, stems []string) (skill int, byName bool, words []string) {
	type owned struct {
		skill int32
		n     int
		named bool
		said  []string
	}
	var onStack [4]owned
	found := onStack[:0]
	eachPairOf(toks, stems, func(p pairKey, first, second string) {
		// A pair counts when one of its words is not among English's
		// commonest (tokens are lowercase), asked of owned pairs only.
		o, ok := b.owner[p]
		if !ok || o < 0 || wordlist.Common(first) && wordlist.Common(second) {
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

// describedFirst makes sure the first of rel (a request nothing hit or
// named) when it is the skill the request describes (pairBook), or puts
// that skill first in an empty rel: tier name by its name's pairs,
// described by its description's. It reads rq's tokens and stems, or text
// again for an unspaced script (pairs are not cut).
func (r *Router) describedFirst(text string, rq request, rel []Match) []Match {
	toks, stems := rq.toks, rq.stems
	if segment.HasUnspaced(text) {
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
	if i := slices.IndexFunc(rel, func(o Match) bool { return o.Name == sk.Name && o.Z == sk.Z }); i >= 0 {
		m.Relevance = rel[i].Relevance
		rel = append(rel[:i:i], rel[i+1:]...)
	}
	return append([]Match{m}, rel...)
}

// each calls fn for every phrase all of whose ids are in req (sorted).
func (v *vocabLists) each(req []uint32, fn func(p uint32)) {
	for _, a := range req {
		for _, u := range v.anchor[v.anchorS[a]:v.anchorS[a+1]] {
			if v.covered(u, req) {
				for _, p := range v.own[v.ownS[u]:v.ownS[u+1]] {
					fn(p)
				}
			}
		}
	}
}

// covered reports whether every id of set u is in req; both are sorted,
// so one merge pass decides.
func (v *vocabLists) covered(u uint32, req []uint32) bool {
	set := v.toks[v.start[u]:v.start[u+1]]
	j := 0
	for _, t := range set {
		for j < len(req) && req[j] < t {
			j++
		}
		if j == len(req) || req[j] != t {
			return false
		}
		j++
	}
	return true
}
