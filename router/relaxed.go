package router

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/agent3md/agent3md/internal/wordlist"
)

// relaxed finds skills for a request that hit no trigger phrase, from
// relevance over all fields (relevance.go), keeping those within RelaxedThreshold
// of the best-scoring skill and with at least RelaxedEvidence (a skill
// without triggers: RelaxedEvidenceUntriggered) and two request words
// (docs/architecture.md §5). Among those kept, the skills
// whose whole name the request says (rq, as rankedRoute read it) come
// first, in relevance order: "run it on IBM Quantum with Qiskit Runtime"
// asks for the skill named qiskit, whatever another skill's description
// says about IBM.
//
// With runnersUp set, the matches are runners-up beside sure matches
// (rankedRoute): the thesaurus is not read (it widens only requests that
// hit nothing, so that it never reorders what a phrase found).
func (r *Router) relaxed(ctx context.Context, text string, limit int, sp *specifics, rq request, runnersUp bool) ([]Match, error) {
	want := limit
	if want == 0 {
		want = relaxedLimit
	}
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

// relaxedSearchWith is relaxed for want matches, without the named skills
// first, for a request widened by ex (nil: as written); it also returns
// the matches' skill positions and the search hits they were chosen
// from, best first. Runners-up (relaxed) are not held to RelaxedThreshold:
// they follow a sure match, and the evidence bar alone decides whether
// one is worth a line (a skill whose fields hold more of the request may
// be less relevant than one whose few words are rare).
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
		out = append(out, Match{Name: s.Name, Z: s.Z, Relevance: h.score, Hits: ev.words, Tier: TierRelaxed})
		skills = append(skills, h.skill)
	}
	return out, skills, res, nil
}

// relaxedEvidence is what a skill's fields hold of a request: the summed
// boosts of the (field, term) pairs of the request the skill contains
// (weight), what synonyms add to that (syn, see
// expansion.fieldEvidence), the request words behind either in request
// order, how many of those the skill holds as written (own) and how many
// of those are not among English's commonest words (rare), and how many
// others it holds through a tool name or piece of jargon (jargon).
type relaxedEvidence struct {
	weight, syn       float64
	words             []string
	own, rare, jargon int
	// partial is set when the request holds every informative word of
	// one of the skill's trigger phrases (partialPhrase).
	partial bool
}

// enough reports whether the evidence makes a relaxed match against bar:
// relaxedMinWords request words, at least one met as written and the
// others as written or through a name of a one-way group, and weight,
// synonyms counted, up to bar. An everyday synonym adds weight and
// order, never one of the words: "delete the old release branch" holds
// only "branch" of a skill that opens pull requests, whatever "release"
// is a synonym of there. A tool name is the intent said in other words
// ("render a matplotlib png of signups" asks for a chart as plainly as
// "chart signups" does), so it counts as a word, but never alone, nor
// beside only a word as common as "look" or "can": a tool named in
// passing ("what does the Intercom logo look like") is no request for
// the skill that works with it.
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
	matched := map[string]bool{}  // request words the skill holds as written
	viaSyn := map[string]bool{}   // and those it holds only through synonyms (true: a tool name's)
	fromBody := map[string]bool{} // and those only its body holds
	st := r.fieldTerms(skill, s)
	for k, f := range fields {
		terms := a.text
		if f.analyzer == exactAnalyzer {
			terms = a.exact
		}
		have := st[k]
		if len(have) == 0 || len(terms) == 0 {
			continue
		}
		for _, t := range terms {
			// Single letters are mostly the tails of contractions and
			// possessives ("customer's"): no evidence of anything.
			if _, ok := slices.BinarySearch(have, t.term); ok && utf8.RuneCountInString(t.word) > 1 {
				weight += f.weight
				matched[t.word] = true
			}
		}
		syn += ex.fieldEvidence(have, f.weight, terms, viaSyn)
	}
	bx := r.bodies.Load()
	for k, t := range a.text {
		if k < 64 && body&(1<<k) != 0 && !matched[t.word] && utf8.RuneCountInString(t.word) > 1 {
			weight += bx.evidence(t.term)
			if !wordlist.Common(strings.ToLower(t.word)) {
				matched[t.word] = true
				fromBody[t.word] = true
			}
		}
	}
	ev := relaxedEvidence{weight: weight, syn: syn}
	prev := ""                  // the request word before, when only the body holds it
	for _, t := range a.exact { // every request word, in request order
		toolName, bySyn := viaSyn[t.word]
		run := fromBody[t.word] && continuesRun(prev, t.word)
		prev = ""
		if fromBody[t.word] {
			prev = t.word
		}
		if (matched[t.word] || bySyn) && !slices.Contains(ev.words, t.word) {
			ev.words = append(ev.words, t.word)
			if run { // the same stretch of body text: one word
				continue
			}
			if matched[t.word] {
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

// continuesRun reports whether pair, a request word of an unspaced
// script, is the next pair of the same run of text as prev. A body is
// read as pairs of characters (bigramSpans), and a stretch of text a
// request shares with a body, often a stock phrase ("48 小时内发出" in
// one body, "48小时内发货" in a request about another skill), is as many
// pairs as it has characters less one, half of them straddling two
// words (内发): one piece of evidence, counted as one request word.
func continuesRun(prev, pair string) bool {
	if prev == "" || !allUnspaced(prev) || !allUnspaced(pair) {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(prev)
	first, _ := utf8.DecodeRuneInString(pair)
	return last == first
}

// withBodies adds the body index's relevance (bodyIndex.score) to the
// relaxed search's hits res, at bodyRelevance of its own, and adds the
// skills it finds that res lacks, best first, up to size of them; it
// returns the hits by that sum, best first (equal sums in skill order),
// and the body scores by skill, for evidence.
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
	order := func(a, b scored) int {
		if a.score != b.score {
			return cmp.Compare(b.score, a.score)
		}
		return cmp.Compare(a.skill, b.skill)
	}
	slices.SortFunc(only, order)
	out = append(out, only[:min(len(only), size)]...)
	slices.SortFunc(out, order)
	return out, body
}

// A trigger phrase is all-or-nothing in the phrase tier: "bounce the
// service" hits only a request that says bounce, the and service. People
// leave out the words a phrase spells the intent with ("payments-api is
// hanging, bounce it"), so in Ranked mode's relaxed tier a phrase whose
// informative words are all in the request counts as evidence: its
// skill may be a relaxed match on fewer request words than
// relaxedMinWords (relaxedEvidence.enough), still to be confirmed, and
// still needing the evidence bar (one trigger word reaches it). Spec
// mode never reads this.
//
// A word of a phrase is informative unless it is a stop word, or common:
// held by more than commonShare of the agent's skills in their triggers
// or name (specifics: "check" in an agent where every skill checks
// something), or one of English's commonest words (wordlist.Common:
// "service", "restart", "the"). The agent alone cannot tell: in an
// agent of eight skills every word is rare, and "service" is one that a
// request names in its own way ("payments-api"). A phrase with no
// informative word never counts, so "restart the service" needs its
// words as before, and a phrase with one counts only when no other
// skill's fields use that word (ownWord): one shared word is no more
// telling in part of a phrase than alone (near misses that reuse an
// agent's word drew relaxed matches through such phrases).

// commonShare: a stem more than this share of the agent's skills use in
// their triggers or name says little about which is meant.
const commonShare = 0.25

// partialPhrase reports whether one of skill's trigger phrases has at
// least one informative word and all of them among the request's stems
// (rq.ids). A phrase with one informative word counts only when that word
// is the skill's own (ownWord).
func (r *Router) partialPhrase(ctx context.Context, sp *specifics, rq request, skill int) bool {
	_, _, triggers := r.src.Phrases(skill)
	var onStack [16]string
	for _, p := range triggers {
		toks := appendTokens(onStack[:0], p)
		informative, all, word, stem := 0, true, uint32(0), ""
		for _, tok := range toks {
			if stopWords[tok] {
				continue
			}
			st := routeStem(tok)
			id, ok := sp.id(st)
			if ok && (sp.common(id) || wordlist.Common(tok)) {
				continue
			}
			informative++
			word, stem = id, st
			if _, held := slices.BinarySearch(rq.ids, id); !ok || !held {
				all = false
				break
			}
		}
		if all && (informative > 1 || informative == 1 && r.ownWord(ctx, sp, word, stem)) {
			return true
		}
	}
	return false
}

// ownWord reports whether the word whose stem is st (id) is one skill's
// alone: no other skill's triggers or name use it, nor its description,
// tool or inputs (the indexed fields), where the router can tell. A word that another
// skill's description also says ("cancel" in an agent whose refund
// policy says when a cancelled plan is refunded) is used in more than one
// sense across the agent, so the one word of a phrase is no sign of that
// phrase's intent ("cancel my dentist appointment").
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

// Relaxed evidence (evidence in relaxed.go) asks which request terms each
// field of a skill holds. Analyzing every field of every skill a relaxed
// search finds, on every route, was two thirds of a relaxed route with
// matches; on an agent of skill folders without triggers, every route is
// one. A small agent's skills keep their fields' terms once read.

// fieldTermsMax is the most skills whose field terms are kept: the
// pointers cost 8 bytes a skill up front and the terms a few hundred
// bytes for each skill a relaxed route has found. Larger agents analyze
// the fields on each route.
const fieldTermsMax = 4096

// fieldTermCache holds, per skill position, its fields' terms once read.
type fieldTermCache struct {
	once   sync.Once
	skills []atomic.Pointer[skillTerms]
}

// skillTerms are one skill's terms, per entry of fields: distinct and
// sorted.
type skillTerms [][]string

// fieldTerms returns the terms of skill s (at position skill), per entry
// of fields, as the field's analyzer gives them: distinct and sorted.
func (r *Router) fieldTerms(skill int, s *Skill) skillTerms {
	c := &r.fieldCache
	n := r.src.Len()
	if n > fieldTermsMax || skill < 0 || skill >= n {
		return r.analyzeFields(s)
	}
	c.once.Do(func() { c.skills = make([]atomic.Pointer[skillTerms], n) })
	if st := c.skills[skill].Load(); st != nil {
		return *st
	}
	st := r.analyzeFields(s)
	c.skills[skill].Store(&st)
	return st
}

// analyzeFields runs each field of s through its analyzer.
func (r *Router) analyzeFields(s *Skill) skillTerms {
	st := make(skillTerms, len(fields))
	for k, f := range fields {
		val := fieldValue(s, f.name)
		if val == "" {
			continue
		}
		an := r.an.text
		if f.analyzer == exactAnalyzer {
			an = r.an.exact
		}
		toks := an.Analyze([]byte(val))
		terms := make([]string, 0, len(toks))
		for _, tok := range toks {
			terms = append(terms, string(tok.Term))
		}
		slices.Sort(terms)
		st[k] = slices.Clip(slices.Compact(terms))
	}
	return st
}
