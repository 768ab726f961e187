package router

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agent3md/agent3md/internal/segment"
	"github.com/agent3md/agent3md/internal/wordlist"
)

// TierRunnerUp marks a Ranked match of the plain ranking (plainBM25) that
// no phrase, name or relaxed evidence found: what a search engine would
// have shown. A guess, confirmed before anything runs; its Fit says how
// much of the request it holds.
const TierRunnerUp = "runner-up"

// Sure reports whether a match of tier is one run --exec may act on: a
// phrase hit, a skill the request names, or one whose description's
// words it says and no other skill's.
func Sure(tier string) bool { return tier == TierPhrase || tier == TierName || tier == TierDescribed }

// runnerUpHits bounds the request words a runner-up lists as its
// evidence: the line is for a reader, and its fit says the rest.
const runnerUpHits = 4

// plainIndex returns the plain ranking's index, built on first use.
func (r *Router) plainIndex() *plainBM25 {
	r.plainOnce.Do(func() {
		r.plain = newPlainBM25(r.src)
		r.plainBuilt.Store(true)
	})
	return r.plain
}

// runnersUp appends to out (sure, then relaxed matches) the plain
// ranking's best skills out lacks, up to limit in all (relaxedLimit for
// 0), as TierRunnerUp, and sets every match's Fit: the answer never
// leaves out what a plain search would list this high. Limit 1 (run)
// never gets one beside a sure or relaxed match.
func (r *Router) runnersUp(pt *plainText, out []Match, limit int) []Match {
	want := limit
	if want == 0 {
		want = relaxedLimit
	}
	if r.late.pending() && !r.plainBuilt.Load() {
		// While the index builds in the background (Options.Background)
		// the plain ranking's index is built after it: a cold start's
		// first routes have no runner-ups rather than wait for it.
		want = len(out)
	}
	if len(out) >= want && !slices.ContainsFunc(out, func(m Match) bool { return !Sure(m.Tier) }) {
		for i := range out {
			out[i].Fit = 1
		}
		return out
	}
	p := r.plainIndex()
	q := pt.read(p)
	if !pt.ascii {
		out = r.gramRunnersUp(p, q, pt.text, out, want, &pt.bare)
	}
	// A request no skill's name or description holds a word of ranks
	// nothing: rankTerms is not asked.
	if len(out) < want && slices.ContainsFunc(q.words, func(w plainTerm) bool { return len(w.post) > 0 }) {
		hits := p.rankTerms(pt.ranked, q.words, want+len(out))
		pt.ranked = hits
		out = slices.Grow(out, min(len(hits), want-len(out)))
		for _, h := range hits {
			if len(out) == want {
				break
			}
			name, z, _ := r.src.Phrases(h.skill)
			if holdsSkill(out, name, z) {
				continue
			}
			m := Match{Name: name, Z: z, Relevance: roundRelevance(h.score), Tier: TierRunnerUp, Fit: -1}
			pt.room(min(runnerUpHits, len(q.toks)), min(len(hits), want-len(out)))
			at := len(pt.hits)
			m.Fit = p.fit(q, h.skill, &pt.hits)
			m.Hits = pt.cut(at)
			out = append(out, m)
		}
	}
	for i := range out {
		if Sure(out[i].Tier) {
			out[i].Fit = 1
		} else if out[i].Fit == 0 {
			out[i].Fit = p.fit(q, r.skillAt(out[i]), nil)
		}
	}
	return out
}

// requestWords are the request's plain-ranking tokens without English
// stop words and the commonest Chinese characters (commonWord), each
// once: what a runner-up may hold and fit weighs.
func requestWords(text string) []string {
	return contentWords(baselineTokens(make([]string, 0, 16), text))
}

// contentWords is toks (reordered) without commonWord's, each once.
func contentWords(toks []string) []string {
	return slices.DeleteFunc(distinct(toks), commonWord)
}

// plainText is a request's text and, once read, its plainRequest, shared
// by all that weigh it in one route; toks, for an ASCII text, are its
// tokens as the route read them (hitTally.plainText). A route's
// plainText is its pooled tally's, and read reuses the slices of the
// request read before: nothing of them goes into a Match.
type plainText struct {
	text   string
	ascii  bool // text has no rune beyond ASCII: no unspaced script
	toks   []string
	words  []string // for an ASCII text, its distinct non-stop toks (request.words)
	ranked []scored // the plain ranking's hits (rankTerms)
	// hits is the route's runner-ups' hits, one array a route cut into
	// each match's (room, cut); never reused, as the matches keep them.
	hits []string
	// bare are the runner-ups of an answer without a sure or relaxed
	// match that only the commonest characters bring in and the plain
	// ranking lists within the limit (gramRunnersUp): they close the
	// answer while room is left, after every skill a word brings in
	// (closeWithBare).
	bare      []Match
	q         plainRequest
	done      bool
	first     string // firstWord, once read
	firstDone bool
}

// plainText is the tally's plainText, reset for a route's request text,
// read as the route's tokens (t.toks).
func (t *hitTally) plainText(text string) *plainText {
	pt := &t.pt
	*pt = plainText{text: text, q: plainRequest{toks: pt.q.toks[:0], words: pt.q.words[:0]}, ranked: pt.ranked[:0]}
	for i := 0; i < len(text); i++ {
		if text[i] >= utf8.RuneSelf {
			return pt
		}
	}
	pt.toks, pt.words, pt.ascii = t.toks, t.rq.words, true
	return pt
}

// room makes room in t.hits for the hits of n more matches, at most per
// each, when it lacks room for one's.
func (t *plainText) room(per, n int) {
	if cap(t.hits)-len(t.hits) < per {
		t.hits = make([]string, 0, per*n)
	}
}

// cut returns the hits appended to t.hits since at (nil for none),
// clipped: an append to one match's never writes into the next one's.
func (t *plainText) cut(at int) []string {
	if len(t.hits) == at {
		return nil
	}
	return slices.Clip(t.hits[at:])
}

// read returns t's plainRequest, reading it on first use: its
// requestWords, each one's postings and idf (a word no skill holds
// weighing as one in N+1 skills would), and the idfs' sum.
func (t *plainText) read(p *plainBM25) *plainRequest {
	if t.done {
		return &t.q
	}
	var words []string
	if t.ascii {
		// ASCII tokens: commonWord is a stop word, so contentWords are
		// the route's distinct non-stop words, sorted.
		words = append(t.q.toks[:0], t.words...)
		slices.Sort(words)
	} else {
		words = contentWords(baselineTokens(t.q.toks[:0], t.text)) // requestWords
	}
	t.q, t.done = plainRequest{toks: words, words: slices.Grow(t.q.words[:0], len(words))[:len(words)]}, true
	p.weigh(&t.q)
	return &t.q
}

// weigh sets q.words (as long as q.toks already) to each word's postings
// and idf, and q.total to their sum.
func (p *plainBM25) weigh(q *plainRequest) {
	for i, w := range q.toks {
		pt, ok := p.post[w]
		if !ok {
			pt.idf = p.idf0
		}
		q.words[i], q.total = pt, q.total+pt.idf
	}
}

// plainRequest is a request as fit reads it (plainText.read).
type plainRequest struct {
	toks  []string
	words []plainTerm // by toks
	total float64
}

// holds reports whether skill's name or description holds q's word i.
func (q *plainRequest) holds(i, skill int) bool {
	// A binary search written out: slices.BinarySearchFunc's comparison
	// is a call per step, and a route asks this of every guess's words.
	post, s := q.words[i].post, int32(skill)
	lo, hi := 0, len(post)
	for lo < hi {
		if m := int(uint(lo+hi) >> 1); post[m].skill < s {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(post) && post[lo].skill == s
}

// fit is the share of q's summed idf the skill's name and description
// hold, rounded to hundredths; with hits, it appends the words they hold
// (at most runnerUpHits, in q's order) to *hits.
func (p *plainBM25) fit(q *plainRequest, skill int, hits *[]string) float64 {
	if skill < 0 || q.total == 0 {
		return 0
	}
	var held float64
	n := 0
	for i, t := range q.toks {
		if q.holds(i, skill) {
			held += q.words[i].idf
			if hits != nil && n < runnerUpHits {
				*hits, n = append(*hits, t), n+1
			}
		}
	}
	return q.share(skill, held)
}

// share is fit's number for a skill whose name and description hold
// words of q whose idfs, summed in q's order, are held.
func (q *plainRequest) share(skill int, held float64) float64 {
	if skill < 0 || q.total == 0 {
		return 0
	}
	return math.Round(100*held/q.total) / 100
}

// skillAt returns the position of m's skill (-1 when none): relaxed
// matches name their skill by name and z.
func (r *Router) skillAt(m Match) int {
	p := r.plainIndex()
	k, _ := slices.BinarySearch(p.zs, m.Z)
	for ; k < len(p.byZ) && p.zs[k] == m.Z; k++ {
		if name, _, _ := r.src.Phrases(p.byZ[k]); name == m.Name {
			return p.byZ[k]
		}
	}
	return -1
}

// Character pairs: a casual Chinese request ("吊牌还在，没洗过，能退吗")
// says no trigger word, and the plain ranking weighs 么 as much as 退.
// charGrams reads it in pairs of adjacent characters (退款, 吊牌), as a
// search engine without a dictionary does, never across two words the
// segmenter found; a pair of two of the commonest characters (什么, 了吗)
// adds to a score but never brings a skill in alone.

// charGrams holds the character pairs of every skill's name, description
// and triggers: each pair, the skills that hold it, ascending.
type charGrams struct {
	post  map[string][]int32
	count int
}

// charGramsOf builds the Router's character pairs on first use: only a
// request in an unspaced script reads them.
func (r *Router) charGramsOf() *charGrams {
	r.gramsOnce.Do(func() { r.grams = newCharGrams(r.src, r.segmenterOf()) })
	return r.grams
}

// newCharGrams reads every skill of src, its texts cut at the agent's
// words (sg) as a request is.
func newCharGrams(src Source, sg *segmenter) *charGrams {
	g := &charGrams{post: map[string][]int32{}, count: src.Len()}
	var toks, grams []string
	for i := range src.Len() {
		s := src.Skill(i)
		grams = grams[:0]
		for _, text := range append([]string{s.Name, s.Description}, s.Triggers...) {
			if !segment.HasUnspaced(text) {
				continue
			}
			toks, _ = sg.split(nil, appendTokens(toks[:0], text))
			grams = appendGrams(grams, toks)
		}
		for _, gr := range distinct(grams) {
			g.post[gr] = append(g.post[gr], int32(i))
		}
	}
	return g
}

// appendGrams appends the pairs of adjacent characters of each token of
// toks (a request's or a field's words, cut by the segmenter) written in
// an unspaced script. A pair never spans two tokens.
func appendGrams(dst, toks []string) []string {
	for _, tok := range toks {
		for run := range segment.ScriptRuns(tok) {
			if !segment.Unspaced(firstRune(run)) {
				continue
			}
			prev, prevAt := rune(-1), 0
			for at, c := range run {
				if prev >= 0 {
					dst = append(dst, run[prevAt:at+utf8.RuneLen(c)])
				}
				prev, prevAt = c, at
			}
		}
	}
	return dst
}

// byScore orders gram hits best first, equal scores in skill order.
func byScore(a, b gramHit) int {
	return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.skill, b.skill))
}

// gramHit is a skill the request's pairs found: its summed idf, the
// pairs it holds in request order, and whether any of them, or of the
// characters the plain ranking found it by, is not among the commonest.
type gramHit struct {
	skill       int
	score       float64
	grams       []string
	informative bool
}

// rank returns the skills holding any of the request's pairs (grams,
// distinct, in request order), best first by the summed BM25 idf of the
// pairs they hold (equal sums in skill order), at most k.
func (g *charGrams) rank(grams []string, k int) []gramHit {
	by := map[int]*gramHit{}
	for _, gr := range grams {
		ps := g.post[gr]
		if len(ps) == 0 {
			continue
		}
		idf := math.Log(1 + (float64(g.count)-float64(len(ps))+0.5)/(float64(len(ps))+0.5))
		for _, s := range ps {
			h := by[int(s)]
			if h == nil {
				h = &gramHit{skill: int(s)}
				by[int(s)] = h
			}
			h.score += idf
			h.grams = append(h.grams, gr)
			h.informative = h.informative || !commonPair(gr)
		}
	}
	out := make([]gramHit, 0, len(by))
	for _, h := range by {
		out = append(out, *h)
	}
	slices.SortFunc(out, byScore)
	return out[:min(k, len(out))]
}

// requestGrams returns the distinct pairs of a request's text, read as
// the agent's words where it holds them (request.go), in request order.
func (r *Router) requestGrams(text string) []string {
	if !segment.HasUnspaced(text) {
		return nil
	}
	toks, _ := r.segmenterOf().split(nil, appendTokens(nil, text))
	grams := appendGrams(nil, toks)
	out := grams[:0]
	for _, gr := range grams {
		if !slices.Contains(out, gr) {
			out = append(out, gr)
		}
	}
	return out
}

// gramRunnersUp appends to out, for a request in an unspaced script, up
// to want runner-ups it lacks: the plain ranking over the request's
// characters (q) plus the pairs' summed idf (charGrams.rank), fused with
// the plain ranking over every character (fuseRanks). A skill the fusion
// brings by the commonest characters alone (了, 一) has no word to show
// and is left out, unless out has no match yet and the plain ranking
// over every character lists it within want: an answer of guesses alone
// never drops what a plain search would show for want of room. Such a
// skill goes to *to, showing the characters that brought it in, for
// relevanceFill to close the answer with when room is left.
func (r *Router) gramRunnersUp(p *plainBM25, q *plainRequest, text string, out []Match, want int, to *[]Match) []Match {
	if len(out) >= want {
		return out
	}
	grams := r.requestGrams(text)
	if len(grams) == 0 {
		return out
	}
	hits := map[int]*gramHit{}
	for _, h := range r.charGramsOf().rank(grams, r.src.Len()) {
		hits[h.skill] = &h
	}
	for _, h := range p.rank(slices.Clone(q.toks), 0) {
		// q.toks holds no common character (commonWord): informative.
		if g := hits[h.skill]; g != nil {
			g.score += h.score
			g.informative = true
		} else {
			hits[h.skill] = &gramHit{skill: h.skill, score: h.score, informative: true}
		}
	}
	ranked := make([]gramHit, 0, len(hits))
	for _, h := range hits {
		if h.informative {
			ranked = append(ranked, *h)
		}
	}
	slices.SortFunc(ranked, byScore)
	every := distinct(baselineTokens(nil, text)) // every character, common ones too
	plain := p.rank(every, 0)
	ranked = fuseRanks(ranked, plain, hits)
	guesses := len(out) == 0
	var bare []Match
	for _, h := range ranked {
		if len(out) == want {
			break
		}
		name, z, _ := r.src.Phrases(h.skill)
		if holdsSkill(out, name, z) {
			continue
		}
		m := Match{Name: name, Z: z, Relevance: roundRelevance(h.score), Tier: TierRunnerUp}
		var words []string
		m.Fit = p.fit(q, h.skill, &words)
		m.Hits = append(h.grams, words...)[:min(len(h.grams)+len(words), runnerUpHits)]
		if len(m.Hits) == 0 {
			if guesses && len(bare) < want && slices.ContainsFunc(plain[:min(want, len(plain))], func(s scored) bool { return s.skill == h.skill }) {
				bare = append(bare, m)
			}
			continue
		}
		out = append(out, m)
	}
	if len(bare) > 0 {
		q := &plainRequest{toks: every, words: make([]plainTerm, len(every))}
		p.weigh(q)
		for i := range bare {
			p.fit(q, r.skillAt(bare[i]), &bare[i].Hits)
		}
	}
	*to = bare
	return out
}

// wordsText is the text the analyzers read for a request of toks: for an
// unspaced script, the cut words spaced apart, so no pair spans two words
// the segmenter found (收货|地址 gives no 货地); else text.
func wordsText(text string, toks []string) string {
	if !segment.HasUnspaced(text) {
		return text
	}
	return strings.Join(toks, " ")
}

// commonWord reports whether a plain-ranking token is an English stop
// word or one of the commonest Chinese characters (么, 了, 是), which
// alone find only runner-ups a reader discards.
func commonWord(t string) bool {
	if stopWords[t] {
		return true
	}
	c, size := utf8.DecodeRuneInString(t)
	return size == len(t) && size > 1 && wordlist.CommonHan(c)
}

// commonPair reports whether gram is a pair of two of the commonest
// Chinese characters (了吗, 什么, 怎么).
func commonPair(gram string) bool {
	a, n := utf8.DecodeRuneInString(gram)
	b, m := utf8.DecodeRuneInString(gram[n:])
	return n+m == len(gram) && wordlist.CommonHan(a) && wordlist.CommonHan(b)
}

// fuseRanks merges the pair ranking (pairs) with the plain ranking over
// every character (plain) by reciprocal rank, 1/(rrfK+rank) per list, so
// a plain search's first picks stay near the top. The plain list keeps
// the commonest characters: a frequency list, where 发 or 开 can name the
// task; a skill found by them alone has fit 0.
func fuseRanks(pairs []gramHit, plain []scored, hits map[int]*gramHit) []gramHit {
	const rrfK = 3
	fused := map[int]float64{}
	for i, h := range pairs {
		fused[h.skill] += 1 / float64(rrfK+i+1)
	}
	for i, h := range plain {
		fused[h.skill] += 1 / float64(rrfK+i+1)
	}
	out := make([]gramHit, 0, len(fused))
	for s, f := range fused {
		h := gramHit{skill: s}
		if g := hits[s]; g != nil {
			h = *g
		}
		h.score = f
		out = append(out, h)
	}
	slices.SortFunc(out, byScore)
	return out
}

// relevanceFill appends to out, an answer shorter than the limit after
// the plain ranking's runner-ups, the most relevant skills it does not
// hold by the one engine (relevance.go: stems, triggers, tools and
// bodies, which the plain ranking does not read), as runner-ups with
// their fit: a request whose words a skill says only through a stem or
// in its body ("update cobra" for a skill whose body says go get -u)
// still gets a short list a model can pick from rather than none. A
// skill that holds none of the words a reader is shown (single
// characters only) is left out.
func (r *Router) relevanceFill(ctx context.Context, text string, rq request, pt *plainText, out []Match, limit int) ([]Match, error) {
	want := limit
	if want == 0 {
		want = relaxedLimit
	}
	if len(out) >= want || r.late.pending() || r.scorer == nil {
		return pt.closeWithBare(out, want), nil
	}
	pool := min(want*relaxedPool, max(r.src.Len(), 1))
	a, res, body, ok := rq.memo.get(pool)
	if !ok {
		a = requestTerms(r.an, text, rq.toks, rq.stems, true, nil)
		if len(a.text) == 0 {
			return pt.closeWithBare(out, want), nil
		}
		var err error
		if res, err = r.searchRelevant(ctx, a, nil, pool); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return pt.closeWithBare(out, want), nil
		}
		res, body = r.withBodies(a, res, pool)
	}
	p := r.plainIndex()
	q := pt.read(p)
	for _, h := range res {
		if len(out) == want {
			break
		}
		if h.skill < 0 || h.skill >= r.src.Len() {
			continue
		}
		name, z, _ := r.src.Phrases(h.skill)
		if holdsSkill(out, name, z) {
			continue
		}
		m := Match{Name: name, Z: z, Relevance: roundRelevance(h.score), Tier: TierRunnerUp}
		pt.room(runnerUpHits, min(len(res), want-len(out)))
		at := len(pt.hits)
		if m.Fit = p.fit(q, h.skill, &pt.hits); len(pt.hits) == at {
			pt.hits = r.fillWords(pt.hits, a, h.skill, body)
		}
		if m.Hits = pt.cut(at); len(m.Hits) == 0 {
			continue
		}
		out = append(out, m)
	}
	return pt.closeWithBare(out, want), nil
}

// closeWithBare appends to out, up to want matches in all, t.bare's
// skills out does not hold.
func (t *plainText) closeWithBare(out []Match, want int) []Match {
	for _, m := range t.bare {
		if len(out) < want && !holdsSkill(out, m.Name, m.Z) {
			out = append(out, m)
		}
	}
	return out
}

// fillWords appends to dst the request words (of a) the one engine found
// skill by, for the reader, at most runnerUpHits: those whose term one of
// its fields or its body holds (single letters, the tails of
// contractions, left out), in request order.
func (r *Router) fillWords(dst []string, a analyzed, skill int, body []bodyScored) []string {
	s := r.src.Skill(skill)
	st := r.fieldTerms(skill, &s)
	bh, _ := findBody(body, skill)
	at := len(dst)
	for k, t := range a.text {
		words := dst[at:]
		if len(words) == runnerUpHits {
			break
		}
		if utf8.RuneCountInString(t.word) < 2 || slices.Contains(words, t.word) {
			continue
		}
		held := k < 64 && bh.terms&(1<<k) != 0
		for f := 0; f < len(st) && !held; f++ {
			_, held = slices.BinarySearch(st[f], t.term)
		}
		if held {
			dst = append(dst, t.word)
		}
	}
	return dst
}

// searchMemo is a route's relaxed search (relaxedSearchWith) kept for
// the fill: the same request terms, searched without synonyms, over a
// pool at least as deep as the fill's, so the fill reads it instead of
// searching again (on a small agent the search is most of the route).
type searchMemo struct {
	ok   bool
	a    analyzed
	pool int
	res  []scored
	body []bodyScored
}

// keep records a search of a, widened by ex, over pool hits: one the
// fill can read only when ex brought no synonym.
func (m *searchMemo) keep(a analyzed, ex *expansion, pool int, res []scored, body []bodyScored) {
	if m == nil || ex != nil && len(ex.syn) > 0 || m.ok && m.pool >= pool {
		return
	}
	*m = searchMemo{ok: true, a: a, pool: pool, res: res, body: body}
}

// get returns the kept search when it reaches pool hits deep.
func (m *searchMemo) get(pool int) (analyzed, []scored, []bodyScored, bool) {
	if m == nil || !m.ok || m.pool < pool {
		return analyzed{}, nil, nil, false
	}
	return m.a, m.res, m.body, true
}

// holdsSkill reports whether the answer out already lists the skill
// named name at z: each later tier adds only skills it lacks.
func holdsSkill(out []Match, name string, z float64) bool {
	return slices.ContainsFunc(out, func(o Match) bool { return o.Name == name && o.Z == z })
}
