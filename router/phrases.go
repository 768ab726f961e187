package router

import (
	"slices"
)

// phraseIndex is the in-memory structure behind phrase matching in both
// modes. Every trigger phrase is reduced to its distinct token ids (exact
// tokens for Spec, Porter stems for Ranked) and filed under its anchor: the
// id that the fewest phrases contain. A request then visits only the phrases
// anchored at one of its own ids, and each such phrase at most once, so the
// work grows with the phrases a request can hit, not with the agent's size.
type phraseIndex struct {
	exact vocabLists // exact (lowercased) tokens
	stems vocabLists // Porter stems of those tokens
	// Phrase p belongs to skill skillOf[p] and is that skill's
	// Triggers[ordOf[p]]. Phrases without tokens are left out: they never hit.
	skillOf []uint32
	ordOf   []uint32
}

// vocabLists is one vocabulary with, per phrase, its distinct ids and, per
// id, the phrases anchored at it (both in CSR form).
type vocabLists struct {
	ids     map[string]uint32
	start   []uint32 // phrase p's ids are toks[start[p]:start[p+1]]
	toks    []uint32
	anchorS []uint32 // phrases anchored at id t: anchor[anchorS[t]:anchorS[t+1]]
	anchor  []uint32
}

// phraseKey memoises tokenisation: agents repeat phrases ("batch",
// "report back"), and stemming each distinct token once keeps cold starts
// cheap.
type phraseToks struct{ exact, stems []uint32 }

// buildPhrases indexes the trigger phrases of skills.
func buildPhrases(skills []Skill) *phraseIndex {
	x := &phraseIndex{
		exact: vocabLists{ids: map[string]uint32{}, start: []uint32{0}},
		stems: vocabLists{ids: map[string]uint32{}, start: []uint32{0}},
	}
	memo := map[string]phraseToks{}
	tokStem := map[string]uint32{}
	var buf []string
	for si := range skills {
		for oi, phrase := range skills[si].Triggers {
			pt, ok := memo[phrase]
			if !ok {
				buf = appendTokens(buf[:0], phrase)
				pt = phraseToks{}
				for _, tok := range buf {
					pt.exact = appendUnique(pt.exact, x.exact.id(tok))
					sid, ok := tokStem[tok]
					if !ok {
						sid = x.stems.id(stem(tok))
						tokStem[tok] = sid
					}
					pt.stems = appendUnique(pt.stems, sid)
				}
				memo[phrase] = pt
			}
			if len(pt.exact) == 0 {
				continue
			}
			x.skillOf = append(x.skillOf, uint32(si))
			x.ordOf = append(x.ordOf, uint32(oi))
			x.exact.add(pt.exact)
			x.stems.add(pt.stems)
		}
	}
	x.exact.anchorAll()
	x.stems.anchorAll()
	return x
}

func appendUnique(ids []uint32, id uint32) []uint32 {
	if slices.Contains(ids, id) {
		return ids
	}
	return append(ids, id)
}

// id returns the id of term, adding it to the vocabulary when new.
func (v *vocabLists) id(term string) uint32 {
	if id, ok := v.ids[term]; ok {
		return id
	}
	id := uint32(len(v.ids))
	v.ids[term] = id
	return id
}

func (v *vocabLists) add(ids []uint32) {
	v.toks = append(v.toks, ids...)
	v.start = append(v.start, uint32(len(v.toks)))
}

func (v *vocabLists) phrases() int { return len(v.start) - 1 }

// anchorAll files every phrase under its rarest id.
func (v *vocabLists) anchorAll() {
	freq := make([]uint32, len(v.ids))
	for _, t := range v.toks {
		freq[t]++
	}
	n := v.phrases()
	anchorOf := make([]uint32, n)
	count := make([]uint32, len(v.ids)+1)
	for p := 0; p < n; p++ {
		best := v.toks[v.start[p]]
		for _, t := range v.toks[v.start[p]+1 : v.start[p+1]] {
			if freq[t] < freq[best] {
				best = t
			}
		}
		anchorOf[p] = best
		count[best+1]++
	}
	for t := 1; t < len(count); t++ {
		count[t] += count[t-1]
	}
	v.anchorS = count
	v.anchor = make([]uint32, n)
	fill := slices.Clone(count[:len(count)-1])
	for p := 0; p < n; p++ {
		a := anchorOf[p]
		v.anchor[fill[a]] = uint32(p)
		fill[a]++
	}
}

// lookup maps terms to their ids, dropping unknown ones, sorted and
// deduplicated.
func (v *vocabLists) lookup(dst []uint32, terms []string) []uint32 {
	for _, t := range terms {
		if id, ok := v.ids[t]; ok {
			dst = append(dst, id)
		}
	}
	slices.Sort(dst)
	return slices.Compact(dst)
}

// each calls fn for every phrase all of whose ids are in req (sorted).
func (v *vocabLists) each(req []uint32, fn func(p uint32)) {
	for _, a := range req {
		for _, p := range v.anchor[v.anchorS[a]:v.anchorS[a+1]] {
			if v.covered(p, req) {
				fn(p)
			}
		}
	}
}

// covered reports whether every id of phrase p is in req (sorted).
func (v *vocabLists) covered(p uint32, req []uint32) bool {
	for _, t := range v.toks[v.start[p]:v.start[p+1]] {
		if !containsSorted(req, t) {
			return false
		}
	}
	return true
}

func containsSorted(s []uint32, x uint32) bool {
	if len(s) <= 8 {
		for _, v := range s {
			if v == x {
				return true
			}
		}
		return false
	}
	_, ok := slices.BinarySearch(s, x)
	return ok
}
