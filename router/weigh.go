package router

import (
	"math"
	"math/bits"
	"slices"
	"strings"
)

// Stage 3 of a ranked route: weigh the candidates their tier leaves
// unordered: evidence (the specificity of the request words their
// phrases and names account for) and relevance (relevance.go).

// weigh sets the evidence of cands[which]: the summed specificity of the
// distinct request words its hit phrases or name account for (one met
// only through its stem counts stemOnlyWeight), and whether the request
// says its whole name. The tally's counts serve as candidate positions.
func (r *Router) weigh(t *hitTally, sp *specifics, rq *request, reqP []uint32, cands []candidate, which []int) {
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
		nameWords, c.full = sp.nameSaidIn(rq, c.skill)
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

// stemOnlyWeight is how much a request word met only through its stem
// counts: the word the user wrote is weaker evidence when it is a variant
// of the skill's than when it is the skill's own.
const stemOnlyWeight = 0.75

// relevance fills in the relevance of cands[which] for the request
// text (read as rq), in the memory of t.
func (r *Router) relevance(text string, rq *request, all []candidate, which []int, t *hitTally) {
	if r.scorer == nil || len(which) == 0 {
		return
	}
	t.terms = requestTerms(r.an, text, rq.toks, rq.stems, false, t.terms).text
	r.scorer.relevanceOf(t.terms, all, which)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// specifics is how telling each word is in one agent: how many skills use
// each stem in their triggers or name ("list" in a dozen says little),
// and each skill's name as stems. Built on the first Ranked route.
type specifics struct {
	// extra extends the phrase index's stem vocabulary (x.stems.ids) with
	// the stems that occur only in names; idf is indexed by these ids.
	extra map[string]uint32
	idf   []float64
	// df is, per stem id, how many of the skills use it in their
	// triggers or name.
	df     []uint32
	skills int
	x      *phraseIndex
	setOf  []uint32 // per phrase: its stem set in x
	names  csrLists // per skill: its name's stems, distinct, in name order
	named  csrLists // per stem id: the skills whose name holds it
	// nameSig is, per skill, a bit per name stem (id mod 64): a request
	// whose signature shares no bit with it holds no word of the name.
	nameSig []uint64
	// cmdPrefix is, per skill, the words of its command a request must
	// say to name it that way; cmdFirst files the skills under the first
	// of them, and cmdSig is a bit per first word (collect.go).
	cmdPrefix, cmdFirst csrLists
	cmdSig              uint64
}

// csrLists is a list of id lists in one buffer: list i is
// items[start[i]:start[i+1]].
type csrLists struct {
	start, items []uint32
}

func (c *csrLists) list(i int) []uint32 {
	if i+1 >= len(c.start) {
		return nil
	}
	return c.items[c.start[i]:c.start[i+1]]
}

// specificsOf returns r's specifics, building them on first use.
func (r *Router) specificsOf() *specifics {
	r.specOnce.Do(func() { r.spec = buildSpecifics(r.src, r.phrases) })
	return r.spec
}

// buildSpecifics counts, for every stem, the skills whose triggers or name
// hold it; a stem's specificity is its inverse document frequency over
// the skills, ln(1 + skills/count).
func buildSpecifics(src Source, x *phraseIndex) *specifics {
	sp := &specifics{x: x, extra: map[string]uint32{}}
	// Each phrase's stem set, from the sets' owner lists.
	sp.setOf = make([]uint32, len(x.skillOf))
	for u := 0; u < x.stems.sets(); u++ {
		for _, p := range x.stems.own[x.stems.ownS[u]:x.stems.ownS[u+1]] {
			sp.setOf[p] = uint32(u)
		}
	}
	sp.readNames(src)
	cmds, stop := sp.readCommands(src)
	df, phraseStart, phrases := sp.countSkills(src.Len())
	sp.df, sp.skills = df, src.Len()
	sp.pickCommands(cmds, stop, df, func(s int, id uint32) bool {
		return slices.Contains(sp.names.list(s), id) || slices.ContainsFunc(phrases[phraseStart[s]:phraseStart[s+1]],
			func(p uint32) bool { return slices.Contains(sp.phraseStems(p), id) })
	})
	// The inverse of names: the skills whose name holds each stem.
	nameOf := make([]uint32, len(sp.names.items))
	for i := 0; i+1 < len(sp.names.start); i++ {
		for k := sp.names.start[i]; k < sp.names.start[i+1]; k++ {
			nameOf[k] = uint32(i)
		}
	}
	start, order := csr(len(sp.idf), sp.names.items)
	sp.named.start = start
	sp.named.items = make([]uint32, len(order))
	for k, at := range order {
		sp.named.items[k] = nameOf[at]
	}
	return sp
}

// wordID is the id of tok's stem, given one past the phrase vocabulary
// (in extra) when no phrase uses it. memo keeps each token's id, so a word
// repeated across skills is stemmed and looked up once.
func (sp *specifics) wordID(memo map[string]uint32, tok string) uint32 {
	if id, ok := memo[tok]; ok {
		return id
	}
	st := stem(tok)
	id, ok := sp.id(st)
	if !ok {
		id = uint32(len(sp.x.stems.ids) + len(sp.extra))
		sp.extra[st] = id
	}
	memo[strings.Clone(tok)] = id
	return id
}

// readNames reads every skill's name as stems, so "run-tests" is {run,
// test}. Names repeat their words, so each distinct word is stemmed and
// looked up once.
func (sp *specifics) readNames(src Source) {
	n := src.Len()
	sp.names.start = make([]uint32, 1, n+1)
	sp.nameSig = make([]uint64, 0, n)
	var toks []string
	tokID := map[string]uint32{}
	for i := 0; i < n; i++ {
		name, _, _ := src.Phrases(i)
		start := len(sp.names.items)
		toks = appendTokens(toks[:0], name)
		for _, tok := range toks {
			id := sp.wordID(tokID, tok)
			if !slices.Contains(sp.names.items[start:], id) {
				sp.names.items = append(sp.names.items, id)
			}
		}
		sp.names.start = append(sp.names.start, uint32(len(sp.names.items)))
		sp.nameSig = append(sp.nameSig, signature(sp.names.items[start:]))
	}
}

// countSkills sets idf from how many of the n skills use each stem in
// their triggers or name, and returns those counts and each skill's
// phrases (phrases[phraseStart[i]:phraseStart[i+1]]).
func (sp *specifics) countSkills(n int) (df, phraseStart, phrases []uint32) {
	x := sp.x
	vocab := len(x.stems.ids) + len(sp.extra)
	df = make([]uint32, vocab)
	last := slices.Repeat([]int32{-1}, vocab)
	count := func(ids []uint32, skill int32) {
		for _, id := range ids {
			if last[id] != skill {
				last[id] = skill
				df[id]++
			}
		}
	}
	phraseStart, phrases = csr(n, x.skillOf) // each skill's phrases
	for i := 0; i < n; i++ {
		for _, p := range phrases[phraseStart[i]:phraseStart[i+1]] {
			count(sp.phraseStems(p), int32(i))
		}
		count(sp.names.list(i), int32(i))
	}
	sp.idf = make([]float64, vocab)
	for id, d := range df {
		sp.idf[id] = math.Log(1 + float64(n)/float64(max(d, 1)))
	}
	return df, phraseStart, phrases
}

// id is the id of stem st in the phrase index's vocabulary or extra.
func (sp *specifics) id(st string) (uint32, bool) {
	if id, ok := sp.x.stems.ids[st]; ok {
		return id, true
	}
	id, ok := sp.extra[st]
	return id, ok
}

// phraseStems is phrase p's stem ids, sorted.
func (sp *specifics) phraseStems(p uint32) []uint32 {
	v := &sp.x.stems
	u := sp.setOf[p]
	return v.toks[v.start[u]:v.start[u+1]]
}

// request is a Ranked request's words as stems known to the agent
// (ids in specifics' vocabulary, sorted): all its words, for evidence,
// and its content words (English stop words left out), for the name rule.
type request struct {
	ids     []uint32
	wt      []float64 // weight of ids[k]: its specificity, less for stop words
	content []uint32
	seq     []uint32 // each request word's id in order; noID if unknown
	sig     uint64   // signature of ids
	words   []string // distinct content words as written
	known   bool     // every content word is some skill's trigger or name word
	// toks and stems are the request's tokens (appendTokens) and their
	// stems, which requestTerms reads.
	toks, stems []string
	// memo, when set, keeps the route's relaxed search for the
	// relevance fill (relevanceFill, runnersup.go).
	memo *searchMemo
}

// distinctByScan is the most request tokens readSeq tells apart by
// scanning the words kept so far.
const distinctByScan = 64

// readSeq reads a request, given each stem's id (seq, noID for none) and
// whether each token is a stop word, in the memory of old, a request read
// before: routeRanked keeps one per tally.
func (sp *specifics) readSeq(old request, toks, stems []string, seq []uint32, stop []bool) request {
	rq := request{known: true, toks: toks, stems: stems, seq: seq,
		ids: old.ids[:0], content: old.content[:0], words: old.words[:0]}
	// A short request's words are told apart by a scan; a long one's by
	// a set, or the scan's cost grows with the square of its words.
	var seen map[string]struct{}
	if len(toks) > distinctByScan {
		seen = make(map[string]struct{}, len(toks))
	}
	for i, id := range seq {
		ok := id != noID
		if ok {
			rq.ids = append(rq.ids, id)
		}
		if stop[i] {
			continue
		}
		if seen != nil {
			if _, dup := seen[toks[i]]; dup {
				continue
			}
			seen[toks[i]] = struct{}{}
		} else if slices.Contains(rq.words, toks[i]) {
			continue
		}
		rq.words = append(rq.words, toks[i])
		if ok {
			rq.content = append(rq.content, id)
		} else {
			rq.known = false
		}
	}
	slices.Sort(rq.ids)
	rq.ids = slices.Compact(rq.ids)
	rq.sig = signature(rq.ids)
	slices.Sort(rq.content)
	rq.content = slices.Compact(rq.content)
	rq.wt = slices.Grow(old.wt[:0], len(rq.ids))[:len(rq.ids)]
	for k, id := range rq.ids {
		rq.wt[k] = sp.idf[id]
		if _, ok := slices.BinarySearch(rq.content, id); !ok {
			rq.wt[k] *= stopWeight
		}
	}
	return rq
}

// signature is a bit per id, mod 64.
func signature(ids []uint32) uint64 {
	var sig uint64
	for _, id := range ids {
		sig |= 1 << (id % 64)
	}
	return sig
}

// noID stands for a request word no trigger or name uses.
const noID = ^uint32(0)

// nameGap is how far apart (in words) consecutive name words may be in a
// request that says the name: "summarize the invoice" says
// summarize-invoice.
const nameGap = 2

// saysName reports whether the request holds the words of name in order,
// each within nameGap words of the one before: the request says the
// skill's name, not just words of it ("refund policy", not "the policy
// says a full refund").
func (rq request) saysName(name []uint32) bool {
	if len(name) == 0 {
		return false
	}
	for i, id := range rq.seq {
		if id != name[0] {
			continue
		}
		at, k := i, 1
		for ; k < len(name); k++ {
			j := slices.Index(rq.seq[at+1:min(len(rq.seq), at+1+nameGap)], name[k])
			if j < 0 {
				break
			}
			at += 1 + j
		}
		if k == len(name) {
			return true
		}
	}
	return false
}

// nameSaid reports which request words skill's name accounts for, and
// whether the request says the whole name, its words in order.
func (sp *specifics) nameSaid(rq request, skill int) (words uint64, full bool) {
	return sp.nameSaidIn(&rq, skill)
}

// nameSaidIn is nameSaid reading the request by pointer (see mask).
func (sp *specifics) nameSaidIn(rq *request, skill int) (words uint64, full bool) {
	if sp.nameSig[skill]&rq.sig == 0 {
		return 0, false
	}
	name := sp.names.list(skill)
	words = rq.mask(name)
	return words, words != 0 && bits.OnesCount64(words) == len(name) && rq.saysName(name)
}

// mask is the set of request words (bits: positions in rq.ids, the first
// 64) among ids. It and weight read a request by pointer: weigh asks them
// of every candidate, and a request is a dozen slices to copy.
func (rq *request) mask(ids []uint32) uint64 {
	var m uint64
	for _, id := range ids {
		if rq.sig&(1<<(id%64)) == 0 {
			continue
		}
		if k, ok := slices.BinarySearch(rq.ids, id); ok && k < 64 {
			m |= 1 << k
		}
	}
	return m
}

func (rq *request) weight(m uint64) float64 {
	w := 0.0
	for ; m != 0; m &= m - 1 {
		w += rq.wt[bits.TrailingZeros64(m)]
	}
	return w
}

// stopWeight is how much a stop word ("is", "up", "the") counts against a
// content word of the same specificity: it is part of what a phrase hit
// matched, but says little about what the request is about.
const stopWeight = 0.25

// maxNameWords is the longest request the name rule considers: a request
// of a few words that are all words of a skill's name ("tests", "run the
// tests", "commit") asks for that skill by name.
const maxNameWords = 3

// namedBy calls fn for every skill whose name holds every content word of
// the request.
func (sp *specifics) namedBy(rq request, fn func(skill int)) {
	if !rq.known || len(rq.words) == 0 || len(rq.words) > maxNameWords || len(rq.content) == 0 {
		return
	}
	// Walk the skills of the rarest word's list, checking the others.
	rare := rq.content[0]
	for _, id := range rq.content[1:] {
		if len(sp.named.list(int(id))) < len(sp.named.list(int(rare))) {
			rare = id
		}
	}
	for _, s := range sp.named.list(int(rare)) {
		name := sp.names.list(int(s))
		if !slices.ContainsFunc(rq.content, func(id uint32) bool { return !slices.Contains(name, id) }) {
			fn(int(s))
		}
	}
}
