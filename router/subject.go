package router

import (
	"regexp"
	"strings"

	"github.com/agent3md/agent3md/internal/wordlist"
)

// aboutSubject matches a request that asks about a subject rather than
// for a task: "what is a feature flag", "how does a canary deploy
// work", "the difference between a refund and a chargeback", and their
// Chinese forms (什么是, 有什么区别). A skill's trigger phrase
// said inside one names the subject, not the errand: the match stays a
// guess (relaxed), for the model to weigh, and run --exec does not act
// on it. The forms are few on purpose ("the history of" is git blame's
// request as often as a question about Linux): "what is the status of order
// 123", "why is the build red" and "我的订单状态是什么" ask for a task, so
// "what is" counts only before an article or a single word.
var aboutSubject = regexp.MustCompile(`(?i)^\s*(?:what(?:'s|\s+is|\s+are)\s+(?:an?\s|[^\s]+\s*\??\s*$|(?:the\s+)?(?:meaning|point|purpose)\s+of\s)|what\s+does\s.+\s+mean\b|how\s+(?:does|do)\s.+\s+work\b|who\s+(?:invented|made|created)\s)` +
	`|\bdifference\s+between\b` +
	`|什么是|什么叫|有什么区别|有何区别|区别是什么|有什么不同|的区别`)

// asksAbout is aboutSubject.MatchString(text), skipping the regular
// expression (a fifth of a small agent's route) for the requests that
// hold none of its words.
func asksAbout(text string) bool {
	l := strings.ToLower(text)
	for _, w := range []string{"what", "how", "who", "difference", "什么", "区别", "不同"} {
		if strings.Contains(l, w) {
			return aboutSubject.MatchString(strings.TrimSpace(l))
		}
	}
	return false
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
// words or more says more than it.
const loneEverydayWords = 4

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
			if q = pt.read(p); len(q.toks) < loneEverydayWords {
				return out
			}
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
