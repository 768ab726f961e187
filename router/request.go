package router

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/agent3md/agent3md/internal/hanzi"
	"github.com/agent3md/agent3md/internal/segment"
	"github.com/blevesearch/go-porterstemmer"
)

// Stage 1 of a ranked route: read the request. Its tokens (unspaced runs
// cut at the agent's words), their Porter stems, their vocabulary ids and
// the request as specificity reads it (request, weigh.go) go into the
// route's pooled tally; what a Match keeps of them is copied.

// readRequest reads text into t and returns the request as specificity
// reads it.
func (r *Router) readRequest(t *hitTally, sp *specifics, text string) request {
	toks := appendTokens(t.toks[:0], text)
	if segment.HasUnspaced(text) {
		if words, cut := r.segmenterOf().split(nil, toks); cut {
			toks = words
		}
	}
	stems, seq, stop := t.stems[:0], t.rq.seq[:0], t.stop[:0]
	reqE, reqS, reqP := t.reqE[:0], t.reqS[:0], t.reqP[:0]
	phrased := uint32(len(r.phrases.stems.ids)) // ids past it: stems only names use
	for i, tok := range toks {
		t.pair = append(t.pair[:0], tok...)
		w := t.wordOf(r, sp, t.pair)
		stems, seq, stop = append(stems, w.stem), append(seq, w.id), append(stop, w.stop)
		if w.exact != noID {
			reqE = append(reqE, w.exact)
		}
		reqP = append(reqP, w.forms[:w.nforms]...)
		if w.id < phrased {
			reqS = append(reqS, w.id)
		}
		if i > 0 { // and the two words joined: "roll back" meets "rollback"
			t.pair = append(append(t.pair[:0], toks[i-1]...), tok...)
			if j := t.wordOf(r, sp, t.pair); j.id < phrased {
				reqS = append(reqS, j.id)
			}
		}
	}
	slices.Sort(reqE)
	slices.Sort(reqS)
	t.reqE, t.reqS = slices.Compact(reqE), slices.Compact(reqS)
	reqP = append(reqP, t.reqE...)
	slices.Sort(reqP)
	t.reqP = slices.Compact(reqP)
	t.rq = sp.readSeq(t.rq, toks, stems, seq, stop)
	t.toks, t.stems, t.stop = toks, stems, stop
	return t.rq
}

// wordIDs is a request word, or two adjacent words joined, as a route
// reads it: its stem, the stem's id in specifics (noID: none; one past
// the phrase vocabulary only names use), its id in the exact vocabulary
// (noID: none), whether it is a stop word, and the exact ids of its
// other forms: as a plural or a singular by English's regular -s and
// -es. For evidence (weigh), a word met in another number ("deploys" for
// "deploy") counts as met as written, not through a stem.
type wordIDs struct {
	stem      string
	id, exact uint32
	stop      bool
	forms     [4]uint32
	nforms    int
}

// wordOf returns w's ids, remembered in t (at most maxWordMemo words a
// tally): requests repeat their words, and the stem cache and the three
// vocabularies cost four lookups where the memo costs one. w is the
// caller's scratch (t.pair): its forms are spelled in w's spare capacity.
func (t *hitTally) wordOf(r *Router, sp *specifics, w []byte) wordIDs {
	if ids, ok := t.words[string(w)]; ok {
		return ids
	}
	ids := wordIDs{stem: routeStemBytes(w), id: noID, exact: noID, stop: stopWords[string(w)]}
	if id, ok := sp.id(ids.stem); ok {
		ids.id = id
	}
	exact := r.phrases.exact.ids
	if id, ok := exact[string(w)]; ok {
		ids.exact = id
	}
	form := func(f []byte) {
		if id, ok := exact[string(f)]; ok {
			ids.forms[ids.nforms] = id
			ids.nforms++
		}
	}
	form(append(w, 's'))
	form(append(w, "es"...))
	if n := len(w); n > 3 && w[n-1] == 's' {
		form(w[:n-1])
		if w[n-2] == 'e' {
			form(w[:n-2])
		}
	}
	if t.words == nil || len(t.words) == maxWordMemo {
		t.words = map[string]wordIDs{}
	}
	t.words[string(w)] = ids
	return ids
}

// maxWordMemo bounds a tally's memo of words (wordOf).
const maxWordMemo = 1 << 10

// lookupStems is lookup over the request's stems and the stem of each
// adjacent pair joined ("roll back" meets "rollback").
func (v *vocabLists) lookupStems(dst []uint32, toks, stems []string) []uint32 {
	var b []byte
	for i := 1; i < len(toks); i++ {
		b = append(append(b[:0], toks[i-1]...), toks[i]...)
		if id, ok := v.ids[routeStemBytes(b)]; ok {
			dst = append(dst, id)
		}
	}
	return v.lookup(dst, stems)
}

// routeStems remembers the stems of request words: requests repeat a
// small vocabulary, and a Porter stem costs far more than a lookup.
var routeStems struct {
	cache sync.Map // string -> string
	size  atomic.Int64
}

// routeStem is stem behind routeStems, bounded like the analyzer's cache.
func routeStem(tok string) string {
	if v, ok := routeStems.cache.Load(tok); ok {
		return v.(string)
	}
	return storeStem(tok)
}

// routeStemBytes is routeStem of string(b), which it only builds when
// the stem is not remembered.
func routeStemBytes(b []byte) string {
	if v, ok := routeStems.cache.Load(string(b)); ok {
		return v.(string)
	}
	return storeStem(string(b))
}

// storeStem stems tok and remembers it while routeStems has room.
func storeStem(tok string) string {
	st := stem(tok)
	if routeStems.size.Load() < stemCacheMax {
		if _, loaded := routeStems.cache.LoadOrStore(tok, st); !loaded {
			routeStems.size.Add(1)
		}
	}
	return st
}

// isWordRune reports whether r belongs to a token: the reference routing
// (docs/format.md §10) defines tokens as maximal runs of Unicode letters and digits.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// appendTokens appends the lowercased tokens of s to dst (docs/format.md
// §10: maximal runs of Unicode letters/digits, lowercased rune by rune).
// Invalid UTF-8 bytes separate tokens like any other non-letter.
func appendTokens(dst []string, s string) []string {
	start := -1
	lower := true // the token so far is ASCII and lowercase
	for i := 0; i < len(s); {
		c, size, word := rune(s[i]), 1, false
		if c < utf8.RuneSelf {
			word = asciiWord[c]
		} else {
			c, size = utf8.DecodeRuneInString(s[i:])
			word = isWordRune(c) && !(c == utf8.RuneError && size == 1)
		}
		switch {
		case word && start < 0:
			start, lower = i, c < utf8.RuneSelf && !('A' <= c && c <= 'Z')
		case word:
			lower = lower && c < utf8.RuneSelf && !('A' <= c && c <= 'Z')
		case start >= 0:
			dst = append(dst, lowerIf(s[start:i], !lower))
			start = -1
		}
		i += size
	}
	if start >= 0 {
		dst = append(dst, lowerIf(s[start:], !lower))
	}
	return dst
}

// lowerIf is tok lowercased (lowerToken) when upper, else tok.
func lowerIf(tok string, upper bool) string {
	if upper {
		return lowerToken(tok)
	}
	return tok
}

// lowerToken maps every rune of tok through unicode.ToLower. Unlike
// strings.ToLower it has no special cases, so a token never gains runes
// that are not letters or digits (strings.ToLower("İ") adds U+0307).
func lowerToken(tok string) string {
	buf := make([]byte, 0, len(tok))
	for _, r := range tok {
		buf = utf8.AppendRune(buf, unicode.ToLower(r))
	}
	return string(buf)
}

// stem is the English (Porter) stem of a lowercased token, after its
// British -ise spelling is made -ize (americanSpelling): the same steps
// the index's analyzer applies, so phrase stems and indexed terms agree.
func stem(tok string) string {
	for i := 0; i < len(tok); i++ {
		if tok[i] >= utf8.RuneSelf {
			return string(porterstemmer.StemWithoutLowerCasing([]rune(tok)))
		}
	}
	if len(tok) <= 2 {
		return tok
	}
	return string(porterstemmer.StemWithoutLowerCasing([]rune(americanSpelling(tok))))
}

// zEndings are the endings of British -ise and -yse words ("summarise",
// "visualised", "analyses", "normalisation"), longest first.
var zEndings = []string{"isations", "isation", "isers", "ising", "iser", "ised", "ises", "ise",
	"ysers", "ysing", "yser", "ysed", "yses", "yse"}

// americanSpelling writes the s of a British -ise or -yse ending as z, so
// "summarise" meets "summarize" (Porter keeps them apart); "promise"
// becomes "promize" on both sides alike, and "raise" (under three letters
// before the ending) stays.
func americanSpelling(tok string) string {
	for _, e := range zEndings {
		if len(tok) >= len(e)+3 && tok[len(tok)-len(e):] == e {
			i := len(tok) - len(e) + 1 // the s
			return tok[:i] + "z" + tok[i+1:]
		}
	}
	return tok
}

// Chinese is written in two scripts (訂單, 订单): Ranked mode reads a
// request in the agent's script first (inAgentScript); Spec mode does not.

// Han scripts an agent can be written in (hanScriptOf).
const (
	hanNone        int8 = iota // no Chinese, both scripts alike, or Japanese
	hanSimplified              // simplified characters outnumber traditional ones
	hanTraditional             // and the other way round
)

// hanScriptOf finds, on first use, the script of the agent's Chinese:
// only a request with Chinese characters needs it.
func (r *Router) hanScriptOf() int8 {
	r.hanOnce.Do(func() { r.han = detectHanScript(r.src) })
	return r.han
}

// detectHanScript reads src's names, triggers and descriptions: a script
// decides at twice the other's characters; kana (Japanese) decide none.
func detectHanScript(src Source) int8 {
	var trad, simp int
	count := func(s string) bool {
		if strings.ContainsFunc(s, func(c rune) bool {
			return c >= 0x3040 && (unicode.Is(unicode.Hiragana, c) || unicode.Is(unicode.Katakana, c))
		}) {
			return false
		}
		t, s2 := hanzi.Script(s)
		trad, simp = trad+t, simp+s2
		return true
	}
	for i := 0; i < src.Len(); i++ {
		name, _, triggers := src.Phrases(i)
		if !count(name) || slices.ContainsFunc(triggers, func(t string) bool { return !count(t) }) {
			return hanNone
		}
		if sk := src.Skill(i); segment.HasUnspaced(sk.Description) && !count(sk.Description) {
			return hanNone
		}
	}
	switch {
	case simp > 0 && simp >= 2*trad:
		return hanSimplified
	case trad > 0 && trad >= 2*simp:
		return hanTraditional
	}
	return hanNone
}

// inAgentScript returns text with its Chinese characters in the agent's
// script, or text itself: when it has none, holds kana (Japanese), or the
// agent has no script of its own.
func (r *Router) inAgentScript(text string) string {
	han, i := false, 0
	for i < len(text) && text[i] < utf8.RuneSelf { // an ASCII run holds no Han
		i++
	}
	for _, c := range text[i:] {
		if c < 0x2E80 {
			continue
		}
		if unicode.Is(unicode.Hiragana, c) || unicode.Is(unicode.Katakana, c) {
			return text
		}
		han = han || unicode.Is(unicode.Han, c)
	}
	if !han {
		return text
	}
	switch r.hanScriptOf() {
	case hanSimplified:
		return hanzi.ToSimplified(text)
	case hanTraditional:
		return hanzi.ToTraditional(text)
	}
	return text
}

// Scripts written without spaces: a Chinese request is one token
// ("请部署结账服务" never equals a trigger "部署"). Ranked mode cuts such a
// run at the agent's words (internal/segment; docs/architecture.md §5,
// "Unspaced scripts").

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// segmenter cuts a request's unspaced runs at the agent's trigger and
// name words.
type segmenter struct{ segment.Segmenter }

// split cuts toks (see segment.Segmenter.Split), never past
// MaxRequestWords words.
func (sg *segmenter) split(dst, toks []string) ([]string, bool) {
	return sg.Split(dst, toks, MaxRequestWords)
}

// segmenterOf builds the Router's segmenter on first use: only a request
// in an unspaced script needs it, and an agent without such words gets
// an empty one.
func (r *Router) segmenterOf() *segmenter {
	r.segOnce.Do(func() { r.seg = buildSegmenter(r.src) })
	return r.seg
}

// buildSegmenter collects the trigger and name tokens of src written
// wholly in unspaced scripts.
func buildSegmenter(src Source) *segmenter {
	sg := &segmenter{}
	seen := map[string]bool{}
	var toks []string
	add := func(text string) {
		if !segment.HasUnspaced(text) {
			return
		}
		toks = appendTokens(toks[:0], text)
		for _, tok := range toks {
			if !seen[tok] && segment.AllUnspaced(tok) {
				seen[tok] = true
				sg.Add(strings.Clone(tok))
			}
		}
	}
	for i := 0; i < src.Len(); i++ {
		name, _, triggers := src.Phrases(i)
		add(name)
		for _, p := range triggers {
			add(p)
		}
	}
	sg.Sort()
	return sg
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
