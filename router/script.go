package router

import (
	"unicode"

	"github.com/agent3md/agent3md/internal/hanzi"
)

// Chinese is written in two scripts, traditional and simplified, whose
// characters differ for the same words (訂單 and 订单). An agent is written
// in one; a user in Taiwan or Hong Kong writes to a simplified agent in
// the other, and no trigger or description would match character for
// character. Ranked mode reads such a request in the agent's script first
// (inAgentScript), character by character, the way it reads "Tests" as
// "tests". Spec mode stays the reference's routing and is not touched.

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

// detectHanScript reads the names, triggers and descriptions of src. A
// script decides when its characters are at least twice the other's; an
// agent holding kana is Japanese, whose kanji follow neither script, and
// is never converted to.
func detectHanScript(src Source) int8 {
	var trad, simp int
	count := func(s string) bool {
		for _, c := range s {
			if c >= 0x3040 && (unicode.Is(unicode.Hiragana, c) || unicode.Is(unicode.Katakana, c)) {
				return false
			}
		}
		t, s2 := hanzi.Script(s)
		trad, simp = trad+t, simp+s2
		return true
	}
	for i := 0; i < src.Len(); i++ {
		name, _, triggers := src.Phrases(i)
		if !count(name) {
			return hanNone
		}
		for _, t := range triggers {
			if !count(t) {
				return hanNone
			}
		}
		if sk := src.Skill(i); hasUnspaced(sk.Description) && !count(sk.Description) {
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
	han := false
	for _, c := range text {
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
