package router

import (
	"strings"

	"github.com/agent3md/agent3md/internal/wordlist"
)

// asksAbout reports whether text asks about a subject rather than for a
// task (question.go's frames): "what is a feature flag", "how does a
// canary deploy work", "the difference between a refund and a
// chargeback", "退款和退货有什么区别". A skill's trigger phrase said inside
// one names the subject, not the errand: the match stays a guess
// (relaxed), for the model to weigh, and run --exec does not act on it.
// It skips the regular expressions (a fifth of a small agent's route)
// for a request without a rune of an unspaced script and without any of
// the English frames' words.
func asksAbout(text string) bool {
	if !hasUnspaced(text) {
		l := strings.ToLower(text)
		if !strings.Contains(l, "what") && !strings.Contains(l, "how") && !strings.Contains(l, "who") &&
			!strings.Contains(l, "difference") && !strings.Contains(l, "is ") && !strings.Contains(l, "are ") &&
			!strings.Contains(l, "recommend") && !strings.Contains(l, " in ") && !strings.Contains(l, "when") &&
			!strings.Contains(l, "much") && !strings.Contains(l, "salary") {
			return false
		}
	}
	return askAboutSubject(text) != ""
}

// demoteAboutSubject turns the sure matches of a request that asks
// about a subject (aboutSubject) into relaxed ones, in the same order.
func demoteAboutSubject(text string, out []Match) []Match {
	if len(out) == 0 || !Sure(out[0].Tier) || !asksAbout(text) {
		return out
	}
	for i := range out {
		if Sure(out[i].Tier) {
			out[i].Tier = TierRelaxed
		}
	}
	return out
}

// loneEverydayWords is how many words (stop words aside) a request must
// have for one everyday trigger word to be too little of it: "bulid it
// again" and "message" are the trigger's errand, a request of four
// words or more says more than it. loneEverydayVerbWords is the same
// for a trigger said as the request's first word, the slot of an
// imperative verb: "push the meeting to Thursday", "explain the rules
// of cricket" say more than the verb in three words, where "ship the
// logs of cart" is the errand of its trigger "logs". At three, the
// development sets lose one right sure match to a guess in the same
// place ("explain what loader.Resolve does") and three wrong ones.
const (
	loneEverydayWords     = 4
	loneEverydayVerbWords = 3
)

// demoteLoneEveryday turns into relaxed guesses the sure matches whose
// only evidence is one trigger phrase of one everyday word ("push",
// "scale", "check status" read as "check"): a word among English's
// commonest (wordlist.Common) with no other request word that the
// skill's name or description holds beside it. "push the branch" keeps
// its sure match when "branch" is the skill's; "push the swing higher"
// does not.
func (r *Router) demoteLoneEveryday(pt *plainText, out []Match) []Match {
	if len(out) == 0 || out[0].Tier != TierPhrase {
		return out
	}
	var q *plainRequest
	for i := range out {
		m := &out[i]
		if m.Tier != TierPhrase || m.Score != 1 || len(m.Hits) != 1 || strings.ContainsRune(m.Hits[0], ' ') {
			continue
		}
		hit := strings.ToLower(m.Hits[0])
		if !wordlist.Common(hit) {
			continue
		}
		p := r.plainIndex()
		if q == nil {
			if q = pt.read(p); len(q.toks) < loneEverydayVerbWords {
				return out
			}
		}
		if len(q.toks) < loneEverydayWords && !saidFirst(pt.text, hit) {
			continue
		}
		s := r.skillAt(*m)
		company := false
		for k, t := range q.toks {
			company = company || t != hit && s >= 0 && q.holds(k, s)
		}
		if !company {
			m.Tier = TierRelaxed
		}
	}
	return out
}

// saidFirst reports whether word is the first word of text that is not
// a stop word ("please" aside): the slot of an imperative verb.
func saidFirst(text, word string) bool {
	for _, tok := range appendTokens(nil, text) {
		if stopWords[tok] || tok == "please" {
			continue
		}
		return tok == strings.ToLower(word)
	}
	return false
}
