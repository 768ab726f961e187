package router

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/agent3md/agent3md/internal/listfile"
	"github.com/agent3md/agent3md/internal/slips"
	"math"
	"os"
	"slices"
)

// phraseIndex is behind phrase matching in both modes: every trigger
// phrase is a set of distinct token ids (exact for Spec, stems for
// Ranked), equal sets stored once, each filed under its rarest id, so a
// request's work grows with what it can hit, not with the agent.
type phraseIndex struct {
	exact vocabLists // exact (lowercased) tokens
	stems vocabLists // Porter stems of those tokens
	// Phrase p (none without tokens: they never hit) is skill skillOf[p]'s
	// Triggers[ordOf[p]], and its set in exact is exactSet[p].
	skillOf, ordOf, exactSet []uint32
}

// vocabLists is one vocabulary with its distinct token sets, their owners
// and their anchors, all in CSR form.
type vocabLists struct {
	ids     map[string]uint32
	start   []uint32 // set u's ids are toks[start[u]:start[u+1]], ascending
	toks    []uint32
	ownS    []uint32 // phrases with set u: own[ownS[u]:ownS[u+1]]
	own     []uint32
	anchorS []uint32 // sets anchored at id t: anchor[anchorS[t]:anchorS[t+1]]
	anchor  []uint32

	setOf  map[string]uint32 // building only: set key -> set
	setOfP []uint32          // building only: phrase -> set (kept as exactSet)
	keyBuf []byte            // building only
}

// phraseSets memoises a phrase string's sets: agents repeat phrases.
type phraseSets struct {
	exact, stems uint32
	empty        bool
}

// buildPhrases indexes the trigger phrases of skills.
func buildPhrases(skills Source) *phraseIndex {
	n := 0
	ns := skills.Len()
	for i := 0; i < ns; i++ {
		_, _, t := skills.Phrases(i)
		n += len(t)
	}
	x := &phraseIndex{exact: newVocab(n), stems: newVocab(n)}
	x.skillOf = make([]uint32, 0, n)
	x.ordOf = make([]uint32, 0, n)
	// The maps grow as they fill: presized to n (mostly repeats) they
	// were 80 MB of garbage at 100,000 skills.
	memo := map[string]phraseSets{}
	tokStem := map[string]uint32{}
	var buf []string
	var ex, st []uint32
	for si := 0; si < ns; si++ {
		_, _, triggers := skills.Phrases(si)
		for oi, phrase := range triggers {
			ps, ok := memo[phrase]
			if !ok {
				buf = appendTokens(buf[:0], phrase)
				ex, st = ex[:0], st[:0]
				for _, tok := range buf {
					ex = append(ex, x.exact.id(tok))
					sid, ok := tokStem[tok]
					if !ok {
						sid = x.stems.id(stem(tok))
						tokStem[tok] = sid
					}
					st = append(st, sid)
				}
				if len(ex) == 0 {
					ps.empty = true
				} else {
					slices.Sort(ex)
					slices.Sort(st)
					ex, st = slices.Compact(ex), slices.Compact(st)
					ps.exact, ps.stems = x.exact.set(ex), x.stems.set(st)
				}
				memo[phrase] = ps
			}
			if ps.empty {
				continue
			}
			x.skillOf = append(x.skillOf, uint32(si))
			x.ordOf = append(x.ordOf, uint32(oi))
			x.exact.setOfP = append(x.exact.setOfP, ps.exact)
			x.stems.setOfP = append(x.stems.setOfP, ps.stems)
		}
	}
	x.exactSet = x.exact.setOfP
	x.exact.finish()
	x.stems.finish()
	return x
}

func newVocab(n int) vocabLists {
	return vocabLists{ids: map[string]uint32{}, start: []uint32{0},
		setOf: map[string]uint32{}, setOfP: make([]uint32, 0, n)}
}

func (v *vocabLists) id(term string) uint32 {
	if id, ok := v.ids[term]; ok {
		return id
	}
	id := uint32(len(v.ids))
	v.ids[term] = id
	return id
}

// set returns the set holding ids (sorted, distinct), adding it when new.
func (v *vocabLists) set(ids []uint32) uint32 {
	v.keyBuf = v.keyBuf[:0]
	for _, id := range ids {
		v.keyBuf = binary.LittleEndian.AppendUint32(v.keyBuf, id)
	}
	if u, ok := v.setOf[string(v.keyBuf)]; ok {
		return u
	}
	u := uint32(len(v.start) - 1)
	v.toks = append(v.toks, ids...)
	v.start = append(v.start, uint32(len(v.toks)))
	v.setOf[string(v.keyBuf)] = u
	return u
}

func (v *vocabLists) sets() int { return len(v.start) - 1 }

func (v *vocabLists) finish() {
	v.ownS, v.own = csr(v.sets(), v.setOfP)
	freq := make([]uint32, len(v.ids))
	for _, t := range v.toks {
		freq[t]++
	}
	anchorOf := make([]uint32, v.sets())
	for u := range anchorOf {
		// The first of the rarest ids.
		anchorOf[u] = slices.MinFunc(v.toks[v.start[u]:v.start[u+1]], func(a, b uint32) int { return cmp.Compare(freq[a], freq[b]) })
	}
	v.anchorS, v.anchor = csr(len(v.ids), anchorOf)
	v.setOf, v.setOfP, v.keyBuf = nil, nil, nil
}

// csr inverts key (item -> bucket): bucket b's items, ascending, are
// items[start[b]:start[b+1]].
func csr(buckets int, key []uint32) (start, items []uint32) {
	start = make([]uint32, buckets+1)
	for _, b := range key {
		start[b+1]++
	}
	for b := 1; b <= buckets; b++ {
		start[b] += start[b-1]
	}
	items = make([]uint32, len(key))
	fill := slices.Clone(start[:buckets])
	for i, b := range key {
		items[fill[b]] = uint32(i)
		fill[b]++
	}
	return start, items
}

// The phrase index is saved beside a cached bleve index (phrases.bin, in
// internal/listfile's form) so a warm start reads it instead of tokenising and
// stemming every trigger again; check still bounds every index it holds,
// so even a file that slipped past the manifest's checksums cannot make
// routing index out of range.
const (
	phrasesName  = "phrases.bin"
	phrasesMagic = "A3PH"
)

var errBadPhrases = errors.New("phrase index file is damaged")

func writePhrases(path string, x *phraseIndex) error {
	buf := append([]byte(phrasesMagic), 0)[:len(phrasesMagic)]
	for _, l := range [][]uint32{x.skillOf, x.ordOf, x.exactSet} {
		buf = listfile.AppendInts(buf, l)
	}
	for _, v := range []*vocabLists{&x.exact, &x.stems} {
		buf = listfile.AppendTerms(buf, v.ids)
		for _, l := range [][]uint32{v.start, v.toks, v.ownS, v.own, v.anchorS, v.anchor} {
			buf = listfile.AppendInts(buf, l)
		}
	}
	return os.WriteFile(path, buf, 0o644)
}

// readPhrases loads the phrase index saved for skills; with skills nil
// it is not checked, and nothing may route with it before check.
func readPhrases(path string, skills Source) (*phraseIndex, error) {
	data, err := listfile.Read(path, errBadPhrases)
	if err != nil {
		return nil, err
	}
	d := listfile.NewReader(data, phrasesMagic, errBadPhrases)
	x := &phraseIndex{skillOf: d.Ints("phrases"), ordOf: d.Ints("phrases"), exactSet: d.Ints("phrases")}
	for _, v := range []*vocabLists{&x.exact, &x.stems} {
		v.ids = d.Terms()
		v.start, v.toks, v.ownS, v.own = d.Ints("sets"), d.Ints("tokens"), d.Ints("sets"), d.Ints("phrases")
		v.anchorS, v.anchor = d.Ints("terms"), d.Ints("anchors")
	}
	if err := d.End("lists"); err != nil {
		return nil, err
	}
	if skills != nil {
		if err := x.check(skills); err != nil {
			return nil, err
		}
	}
	return x, nil
}

// check verifies every index the router will follow is in bounds.
func (x *phraseIndex) check(skills Source) error {
	n := len(x.skillOf)
	if len(x.ordOf) != n || len(x.exactSet) != n || uint64(n) > math.MaxUint32 {
		return fmt.Errorf("%w: phrase lists differ in length", errBadPhrases)
	}
	for p := range n {
		s := x.skillOf[p]
		if int(s) >= skills.Len() {
			return fmt.Errorf("%w: phrase %d points past the skills", errBadPhrases, p)
		}
		if _, _, t := skills.Phrases(int(s)); int(x.ordOf[p]) >= len(t) {
			return fmt.Errorf("%w: phrase %d points past the skills", errBadPhrases, p)
		}
	}
	if err := cmp.Or(x.exact.check(n), x.stems.check(n)); err != nil {
		return err
	}
	if !allBelow(x.exactSet, x.exact.sets()) {
		return fmt.Errorf("%w: phrase set out of range", errBadPhrases)
	}
	return nil
}

func (v *vocabLists) check(phrases int) error {
	sets := len(v.start) - 1
	ok := sets >= 0 && csrOK(v.start, len(v.toks)) && csrOK(v.ownS, len(v.own)) &&
		len(v.ownS) == sets+1 && csrOK(v.anchorS, len(v.anchor)) && len(v.anchorS) == len(v.ids)+1 &&
		allBelow(v.toks, len(v.ids)) && allBelow(v.own, phrases) && allBelow(v.anchor, sets)
	if !ok {
		return fmt.Errorf("%w: inconsistent vocabulary lists", errBadPhrases)
	}
	return nil
}

// csrOK reports whether start is a valid CSR offset list over n items.
func csrOK(start []uint32, n int) bool {
	return len(start) > 0 && start[0] == 0 && int(start[len(start)-1]) == n && slices.IsSorted(start)
}

func allBelow(v []uint32, n int) bool {
	return !slices.ContainsFunc(v, func(x uint32) bool { return int(x) >= n })
}

// Typing slips ("atest the release binary"): when a Ranked route finds no
// phrase and no name, its words are read through a speller of the agent's
// trigger and name words (internal/slips) and it is routed again, once
// (rankedRoute). buildSpeller collects src's trigger and name words.
func buildSpeller(src Source, x *phraseIndex) *slips.Speller {
	sp := slips.New(slips.Options{Stem: stem, Skip: func(w string) bool { return stopWords[w] }})
	for w := range x.exact.ids {
		sp.Add(w)
	}
	var toks []string
	for i := 0; i < src.Len(); i++ {
		name, _, _ := src.Phrases(i)
		toks = appendTokens(toks[:0], name)
		for _, w := range toks {
			sp.Add(w)
		}
	}
	return sp
}

// spellerOf returns r's speller, building it on first use: most routes
// hit a phrase and never need it.
func (r *Router) spellerOf() *slips.Speller {
	r.spellOnce.Do(func() { r.speller = buildSpeller(r.src, r.phrases) })
	return r.speller
}
