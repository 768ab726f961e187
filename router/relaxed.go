package router

import (
	"cmp"
	"context"
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/agent3md/agent3md/internal/segment"
	"github.com/agent3md/agent3md/internal/wordlist"
	bsearch "github.com/blevesearch/bleve/v2/search"
)

// relaxed finds skills for a request that hit no trigger phrase, by
// relevance, keeping those within RelaxedThreshold of the best with the
// evidence bar (RelaxedEvidence, or RelaxedEvidenceUntriggered) and two
// request words (docs/architecture.md §5); skills whose whole name the
// request says come first ("run it on IBM Quantum with Qiskit Runtime"
// asks for qiskit). With runnersUp (beside sure matches) the thesaurus
// is not read: it never reorders what a phrase found.
func (r *Router) relaxed(ctx context.Context, text string, limit int, sp *specifics, rq request, runnersUp bool) ([]Match, error) {
	want := cmp.Or(limit, relaxedLimit)
	var ex *expansion
	if !runnersUp {
		// Only here, with no phrase hit and nothing named, may synonyms
		// widen the request (synonyms.go).
		ex = r.heldThesaurus().expand(rq.toks, rq.stems)
	}
	out, skills, _, err := r.relaxedSearchWith(ctx, text, rq, want, ex, runnersUp)
	if err != nil {
		return out, err
	}
	out, skills = r.synonymFirst(ctx, sp, text, rq.toks, rq.stems, ex, out, skills, want)
	if len(out) < 2 {
		return out, nil
	}
	// A stable partition in place: out[:k] are the named ones so far.
	k := 0
	for i := range out {
		if _, full := sp.nameSaid(rq, skills[i]); full {
			m := out[i]
			copy(out[k+1:i+1], out[k:i])
			out[k] = m
			k++
		}
	}
	return out, nil
}

// relaxedSearchWith is relaxed without the named skills first, for a
// request widened by ex (nil: none); it also returns the matches' skill
// positions and the search hits, best first. With runnersUp only the
// evidence bar applies, not RelaxedThreshold.
func (r *Router) relaxedSearchWith(ctx context.Context, text string, rq request, want int, ex *expansion, runnersUp bool) ([]Match, []int, []scored, error) {
	out := []Match{}
	if r.scorer == nil {
		return out, nil, nil, nil
	}
	a := requestTerms(r.an, text, rq.toks, rq.stems, true, nil)
	if len(a.text) == 0 { // no term to search for
		return out, nil, nil, nil
	}
	var skills []int
	// The index never holds more hits than skills, and bleve allocates
	// its hit pool to the requested size on every search, so a small
	// agent asks for no more than it has: same hits, less garbage.
	pool := min(want*relaxedPool, max(r.src.Len(), 1))
	res, err := r.searchRelevant(ctx, a, ex, pool)
	if err != nil {
		return out, nil, res, err
	}
	res, body := r.withBodies(a, res, pool)
	rq.memo.keep(a, ex, pool, res, body)
	sp := r.specificsOf()
	if len(res) == 0 {
		return out, nil, res, nil
	}
	cut := res[0].score * r.opts.RelaxedThreshold
	if runnersUp {
		cut = 0
	}
	for _, h := range res {
		if h.score < cut || len(out) == want {
			break
		}
		if h.skill < 0 || h.skill >= r.src.Len() {
			continue
		}
		s := r.src.Skill(h.skill)
		bh, _ := findBody(body, h.skill)
		ev := r.evidence(a, h.skill, &s, ex, bh.terms)
		ev.partial = r.partialPhrase(ctx, sp, rq, h.skill)
		bar := r.opts.RelaxedEvidence
		if len(s.Triggers) == 0 {
			bar = r.opts.RelaxedEvidenceUntriggered
		}
		if !ev.enough(bar) {
			continue
		}
		if cap(out) == 0 {
			// Room for want: the runner-ups (runnersUp) fill up to it.
			out = make([]Match, 0, want)
		}
		out = append(out, Match{Name: s.Name, Z: s.Z, Relevance: h.score, Hits: ev.words, Tier: TierRelaxed})
		skills = append(skills, h.skill)
	}
	return out, skills, res, nil
}

// relaxedEvidence is what a skill's fields hold of a request: the summed
// field weights of the terms held (weight), what synonyms add (syn), the
// request words behind them in order, how many held as written (own), of
// those how many not common English (rare), and how many through a
// one-way group's name (jargon).
type relaxedEvidence struct {
	weight, syn       float64
	words             []string
	own, rare, jargon int
	// partial is set when the request holds every informative word of
	// one of the skill's trigger phrases (partialPhrase).
	partial bool
}

// enough reports whether the evidence makes a relaxed match against bar:
// relaxedMinWords request words, one as written and the others as
// written or through a one-way group's name, and weight (synonyms
// counted) up to bar. An everyday synonym adds weight, never a word; a
// tool name counts as a word ("a matplotlib png of signups" asks for a
// chart), never alone nor beside only common words ("what does the
// Intercom logo look like").
func (ev relaxedEvidence) enough(bar float64) bool {
	words := ev.own >= relaxedMinWords || ev.rare > 0 && ev.own+ev.jargon >= relaxedMinWords || ev.partial && ev.own > 0
	return words && ev.weight+ev.syn >= bar
}

// evidence is the relaxedEvidence of skill s (at position skill) for the
// analysed request a, widened by ex (nil: as written); body holds the
// terms of a.text (bits by position) the skill's body holds
// (bodyIndex.score), each bodyEvidence when no other field holds it.
func (r *Router) evidence(a analyzed, skill int, s *Skill, ex *expansion, body uint64) relaxedEvidence {
	var weight, syn float64
	// The request words the skill holds as written, and of those the ones
	// only its body holds: lists, as a request has a handful of words.
	var onStack [2 * maxStackTerms]string
	matched, fromBody := onStack[:0:maxStackTerms], onStack[maxStackTerms:maxStackTerms]
	var viaSyn map[string]bool // those it holds only through synonyms (true: a tool name's)
	if ex != nil {
		viaSyn = map[string]bool{}
	}
	st := r.fieldTerms(skill, s)
	terms := a.text
	for k, f := range fields {
		have := st[k]
		if len(have) == 0 || len(terms) == 0 {
			continue
		}
		for _, t := range terms {
			// A single letter (a variable, an initial, the x of "2 x
			// 3") is no evidence of anything; contraction tails are
			// stop words already (stopwords.go).
			if _, ok := slices.BinarySearch(have, t.term); ok && utf8.RuneCountInString(t.word) > 1 {
				weight += f.weight
				if !slices.Contains(matched, t.word) {
					matched = append(matched, t.word)
				}
			}
		}
		syn += ex.fieldEvidence(have, f.weight, terms, viaSyn)
	}
	bx := r.bodies.Load()
	for k, t := range a.text {
		if k < 64 && body&(1<<k) != 0 && !slices.Contains(matched, t.word) && utf8.RuneCountInString(t.word) > 1 {
			weight += bx.evidence(t.term)
			if !wordlist.Common(strings.ToLower(t.word)) {
				matched, fromBody = append(matched, t.word), append(fromBody, t.word)
			}
		}
	}
	ev := relaxedEvidence{weight: weight, syn: syn}
	if n := len(matched) + len(viaSyn); n > 0 {
		ev.words = make([]string, 0, n) // the most it takes: one allocation
	}
	prev := ""                  // the request word before, when only the body holds it
	for _, t := range a.exact { // every request word, in request order
		toolName, bySyn := viaSyn[t.word]
		own, body := slices.Contains(matched, t.word), slices.Contains(fromBody, t.word)
		run := body && continuesRun(prev, t.word)
		prev = ""
		if body {
			prev = t.word
		}
		if (own || bySyn) && !slices.Contains(ev.words, t.word) {
			ev.words = append(ev.words, t.word)
			if run { // the same stretch of body text: one word
				continue
			}
			if own {
				ev.own++
				if !wordlist.Common(strings.ToLower(t.word)) {
					ev.rare++
				}
			} else if toolName {
				ev.jargon++
			}
		}
	}
	return ev
}

// continuesRun reports whether pair, an unspaced request word, is the
// next pair of prev's run: a stretch a request shares with a body (a
// stock phrase, "小时内发") is one piece of evidence, one request word.
func continuesRun(prev, pair string) bool {
	if prev == "" || !segment.AllUnspaced(prev) || !segment.AllUnspaced(pair) {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(prev)
	first, _ := utf8.DecodeRuneInString(pair)
	return last == first
}

// withBodies adds bodyRelevance of the body relevance (bodyIndex.score)
// to the hits res, with the skills res lacks, and returns the best size
// by that sum (ties in skill order) and the body scores by skill.
func (r *Router) withBodies(a analyzed, res []scored, size int) ([]scored, []bodyScored) {
	body := r.bodies.Load().score(a.text)
	if len(body) == 0 {
		return res, nil
	}
	out := make([]scored, 0, len(res)+min(size, len(body)))
	for _, h := range res {
		if b, ok := findBody(body, h.skill); ok {
			h.score = roundRelevance(h.score + bodyRelevance*b.rel)
		}
		out = append(out, h)
	}
	var only []scored // found through their bodies alone
	for _, b := range body {
		if !slices.ContainsFunc(res, func(h scored) bool { return h.skill == b.skill }) {
			only = append(only, scored{b.skill, roundRelevance(bodyRelevance * b.rel)})
		}
	}
	order := func(a, b scored) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.skill, b.skill)) }
	slices.SortFunc(only, order)
	out = append(out, only[:min(len(only), size)]...)
	slices.SortFunc(out, order)
	return out, body
}

// Partial phrases: people leave out a phrase's plain words
// ("payments-api is hanging, bounce it" for "bounce the service"), so in
// the relaxed tier a phrase whose informative words are all in the
// request lets its skill match on fewer than relaxedMinWords words, the
// evidence bar still applying. A word is informative unless a stop word,
// held by more than commonShare of the skills' triggers or names, or
// common English (wordlist.Common: "service", "restart"). A phrase with
// no informative word never counts, and one with a single one only when
// no other skill's fields use it (ownWord).

// commonShare: a stem more than this share of the agent's skills use in
// their triggers or name says little about which is meant.
const commonShare = 0.25

// partialPhrase reports whether one of skill's trigger phrases has at
// least one informative word and all of them among the request's stems
// (rq.ids). A phrase with one informative word counts only when that word
// is the skill's own (ownWord).
func (r *Router) partialPhrase(ctx context.Context, sp *specifics, rq request, skill int) bool {
	for _, p := range r.informativeOf(sp, skill) {
		all := true
		for _, id := range p.ids {
			if _, held := slices.BinarySearch(rq.ids, id); !held {
				all = false
				break
			}
		}
		if all && (len(p.ids) > 1 || r.ownWord(ctx, sp, p.ids[0], p.stem)) {
			return true
		}
	}
	return false
}

// informative is a trigger phrase's informative words as stem ids, in
// phrase order, and the stem of its last one (ownWord's, for a phrase
// of one).
type informative struct {
	ids  []uint32
	stem string
}

// informativeOf returns the informative words of skill's trigger
// phrases that may count as partial phrases: those with at least one,
// each a stem the agent knows (one it does not the request never holds).
// A small agent's skills keep them once read (fieldTermCache), as their
// fields' terms: tokenizing and stemming every trigger of every relaxed
// candidate was a tenth of a relaxed route.
func (r *Router) informativeOf(sp *specifics, skill int) []informative {
	c := &r.fieldCache
	n := r.src.Len()
	if n > fieldTermsMax || skill < 0 || skill >= n {
		return readInformative(sp, r.src, skill)
	}
	c.once.Do(func() { c.alloc(n) })
	if ps := c.phrases[skill].Load(); ps != nil {
		return *ps
	}
	ps := readInformative(sp, r.src, skill)
	c.phrases[skill].Store(&ps)
	return ps
}

// readInformative reads informativeOf's phrases from skill's triggers.
func readInformative(sp *specifics, src Source, skill int) []informative {
	_, _, triggers := src.Phrases(skill)
	var out []informative
	var ids []uint32 // every phrase's, in one array
	var onStack [16]string
phrases:
	for _, p := range triggers {
		at, stem := len(ids), ""
		for _, tok := range appendTokens(onStack[:0], p) {
			if stopWords[tok] {
				continue
			}
			st := routeStem(tok)
			id, ok := sp.id(st)
			if !ok {
				ids = ids[:at]
				continue phrases
			}
			if sp.common(id) || wordlist.Common(tok) {
				continue
			}
			ids, stem = append(ids, id), st
		}
		if len(ids) > at {
			out = append(out, informative{ids: ids[at:len(ids):len(ids)], stem: stem})
		}
	}
	return out
}

// ownWord reports whether the word whose stem is st (id) is one skill's
// alone in its triggers, name and indexed fields, where the router can
// tell: a word another skill's description says ("cancel") has more than
// one sense across the agent.
func (r *Router) ownWord(ctx context.Context, sp *specifics, id uint32, st string) bool {
	if int(id) >= len(sp.df) || sp.df[id] != 1 {
		return false
	}
	n, ok := r.scorer.skillsHolding(ctx, st)
	return !ok || n <= 1
}

// common reports whether more than commonShare of the agent's skills use
// stem id in their triggers or name.
func (sp *specifics) common(id uint32) bool {
	return int(id) < len(sp.df) && float64(sp.df[id]) > commonShare*float64(sp.skills)
}

// Relaxed evidence asks which request terms each field of a skill holds;
// analyzing every field of every skill a relaxed search finds would be
// most of a relaxed route (every route, on skill folders without
// triggers), so a small agent's skills keep their fields' terms once read.

// fieldTermsMax is the most skills whose field terms (and informative
// phrase words) are kept: the pointers cost 16 bytes a skill up front
// and the terms a few hundred bytes for each skill a relaxed route has
// found. Larger agents read them on each route.
const fieldTermsMax = 4096

// fieldTermCache holds, per skill position, its fields' terms and its
// trigger phrases' informative words (informativeOf) once read.
type fieldTermCache struct {
	once    sync.Once
	skills  []atomic.Pointer[skillTerms]
	phrases []atomic.Pointer[[]informative]
}

// alloc makes room for n skills.
func (c *fieldTermCache) alloc(n int) {
	c.skills, c.phrases = make([]atomic.Pointer[skillTerms], n), make([]atomic.Pointer[[]informative], n)
}

// skillTerms are one skill's terms, per entry of fields: distinct and
// sorted.
type skillTerms [][]string

// fieldTerms returns the terms of skill s (at position skill), per entry
// of fields, as the text analyzer gives them: distinct and sorted.
func (r *Router) fieldTerms(skill int, s *Skill) skillTerms {
	c := &r.fieldCache
	n := r.src.Len()
	if n > fieldTermsMax || skill < 0 || skill >= n {
		return r.analyzeFields(s)
	}
	c.once.Do(func() { c.alloc(n) })
	if st := c.skills[skill].Load(); st != nil {
		return *st
	}
	st := r.analyzeFields(s)
	c.skills[skill].Store(&st)
	return st
}

// analyzeFields runs each field of s through the text analyzer.
func (r *Router) analyzeFields(s *Skill) skillTerms {
	st := make(skillTerms, len(fields))
	for k, f := range fields {
		val := fieldValue(s, f.name)
		if val == "" {
			continue
		}
		toks := r.an.text.Analyze([]byte(val))
		terms := make([]string, 0, len(toks))
		for _, tok := range toks {
			terms = append(terms, string(tok.Term))
		}
		slices.Sort(terms)
		st[k] = slices.Clip(slices.Compact(terms))
	}
	return st
}

// term returns term's id and how many bodies hold it.
func (x *bodyIndex) term(term string) (id uint32, df int) {
	id, ok := x.ids[term]
	if !ok {
		return 0, 0
	}
	return id, int(x.df[id])
}

// eachPosting calls fn with every skill whose body holds term id, in
// ascending order.
func (x *bodyIndex) eachPosting(id uint32, fn func(skill uint32)) {
	b := x.post[x.start[id]:x.start[id+1]]
	skill := uint32(0)
	for len(b) > 0 {
		gap, n := binary.Uvarint(b)
		b = b[n:]
		skill += uint32(gap) // the first gap is the skill itself
		fn(skill)
	}
}

// bodyCommonShare: a term that more than this share of the bodies hold
// is no evidence of what a request wants (in the example agents: "use",
// "check", "run"), and bodyMaxPostings bounds the postings one request
// term may cost a route, whatever the agent's size.
const (
	bodyCommonShare = 0.25
	bodyMaxPostings = 1000
)

// bodyScored is a skill whose body holds some of a request's terms: its
// BM25 relevance over the body index, and which terms (bits: positions
// in the request's term list) it holds.
type bodyScored struct {
	skill int
	rel   float64
	terms uint64
}

// score finds every skill whose body holds an informative request term
// (held by at most bodyCommonShare of the bodies and bodyMaxPostings),
// scored as bleve's BM25 would score the disjunction over a field of each
// body's terms once (relevanceOf). Common terms count in the query norm
// and the share of terms held, never in the sum.
func (x *bodyIndex) score(terms []term) []bodyScored {
	if x == nil || len(terms) == 0 || x.avgLength == 0 {
		return nil
	}
	n := len(x.length) // the skills the index covers
	maxDF := min(max(1, int(bodyCommonShare*float64(n))), bodyMaxPostings)
	var weights float64
	type read struct {
		id  uint32
		idf float64
		bit uint64
	}
	var onStack [maxStackTerms]read
	reads, postings := onStack[:0], 0
	for k, t := range terms {
		id, df := x.term(t.term)
		idf := math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
		weights += idf * idf
		if df > 0 && df <= maxDF && k < 64 {
			reads, postings = append(reads, read{id, idf, 1 << k}), postings+df
		}
	}
	if len(reads) == 0 {
		return nil
	}
	qnorm := 1 / math.Sqrt(weights)
	out := make([]bodyScored, 0, postings) // one allocation, not one per doubling
	for _, rd := range reads {
		x.eachPosting(rd.id, func(s uint32) {
			out = append(out, bodyScored{skill: int(s), terms: rd.bit})
		})
	}
	slices.SortFunc(out, func(a, b bodyScored) int { return a.skill - b.skill })
	merged := out[:0]
	for _, h := range out {
		if k := len(merged) - 1; k >= 0 && merged[k].skill == h.skill {
			merged[k].terms |= h.terms
			continue
		}
		merged = append(merged, bodyScored{skill: h.skill, terms: h.terms})
	}
	for i := range merged {
		h := &merged[i]
		norm := 1 - bsearch.BM25_b + bsearch.BM25_b*float64(x.length[h.skill])/x.avgLength
		tf := bsearch.BM25_k1 / (1 + bsearch.BM25_k1*norm)
		var sum float64
		matched := 0
		for _, rd := range reads {
			if h.terms&rd.bit != 0 {
				sum += rd.idf * qnorm * rd.idf * tf
				matched++
			}
		}
		h.rel = roundRelevance(sum * float64(matched) / float64(len(terms)))
	}
	return merged
}

// evidence is what a request term that only a skill's body holds adds
// to its relaxed evidence: bodyFewEvidence when few bodies hold it.
func (x *bodyIndex) evidence(term string) float64 {
	if x == nil {
		return bodyEvidence
	}
	if _, df := x.term(term); df <= bodyFewBodies {
		return bodyFewEvidence
	}
	return bodyEvidence
}

// find returns skill's entry in scored (sorted by skill).
func findBody(scored []bodyScored, skill int) (bodyScored, bool) {
	i, ok := slices.BinarySearchFunc(scored, skill, func(h bodyScored, s int) int { return h.skill - s })
	if !ok {
		return bodyScored{}, false
	}
	return scored[i], true
}
