package router

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agent3md/agent3md/internal/wordlist"
)

// relaxed finds skills for a request that hit no trigger phrase, from
// relevance over all fields (relevance.go), keeping those within RelaxedThreshold
// of the best-scoring skill and with at least RelaxedEvidence (a skill
// without triggers: RelaxedEvidenceUntriggered) and two request words
// (docs/architecture.md §5). Among those kept, the skills
// whose whole name the request says (rq, as routeRanked read it) come
// first, in relevance order: "run it on IBM Quantum with Qiskit Runtime"
// asks for the skill named qiskit, whatever another skill's description
// says about IBM.
//
// With runnersUp set, the matches are runners-up beside sure matches
// (routeRanked): the thesaurus is not read (it widens only requests that
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
