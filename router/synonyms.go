package router

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agent3md/agent3md/internal/segment"
)

// Synonym expansion (docs/architecture.md §5, "Synonyms"): the thesaurus
// joins words users say for one intent ("ship" for deploy). Only the
// relaxed tier reads it, so it never demotes a phrase hit nor touches
// Spec. A request word the index lacks brings its groups' members the
// index holds; a word the agent uses means what the agent uses it for
// (expanding it blurred which skills hold it). A member in an unspaced
// script is met inside a request's runs (unspacedMembers) and read by
// the index as its pairs of runes (held). Synonyms count for less than
// the user's words:
//
//   - a skill whose trigger or name the request covers once one word is
//     read as a synonym is a relaxed match when it accounts for two
//     request words, one as written, or covers two phrases through an
//     everyday synonym; it goes ahead of relevance-only matches unless
//     one accounts for more words (synonymFirst);
//   - the relaxed search adds synonyms at synonymBoost, evidence counts
//     them at synonymWeight, and a match still needs two words as
//     written, or one beside a one-way group's name (jargon).

// synonymWeight is how much a word met only through a synonym counts
// against one met as written: the thesaurus's reading is weaker evidence.
const synonymWeight = 0.5

// synonymPhrases is how many of a skill's phrases (or its name) one
// request word must cover through synonyms to make a hit on its own: a
// skill saying the intent several ways ("upgrade", "bump") is what
// "update cobra" asks for; one trigger met through "write" is not.
const synonymPhrases = 2

// synonymBoost is a synonym term's boost in the relaxed search, below
// synonymWeight: BM25 sums every term a skill holds, and a word with
// several synonyms in one skill would outweigh the word itself (0.15-0.25
// did best on the development sets).
const synonymBoost = 0.25

// maxSynonymTerms bounds the stems one request adds, so that a long
// request of common words cannot grow its search without limit.
const maxSynonymTerms = 64

// expansion is what the thesaurus adds to one request.
type expansion struct{ syn []synTerm }

// synTerm is a stem a request word brings through the thesaurus.
type synTerm struct {
	stem string
	word string // the request word it came from, as written (lowercased)
	// part is, for a member of several words ("get rid of"), its content
	// stems: it covers a phrase only whole, never searched or weighed.
	part []string
	// jargon: brought by a one-way group's name (a tool, library or
	// format), which says the intent as plainly as the generic word.
	jargon bool
}

// heldThesaurus is, per group, the stems of its members the index holds
// (stop words out; a member of several words only when all are held):
// built once per Router, so an expansion reads lists, not the index.
type heldThesaurus struct {
	th  *thesaurus
	has func(term string) bool
	syn [][]heldStem // per group
}

// heldStem is one stem of a group that the index holds.
type heldStem struct {
	stem string
	part []string // the member's content stems, for a member of several words
}

func holdThesaurus(th *thesaurus, has func(term string) bool) *heldThesaurus {
	h := &heldThesaurus{th: th, has: has, syn: make([][]heldStem, len(th.groups))}
	for g, group := range th.groups {
		for _, m := range group {
			if slices.ContainsFunc(m.content, func(st string) bool { return !has(st) }) {
				continue // a word of it no skill uses: it covers nothing
			}
			for k, st := range m.stems {
				if !stopWords[m.words[k]] && held(st, has) {
					h.syn[g] = append(h.syn[g], heldStem{st, m.content})
				}
			}
		}
	}
	return h
}

func (r *Router) heldThesaurus() *heldThesaurus {
	th := thesaurusOnce()
	if h := r.held.Load(); h != nil && h.th == th {
		return h
	}
	h := holdThesaurus(th, r.indexHas)
	r.held.Store(h)
	return h
}

// expand returns what the request's stems bring: a member met (one word
// by its stem, several as adjacent stems) that the index lacks brings its
// groups' held stems the request lacks; nil when nothing is.
func (h *heldThesaurus) expand(toks, stems []string) *expansion {
	th := h.th
	if len(th.groups) == 0 {
		return nil
	}
	var ex *expansion
	var runs []string // the request's runs of unspaced scripts
	for _, tok := range toks {
		if segment.HasUnspaced(tok) {
			for run := range segment.ScriptRuns(tok) {
				if segment.Unspaced(firstRune(run)) {
					runs = append(runs, run)
				}
			}
		}
	}
	add := func(g uint32, word string) {
		if ex == nil {
			ex = &expansion{}
		}
		jargon := slices.ContainsFunc(th.groups[g], func(m synMember) bool { return m.target }) // a one-way group's name
		for _, hs := range h.syn[g] {
			if len(ex.syn) == maxSynonymTerms || slices.Contains(stems, hs.stem) ||
				slices.ContainsFunc(ex.syn, func(t synTerm) bool { return t.stem == hs.stem && t.part == nil }) ||
				segment.HasUnspaced(hs.stem) && slices.ContainsFunc(runs, func(run string) bool { return strings.Contains(run, hs.stem) }) {
				continue
			}
			ex.syn = append(ex.syn, synTerm{stem: hs.stem, word: word, part: hs.part, jargon: jargon})
		}
	}
	h.unspacedMembers(runs, add)
	for i, st := range stems {
		if stopWords[toks[i]] || segment.HasUnspaced(toks[i]) {
			continue
		}
		if len(th.single[st]) > 0 && !h.has(st) {
			for _, g := range th.single[st] {
				add(g, toks[i])
			}
		}
		for _, ref := range th.multi[st] {
			m := th.groups[ref.g][ref.m]
			if i+len(m.stems) > len(stems) || !slices.Equal(stems[i:i+len(m.stems)], m.stems) ||
				!slices.ContainsFunc(m.content, func(st string) bool { return !h.has(st) }) {
				continue // not said, or not a gap: every word of it is held
			}
			word := toks[i] // the first content word of the span names it
			if k := slices.IndexFunc(toks[i:i+len(m.stems)], func(tok string) bool { return !stopWords[tok] }); k >= 0 {
				word = toks[i+k]
			}
			add(ref.g, word)
		}
	}
	if ex != nil && len(ex.syn) == 0 {
		return nil
	}
	return ex
}

// unspacedMembers calls add, once per member, with the groups of each
// member of the thesaurus that runs (of the request's tokens) hold,
// leftmost, longest first as the segmenter cuts ("订单号" is no "单号"),
// and the index lacks: the segmenter's words are the agent's own, so a
// gap is never one of them but inside the text between them, and a
// member is met there, within one of the tokens the segmenter cut, never
// across two.
func (h *heldThesaurus) unspacedMembers(runs []string, add func(g uint32, word string)) {
	var met []string
	for _, run := range runs {
		for i := 0; i < len(run); {
			w, size := h.th.unspaced.WordAt(run, i)
			if w == "" {
				i += size
				continue
			}
			i += len(w)
			if slices.Contains(met, w) || held(w, h.has) {
				continue // met already, or the agent's word: it means what the agent uses it for
			}
			met = append(met, w)
			for _, g := range h.th.single[w] {
				add(g, w)
			}
		}
	}
}

// held reports whether has holds the index's terms for stem st: st, or
// for a word of an unspaced script each of its pairs of runes (the index
// reads those scripts so, bigramSpans: "手机号" is 手机 and 机号).
func held(st string, has func(string) bool) bool {
	if !segment.HasUnspaced(st) {
		return has(st)
	}
	for i, r := range st {
		j := i + utf8.RuneLen(r)
		if j == len(st) {
			break
		}
		_, size := utf8.DecodeRuneInString(st[j:])
		if !has(st[i : j+size]) {
			return false
		}
	}
	return true
}

// searchTerms are the terms ex adds to a search over the request's
// terms have, once each: the synonyms' stems, an unspaced one's pairs;
// those of members of several words only with parts (they are never
// searched, but count in a hit's relevance).
func (ex *expansion) searchTerms(have []term, parts bool) []string {
	if ex == nil {
		return nil
	}
	var out []string
	add := func(st string) bool {
		if !slices.Contains(out, st) && !slices.ContainsFunc(have, func(o term) bool { return o.term == st }) {
			out = append(out, st)
		}
		return true
	}
	for _, t := range ex.syn {
		if t.part == nil || parts {
			held(t.stem, add) // add holds every term: it adds it
		}
	}
	return out
}

// fieldEvidence is synonymWeight × weight per request word the field
// (sorted terms in have) holds a synonym of but not the word itself,
// recorded in matched (true when a one-way group's name brought it).
func (ex *expansion) fieldEvidence(have []string, weight float64, terms []term, matched map[string]bool) float64 {
	if ex == nil {
		return 0
	}
	var w float64
	var done []string
	for _, t := range ex.syn {
		if t.part != nil || !held(t.stem, func(st string) bool { return holds(have, st) }) || len(t.word) < 2 || slices.Contains(done, t.word) {
			continue
		}
		if slices.ContainsFunc(terms, func(o term) bool { return o.word == t.word && holds(have, o.term) }) {
			continue // met as written: counted at full weight already
		}
		done = append(done, t.word)
		w += synonymWeight * weight
		matched[t.word] = matched[t.word] || t.jargon
	}
	return w
}

// synonymHit is a skill whose triggers or name synonyms help cover.
type synonymHit struct {
	skill   int
	phrases int // trigger phrases covered, plus one for the name
	rel     float64
	words   []string // content words of the request behind what was covered
	own     bool     // one of them is the request's own, not a synonym's source
	// everyday: a phrase was covered through a two-way synonym; only
	// then may phrases alone make the match, as a tool name stands for
	// several words ("print the pytest conference poster").
	everyday bool
}

// synonymHits finds the skills whose trigger phrases or name the
// request's stems (joined pairs too) cover once one request word is read
// as a synonym: every stem the request lacks must be a synonym of that
// one word ("ship the cart" for "deploy the cart"); two words swapped at
// once read meaning into the request.
func (r *Router) synonymHits(sp *specifics, toks, stems []string, ex *expansion) []synonymHit {
	if ex == nil {
		return nil
	}
	// The synonyms' stems some trigger or name uses, in expansion order.
	var syn []synID
	for _, t := range ex.syn {
		id, ok := sp.id(t.stem)
		var part []uint32
		for _, st := range t.part {
			pid, found := sp.id(st)
			ok = ok && found
			part = append(part, pid)
		}
		if ok {
			syn = append(syn, synID{id, t.word, part, t.jargon})
		}
	}
	if len(syn) == 0 {
		return nil
	}
	// wordOf is the request word behind id as a synonym in set, or "".
	wordOf := func(id uint32, set []uint32) (string, bool) {
		for _, s := range syn {
			if s.id == id && !slices.ContainsFunc(s.part, func(p uint32) bool { return !slices.Contains(set, p) }) {
				return s.word, s.jargon
			}
		}
		return "", false
	}
	var hits []synonymHit
	hit := func(skill int, set []uint32) {
		from, everyday := "", false
		for _, id := range set {
			w, jargon := wordOf(id, set)
			if w == "" && ownWord(id, toks, stems, sp) == "" {
				return // only part of a member of several words
			}
			if w != "" {
				if from != "" && from != w {
					return // synonyms of two request words
				}
				from = w
				everyday = everyday || !jargon
			}
		}
		if from == "" {
			return
		}
		k := slices.IndexFunc(hits, func(h synonymHit) bool { return h.skill == skill })
		if k < 0 {
			k = len(hits)
			hits = append(hits, synonymHit{skill: skill})
		}
		h := &hits[k]
		h.phrases++
		h.everyday = h.everyday || everyday
		for _, id := range set {
			w, _ := wordOf(id, set)
			if w == "" {
				w = ownWord(id, toks, stems, sp)
				h.own = h.own || w != "" && !stopWords[w]
			}
			if w != "" && !stopWords[w] && !slices.Contains(h.words, w) {
				h.words = append(h.words, w)
			}
		}
	}
	x := r.phrases
	var ids []uint32 // the synonyms' stems, then the request's (lookupStems sorts them all)
	for _, t := range ex.syn {
		if id, ok := x.stems.ids[t.stem]; ok {
			ids = append(ids, id)
		}
	}
	x.stems.each(x.stems.lookupStems(ids, toks, stems), func(p uint32) { hit(int(x.skillOf[p]), sp.phraseStems(p)) })
	var named []uint32 // names holding a synonym, each once
	for _, s := range syn {
		for _, skill := range sp.named.list(int(s.id)) {
			if !slices.Contains(named, skill) {
				named = append(named, skill)
				hit(int(skill), sp.names.list(int(skill))) // hit checks the cover
			}
		}
	}
	return hits
}

// synID is a synTerm by stem ids.
type synID struct {
	id     uint32
	word   string
	part   []uint32
	jargon bool // brought by a name of a one-way group (synTerm.jargon)
}

// ownWord is the request word whose stem has id, or "".
func ownWord(id uint32, toks, stems []string, sp *specifics) string {
	for i, st := range stems {
		if sid, ok := sp.id(st); ok && sid == id {
			return toks[i]
		}
	}
	return ""
}

// synonymFirst puts synonymHits' skills ahead of the relaxed matches out
// (of skills), by phrases covered, relevance, z, keeping want. Each must
// account for relaxedMinWords request words, one as written: a one-word
// trigger met through a synonym ("compose" for "write a limerick about
// cheese") needs another word of the skill's.
func (r *Router) synonymFirst(ctx context.Context, sp *specifics, text string, toks, stems []string, ex *expansion, out []Match, skills []int, want int) ([]Match, []int) {
	hits := r.synonymHits(sp, toks, stems, ex) // none without ex
	if len(hits) == 0 {
		return out, skills
	}
	var a analyzed
	if r.an != nil {
		a = requestTerms(r.an, text, toks, stems, true, nil)
	}
	kept := hits[:0]
	for _, h := range hits {
		if r.an != nil {
			s := r.src.Skill(h.skill)
			ev := r.evidence(a, h.skill, &s, ex, 0)
			h.own = h.own || ev.own > 0
			for _, w := range ev.words {
				if !slices.Contains(h.words, w) {
					h.words = append(h.words, w)
				}
			}
		}
		if (len(h.words) < relaxedMinWords || !h.own) && (h.phrases < synonymPhrases || !h.everyday) {
			continue
		}
		kept = append(kept, h)
	}
	hits = kept
	if len(hits) == 0 {
		return out, skills
	}
	r.synonymRelevance(ctx, a, ex, hits)
	slices.SortFunc(hits, func(a, b synonymHit) int {
		return cmp.Or(cmp.Compare(b.phrases, a.phrases), cmp.Compare(b.rel, a.rel),
			cmp.Compare(r.zRank[a.skill], r.zRank[b.skill]))
	})
	merged := make([]Match, 0, len(hits)+len(out))
	mskills := make([]int, 0, len(hits)+len(out))
	taken := make([]bool, len(out))
	add := func(m Match, skill int) {
		if len(merged) < want && !slices.Contains(mskills, skill) {
			merged = append(merged, m)
			mskills = append(mskills, skill)
		}
	}
	for _, h := range hits {
		// The relaxed matches that account for more request words than h
		// go first, in their order.
		for k := range out {
			if !taken[k] && len(out[k].Hits) > len(h.words) {
				taken[k] = true
				add(out[k], skills[k])
			}
		}
		name, z, _ := r.src.Phrases(h.skill)
		add(Match{Name: name, Z: z, Relevance: h.rel, Hits: h.words, Tier: TierRelaxed}, h.skill)
	}
	for k := range out {
		if !taken[k] {
			add(out[k], skills[k])
		}
	}
	return merged, mskills
}

// synonymRelevance sets the hits' relevance over the request's terms and
// every synonym, unboosted.
func (r *Router) synonymRelevance(ctx context.Context, a analyzed, ex *expansion, hits []synonymHit) {
	if r.scorer == nil {
		return
	}
	terms := slices.Clone(a.text)
	for _, st := range ex.searchTerms(a.text, true) {
		terms = append(terms, term{st, st})
	}
	cands := make([]candidate, len(hits))
	which := make([]int, len(hits))
	for i, h := range hits {
		cands[i].skill, which[i] = h.skill, i
	}
	r.scorer.relevanceOf(terms, cands, which)
	for i := range hits {
		hits[i].rel = cands[i].rel
	}
}

// holds reports whether the sorted terms hold term.
func holds(terms []string, term string) bool {
	_, ok := slices.BinarySearch(terms, term)
	return ok
}

// indexHas reports whether the index holds term; true without one, so
// nothing is left out for want of it.
func (r *Router) indexHas(term string) bool {
	if r.scorer == nil {
		return true
	}
	_, ok := r.scorer.ids[term]
	return ok
}
