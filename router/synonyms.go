package router

import (
	"cmp"
	"context"
	"slices"
)

// Synonym expansion (docs/architecture.md §5, "Synonyms"). Most requests
// that reach the relaxed tier miss because the user says a word no field
// of the right skill uses: "ship cart" to a skill that deploys, "draw daily
// signups" to one that charts, "what is the service printing" to one that
// tails logs. The thesaurus (thesaurus.txt) joins such words. Only a
// Ranked route that hit no phrase, through words or stems, and named no
// skill reads it (relaxed), so it can neither demote a phrase hit (spec's
// answer or a stem hit) nor touch Spec routing. There, each request word
// the agent's index does not hold (a vocabulary gap) brings the other
// members of its groups that the index does hold. A word the agent uses
// is left as it is: it means what the agent uses it for, and its synonyms
// only blurred which skills hold it (on the development sets they
// reordered right answers and, through "incident", "update" or "rotate",
// offered skills for requests no skill handles). Synonyms always count
// for less than the words the user wrote:
//
//   - synonym hits: a skill whose trigger phrase or name the request
//     covers once one of its words is read as a synonym ("ship" covers
//     a trigger "deploy"; "draw" covers "chart") is offered as a relaxed
//     match, the user still to confirm it, when it accounts for two
//     request words, one as written, or when that one word covers two
//     of its phrases through an everyday synonym (a tool name covers
//     several at once: synonymHit.everyday). It goes ahead of the matches found by relevance
//     alone unless one of those accounts for more request words
//     (synonymFirst);
//   - the relaxed search adds the synonyms as term queries boosted by
//     synonymBoost, and evidence counts a field that holds one at
//     synonymWeight of the field's weight, once per request word; but a
//     relaxed match still needs two request words as written
//     (relaxedEvidence.enough): synonyms add weight and order, not words,
//     except a tool name or piece of jargon from a one-way group, which
//     counts as a word beside one written as the skill says it that is
//     not among English's commonest (wordlist.Common);
//   - a member of several words ("roll out", "get rid of") is met in a
//     request as adjacent words, and covers a phrase only whole: "get" is
//     no synonym of "delete".

// synonymWeight is how much a request word met only through a synonym
// counts, against the same word met as written: a synonym is the user's
// intent as the thesaurus reads it, weaker evidence than their own word.
const synonymWeight = 0.5

// synonymPhrases is how many of a skill's trigger phrases (or its name)
// one request word must cover through synonyms to make a synonym hit on
// its own: a skill that says the intent several ways ("upgrade", "bump")
// is what "update cobra to v1.8" asks for, while a lone trigger met
// through an everyday word ("write" for "compose") is no evidence.
const synonymPhrases = 2

// synonymBoost is the boost of a synonym's term in the relaxed search,
// lower than synonymWeight: BM25 adds up every term a skill holds, and a
// word with several synonyms in one skill's fields would otherwise weigh
// more than the word itself (on the development sets 0.15-0.25 did best;
// 0.5 reordered relevance-only matches that were right).
const synonymBoost = 0.25

// maxSynonymTerms bounds the stems one request adds, so that a long
// request of common words cannot grow its search without limit.
const maxSynonymTerms = 64

// expansion is what the thesaurus adds to one request.
type expansion struct {
	syn []synTerm
}

// synTerm is a stem a request word brings through the thesaurus.
type synTerm struct {
	stem string
	word string // the request word it came from, as written (lowercased)
	// part is, for a member of several words ("roll out"), the stems of
	// its content words: such a stem is no synonym alone ("get" of "get
	// rid of" is not "delete"), so it is never searched or weighed, and
	// it covers a phrase only with the rest of its member. Nil for a
	// one-word member.
	part []string
	// jargon marks a stem brought by a name of a one-way group (a tool,
	// library, format or piece of jargon): the name says the intent as
	// plainly as the generic word would, so relaxed evidence counts the
	// request word behind it towards its words (relaxedEvidence.enough).
	jargon bool
}

// heldThesaurus is the thesaurus as one agent can use it: per group, the
// stems of its members that the agent's index holds, stop words left
// out, each with its member's content stems when the member has several
// words (and then only members whose every content stem is held). A
// Router builds it once (Router.heldThesaurus), so an expansion looks up
// the request's words and reads lists, instead of asking the index about
// every member of every group they meet.
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

// holdThesaurus reads th against an index that holds the terms has says.
func holdThesaurus(th *thesaurus, has func(term string) bool) *heldThesaurus {
	h := &heldThesaurus{th: th, has: has, syn: make([][]heldStem, len(th.groups))}
	for g, group := range th.groups {
		for _, m := range group {
			if slices.ContainsFunc(m.content, func(st string) bool { return !has(st) }) {
				continue // a word of it no skill uses: it covers nothing
			}
			for k, st := range m.stems {
				if !stopWords[m.words[k]] && has(st) {
					h.syn[g] = append(h.syn[g], heldStem{st, m.content})
				}
			}
		}
	}
	return h
}

// heldThesaurus returns the Router's heldThesaurus for the thesaurus in
// use, building it on first use.
func (r *Router) heldThesaurus() *heldThesaurus {
	th := thesaurusOnce()
	if h := r.held.Load(); h != nil && h.th == th {
		return h
	}
	h := holdThesaurus(th, r.indexHas)
	r.held.Store(h)
	return h
}

// expand reads the request's tokens and their stems against the
// thesaurus: each one-word member met by its stem and each member of
// several words met as adjacent stems, when the index does not hold it
// (for a member of several words, one of its content words), brings
// the stems of its groups that the index holds, except those the
// request already has and stop words (the "to" of "push to
// production"), which the index drops. It returns nil when the request
// brings nothing.
func (h *heldThesaurus) expand(toks, stems []string) *expansion {
	th := h.th
	if len(th.groups) == 0 {
		return nil
	}
	var ex *expansion
	add := func(g uint32, word string) {
		jargon := th.oneWay(g)
		for _, hs := range h.syn[g] {
			if len(ex.syn) == maxSynonymTerms || slices.Contains(stems, hs.stem) ||
				slices.ContainsFunc(ex.syn, func(t synTerm) bool { return t.stem == hs.stem && t.part == nil }) {
				continue
			}
			ex.syn = append(ex.syn, synTerm{stem: hs.stem, word: word, part: hs.part, jargon: jargon})
		}
	}
	for i, st := range stems {
		if stopWords[toks[i]] {
			continue
		}
		if len(th.single[st]) > 0 && !h.has(st) {
			if ex == nil {
				ex = &expansion{}
			}
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
			if ex == nil {
				ex = &expansion{}
			}
			word := toks[i] // the first content word of the span names it
			for _, tok := range toks[i : i+len(m.stems)] {
				if !stopWords[tok] {
					word = tok
					break
				}
			}
			add(ref.g, word)
		}
	}
	if ex != nil && len(ex.syn) == 0 {
		return nil
	}
	return ex
}

// fieldEvidence is the evidence the expansion adds to one field of a
// skill (its analysed terms in have, sorted; weight the field's): synonymWeight of
// weight for each request word the field holds a synonym of but not the
// word itself (terms, the request's own), once per word. It records each
// such word in matched, true when it came through a name of a one-way
// group (a tool name).
func (ex *expansion) fieldEvidence(have []string, weight float64, terms []term, matched map[string]bool) float64 {
	if ex == nil {
		return 0
	}
	var w float64
	var done []string
	for _, t := range ex.syn {
		if t.part != nil || !holds(have, t.stem) || len(t.word) < 2 || slices.Contains(done, t.word) {
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

// synonymHit is a skill whose trigger phrases or name the request covers
// with the help of synonyms.
type synonymHit struct {
	skill   int
	phrases int // trigger phrases covered, plus one for the name
	rel     float64
	words   []string // content words of the request behind what was covered
	own     bool     // one of them is the request's own, not a synonym's source
	// everyday is set when a phrase was covered through an everyday
	// (two-way) synonym. Only then may phrases alone make the match: a
	// tool name stands for several generic words at once ("pytest" for
	// test, test suite, unit test), so covering two phrases with it is
	// no evidence that the request asks for the skill ("print the
	// pytest conference poster").
	everyday bool
}

// synonymHits finds the skills whose trigger phrases or name the request
// covers with its stems (toks, stems; adjacent pairs as one word too, as
// phrase matching reads them) once one of its words is read as a synonym:
// the stems of a phrase that the request lacks must all be synonyms of
// one request word. One word swapped is what "ship the cart" for "deploy
// the cart" is; two swapped at once ("refund" and "customer" making
// "returning users") reads meaning into the request that it does not
// have. Callers reach it only when no phrase hit without synonyms, so
// every phrase it finds needs a synonym.
func (r *Router) synonymHits(sp *specifics, toks, stems []string, ex *expansion) []synonymHit {
	if ex == nil {
		return nil
	}
	// The synonyms' stems that some trigger or name uses, as ids, in
	// expansion order (so hits list their words in a fixed order).
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
	// wordOf is the request word behind id as a synonym in set: a
	// one-word member's stem, or a stem of a member whose every content
	// stem set holds; "" when it is neither.
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
	var pair []byte
	ids := x.stems.lookupStems(nil, toks, stems, &pair)
	for _, t := range ex.syn {
		if id, ok := x.stems.ids[t.stem]; ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	x.stems.each(slices.Compact(ids), func(p uint32) { hit(int(x.skillOf[p]), sp.phraseStems(p)) })
	// Names holding a synonym, every stem of them the request's or a
	// synonym's.
	var named []uint32 // a name counts once, however many synonyms it holds
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

// synID is a synonym's stem id, the request word it came from, and the
// ids of its member's content stems when the member has several words.
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

// synonymFirst puts the skills that synonymHits finds ahead of the relaxed
// matches out (of skills), most phrases covered first, then by relevance
// (synonymRelevance), then z, and keeps want matches. Like any relaxed match, a
// skill found this way must account for relaxedMinWords request words,
// one of them as written: those behind what it covered and those its
// fields hold (evidence). A phrase of two words with one swapped has
// them; a one-word trigger met through a synonym ("ship" for "deploy")
// needs another request word the skill holds ("ship the cart service"
// to a skill whose input is the service), which keeps "write a limerick
// about cheese" from a skill that triggers on "compose".
func (r *Router) synonymFirst(ctx context.Context, sp *specifics, text string, toks, stems []string, ex *expansion, out []Match, skills []int, want int) ([]Match, []int) {
	if ex == nil {
		return out, skills
	}
	hits := r.synonymHits(sp, toks, stems, ex)
	if len(hits) == 0 {
		return out, skills
	}
	var a analyzed
	if r.an != nil {
		a = analyze(r.an, text, true)
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
		// The relaxed matches that outweigh h go first, in their order.
		for k := range out {
			if !taken[k] && outweighs(out[k], h) {
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

// synonymRelevance sets the relevance of hits: bleve's BM25 for the
// request's terms and every synonym of the expansion, unboosted, so that
// a skill found through a synonym of a word the index holds (which the
// relaxed search did not look for) is scored too, and the hits compare
// among themselves.
func (r *Router) synonymRelevance(ctx context.Context, a analyzed, ex *expansion, hits []synonymHit) {
	if r.scorer == nil {
		return
	}
	terms := slices.Clone(a.text)
	for _, t := range ex.syn {
		if !slices.ContainsFunc(terms, func(o term) bool { return o.term == t.stem }) {
			terms = append(terms, term{t.stem, t.word})
		}
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

// outweighs reports whether relaxed match m goes ahead of synonym hit h:
// it accounts for more request words ("send my branch to the team on
// GitHub so they can review it" is about the skill whose fields hold
// send, branch, GitHub and review, not the one that reads "review" as a
// synonym of its trigger), or as many and is more relevant.
func outweighs(m Match, h synonymHit) bool {
	return len(m.Hits) > len(h.words)
}

// holds reports whether the sorted terms hold term.
func holds(terms []string, term string) bool {
	_, ok := slices.BinarySearch(terms, term)
	return ok
}

// indexHas reports whether the agent's index holds term; true when it
// cannot tell (no index), so that nothing is left out for want of it.
func (r *Router) indexHas(term string) bool {
	if r.scorer == nil {
		return true
	}
	_, ok := r.scorer.postings(term)
	return ok
}
