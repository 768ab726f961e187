package router

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// Conditional clauses: a request that says what it wants done under a
// condition ("if it hasn't shipped, change the address", 还没发货的话能换
// 个收货地址吗) names the task in its main clause; a trigger said in the
// condition describes the situation, not the task. conditionClause finds
// the condition by grammar alone, in both scripts:
//
//   - English: a clause opened by "if", "unless" or "in case" at the
//     start of a sentence and closed by a comma (the main clause after
//     it), or opened after a comma and running to the sentence's end
//     (the main clause before it). "check if the cert is valid" and
//     "tell me if it's red" ask whether, and hold no condition;
//   - Chinese: a clause closed by 的话, or opened by 如果, 要是, 假如 or
//     万一 and closed by a comma or 就, the main clause after it.
var (
	conditionLead  = regexp.MustCompile(`(?i)(?:^|[.;!?]\s*)(?:if|unless|in\s+case)\s[^,;.!?]+,`)
	conditionTrail = regexp.MustCompile(`(?i),\s*(?:if|unless|in\s+case)\s[^,;.!?]+[.!?]?\s*$`)
	conditionZh    = regexp.MustCompile(`(?:^|[，。！？；,;!?\s])[^，。！？；,;!?\s]*?的话|(?:如果|要是|假如|万一)[^，。！？；,;!?\s]*?(?:[，,]|就)`)
)

// conditionClause returns text (lowercased) split into its conditional
// clause and the rest, and whether it has both: a condition, and a main
// clause with a letter in it.
func conditionClause(text string) (cond, main string, ok bool) {
	if !conditionWords.in(text) {
		return "", "", false
	}
	l := strings.ToLower(text)
	for _, re := range []*regexp.Regexp{conditionLead, conditionTrail, conditionZh} {
		loc := re.FindStringIndex(l)
		if loc == nil {
			continue
		}
		cond, main = l[loc[0]:loc[1]], l[:loc[0]]+" "+l[loc[1]:]
		if strings.ContainsFunc(main, unicode.IsLetter) {
			return cond, main, true
		}
	}
	return "", "", false
}

// conditionLast moves behind the first match with evidence in the main
// clause every match before it whose evidence (Hits) lies in a
// conditional clause alone (conditionClause), and makes those relaxed:
// the condition says when, the main clause what. A request without a
// condition, or whose matches' evidence all lies in it, keeps its order.
func conditionLast(text string, out []Match) []Match {
	if len(out) < 2 {
		return out
	}
	cond, main, ok := conditionClause(text)
	if !ok {
		return out
	}
	first := -1
	for i, m := range out {
		if m.Tier != TierRunnerUp && saysAny(main, m.Hits) {
			first = i
			break
		}
	}
	if first <= 0 || !Sure(out[first].Tier) && slices.ContainsFunc(out[first+1:], func(m Match) bool { return Sure(m.Tier) }) {
		return out // (sure matches stay ahead of every guess)
	}
	for i := range first {
		if !saysAny(cond, out[i].Hits) || saysAny(main, out[i].Hits) {
			return out // an earlier match the main clause also holds
		}
	}
	moved := make([]Match, 0, len(out))
	moved = append(moved, out[first])
	for i := range first {
		m := out[i]
		if Sure(m.Tier) {
			m.Tier = TierRelaxed
		}
		moved = append(moved, m)
	}
	return append(moved, out[first+1:]...)
}

// saysAny reports whether clause (lowercased) holds any word of hits:
// a hit's token as written or, for a stem, as the start of one of the
// clause's words.
func saysAny(clause string, hits []string) bool {
	for _, h := range hits {
		for _, tok := range appendTokens(nil, h) {
			if strings.Contains(clause, tok) {
				return true
			}
		}
	}
	return false
}

// conditionWords are the words every conditional clause opens or closes
// with (conditionLead, conditionTrail, conditionZh): a request without
// any is not read by the expressions, which cost more than the rest of a
// small agent's route.
var conditionWords = newCues("if ", "unless ", "in case", "的话", "如果", "要是", "假如", "万一")
