package router

import (
	"cmp"
	"context"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agent3md/agent3md/internal/segment"
	"github.com/agent3md/agent3md/internal/wordlist"
)

// rank returns the positions in cands of the first limit candidates (all
// for 0) in order: by tier (key>>32), then, when byRel, by whole name,
// evidence and relevance, descending, then by key (z). Only the tiers
// reaching into the limit are ordered, the last by selection; when byRel,
// relevance is first called with the positions of tied tiers' members
// and must set their rel.
func rank(cands []candidate, limit int, byRel bool, s *rankScratch, relevance func(which []int) error) ([]int, error) {
	if limit == 0 || limit > len(cands) {
		limit = len(cands)
	}
	// The tiers present, each with its members. There are few (exact or
	// not, times the distinct phrase counts), so a linear search finds a
	// candidate's tier; members go in one buffer, bucketed by tier.
	tiers := s.tiers[:0]
	var byTier map[uint64]int // once tiers are too many to search
	tierOf := slices.Grow(s.buf[:0], 2*len(cands))[:2*len(cands)]
	last := -1
	for i := range cands {
		t := cands[i].key >> 32
		if last < 0 || tiers[last].tier != t {
			if byTier != nil {
				last = -1
				if k, ok := byTier[t]; ok {
					last = k
				}
			} else {
				last = slices.IndexFunc(tiers, func(r tierRun) bool { return r.tier == t })
			}
			if last < 0 {
				tiers = append(tiers, tierRun{tier: t})
				last = len(tiers) - 1
				if byTier != nil {
					byTier[t] = last
				} else if len(tiers) > maxLinearTiers {
					byTier = make(map[uint64]int, 2*len(tiers))
					for k, r := range tiers {
						byTier[r.tier] = k
					}
				}
			}
		}
		tierOf[i] = last
		tiers[last].n++
	}
	members := tierOf[len(cands):]
	start := 0
	for k := range tiers {
		tiers[k].members = members[start : start : start+tiers[k].n]
		start += tiers[k].n
	}
	for i, k := range tierOf[:len(cands)] {
		tiers[k].members = append(tiers[k].members, i)
	}
	s.buf, s.tiers = tierOf, tiers
	slices.SortFunc(tiers, func(a, b tierRun) int { return cmp.Compare(a.tier, b.tier) })
	keep, total := 0, 0
	for keep < len(tiers) && total < limit {
		total += len(tiers[keep].members)
		keep++
	}
	tiers = tiers[:keep]
	if byRel && relevance != nil {
		which := s.which[:0]
		for _, t := range tiers {
			if len(t.members) > 1 {
				which = append(which, t.members...)
			}
		}
		s.which = which
		if len(which) > 0 {
			if err := relevance(which); err != nil {
				return nil, err
			}
		}
	}
	// Keys are distinct, so this is a total order.
	order := func(a, b int) int {
		ca, cb := &cands[a], &cands[b]
		if byRel {
			if ca.full != cb.full {
				return b2i(cb.full) - b2i(ca.full)
			}
			if c := cmp.Compare(cb.ev, ca.ev); c != 0 {
				return c
			}
			if c := cmp.Compare(cb.rel, ca.rel); c != 0 {
				return c
			}
		}
		return cmp.Compare(ca.key, cb.key)
	}
	out := slices.Grow(s.out[:0], limit)
	for _, t := range tiers {
		out = appendBest(out, t.members, limit-len(out), order)
	}
	s.out = out
	return out, nil
}

// rankScratch is rank's reusable memory, pooled with a route's tally. The
// order rank returns lives in it: it is valid until the next rank with the
// same scratch.
type rankScratch struct {
	buf   []int // tier of each candidate, then the members bucketed by tier
	tiers []tierRun
	which []int // candidates whose relevance is asked for
	out   []int
}

// tierRun is one tier of rank's candidates and its members.
type tierRun struct {
	tier    uint64
	n       int
	members []int
}

// maxLinearTiers is how many tiers are searched linearly before a map
// takes over: agents rarely give more than a handful, but one whose
// skills hit hundreds of phrases each could.
const maxLinearTiers = 32

// selectMax is the largest want for which appendBest selects through an
// insertion buffer; beyond it a sort is cheaper.
const selectMax = 64

// appendBest appends to out the first want of members by order, in order.
func appendBest(out, members []int, want int, order func(a, b int) int) []int {
	if want >= len(members) || want > selectMax {
		slices.SortFunc(members, order)
		return append(out, members[:min(want, len(members))]...)
	}
	before := func(a, b int) bool { return order(a, b) < 0 }
	base := len(out)
	for _, k := range members {
		n := len(out) - base
		if n == want && !before(k, out[len(out)-1]) {
			continue
		}
		lo, hi := base, len(out)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if before(k, out[m]) {
				hi = m
			} else {
				lo = m + 1
			}
		}
		if n < want {
			out = append(out, 0)
		}
		copy(out[lo+1:], out[lo:len(out)-1])
		out[lo] = k
	}
	return out
}

// asksAbout reports whether text asks about a subject rather than for a
// task ("what is a feature flag", "退款和退货有什么区别"): a trigger said
// inside one names the subject, not the errand. A request with no
// unspaced rune and none of the English frames' words skips the regexps.
func asksAbout(text string) bool {
	if !segment.HasUnspaced(text) && !aboutCues.in(text) {
		return false
	}
	return askAboutSubject(text) != ""
}

// aboutCues are words one of which every English question frame holds
// (questionFrames): a request without any skips the regexps.
var aboutCues = newCues("what", "how", "who", "difference", "is ", "are ", "recommend", " in ", "when", "much", "salary", "history", "exam")

// cues are lowercase words a request is searched for, ignoring case,
// before regexps read it: a route asks this of every request.
type cues struct {
	words   []string
	byFirst [utf8.RuneSelf][]string // the ASCII words by their first byte
	// pairs has a bit per two first bytes of an ASCII word, lowercase
	// (first<<7 | second): most places in a text start none.
	pairs [utf8.RuneSelf * utf8.RuneSelf / 64]uint64
}

func newCues(words ...string) *cues {
	c := &cues{words: words}
	for _, w := range words {
		if w[0] < utf8.RuneSelf {
			c.byFirst[w[0]] = append(c.byFirst[w[0]], w)
			k := int(w[0])<<7 | int(w[1])
			c.pairs[k>>6] |= 1 << (k & 63)
		}
	}
	return c
}

// in reports whether text, lowercased, contains one of c's words. An
// ASCII text, which holds none of the others, is read in place for the
// ASCII ones, byte by byte, without lowercasing a copy.
func (c *cues) in(text string) bool {
	for i := 0; i < len(text); i++ {
		if text[i] >= utf8.RuneSelf {
			l := strings.ToLower(text) // İ lowercases to i
			return slices.ContainsFunc(c.words, func(w string) bool { return strings.Contains(l, w) })
		}
	}
	if len(text) < 2 { // every word has two bytes or more
		return false
	}
	next := foldByte(text[0])
	for i := 0; i+1 < len(text); i++ {
		b := next
		next = foldByte(text[i+1])
		if k := int(b)<<7 | int(next); c.pairs[k>>6]&(1<<(k&63)) == 0 {
			continue
		}
		for _, w := range c.byFirst[b] {
			if len(text)-i >= len(w) && strings.EqualFold(text[i:i+len(w)], w) {
				return true
			}
		}
	}
	return false
}

func foldByte(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// Frame words: an ASCII request that a question frame (questionFrames)
// or a conditional clause (conditionLead, conditionTrail) reads holds one
// of the frames' words as a whole token (the expressions read ASCII word
// boundaries), so a request of none is not searched for their cues. A
// request with another script is: its letters bound words otherwise.
const (
	aboutWord = 1 << iota
	conditionWord
)

// frameWord is the kind of frame w is a word of, 0 for none (a switch:
// a route asks it of each word, and a map's hash costs more).
func frameWord(w string) int {
	switch w {
	case "what", "how", "who", "when", "difference", "is", "are", "salary", "in", "recommend", "any", "history", "exam", "exams":
		return aboutWord
	case "if", "unless", "case":
		return conditionWord
	}
	return 0
}

// mayHold reports whether the request may hold a frame of kind.
func (t *plainText) mayHold(kind int) bool {
	return !t.ascii || slices.ContainsFunc(t.toks, func(w string) bool { return frameWord(w) == kind })
}

// demoteAboutSubject turns the sure matches of a request that asks
// about a subject (aboutSubject) into relaxed ones, in the same order.
func demoteAboutSubject(pt *plainText, out []Match) []Match {
	if len(out) == 0 || !Sure(out[0].Tier) || !pt.mayHold(aboutWord) || !asksAbout(pt.text) {
		return out
	}
	for i := range out {
		if Sure(out[i].Tier) {
			out[i].Tier = TierRelaxed
		}
	}
	return out
}

// loneEverydayWords is how many words (stop words aside) a request needs
// for one trigger word to be too little of it ("bulid it again" is its
// errand; "check the status of my pizza order" is not check-status's);
// loneEverydayVerbWords the same when the trigger is one of English's
// commonest words said first, an imperative verb's slot ("push the
// meeting to Thursday", against "ship the logs of cart" for a trigger
// "logs").
const (
	loneEverydayWords     = 4
	loneEverydayVerbWords = 3
)

// demoteLoneEveryday makes guesses of the sure matches whose only
// evidence is a one-word trigger with no other request word the skill's
// name or description holds, in a request of loneEverydayWords words or
// more, or of loneEverydayVerbWords when the trigger is among English's
// commonest (wordlist.Common) and said first: "push the branch" stays
// sure when "branch" is the skill's, "push the swing higher" does not.
// A shorter question loses its sure match the same way when its other
// words are all strangers (strangersOnly): "what's the weather forecast
// for saturday" asks no errand of a skill whose trigger is "forecast".
// A short imperative keeps it: its object is often a name of the user's
// that happens to be a word ("ship the logs of cart").
// at holds out's skills when sure left them (hitTally.at); else each is
// searched by z and name.
func (r *Router) demoteLoneEveryday(ctx context.Context, pt *plainText, out []Match, at []int) []Match {
	if len(out) == 0 || out[0].Tier != TierPhrase {
		return out
	}
	var q *plainRequest
	var said, hit string // the last trigger read, lowercased
	var common, english bool
	strangers := -1 // strangersOnly for hit; -1 until read
	hitAt := -2     // hit's place in q.toks, -1 for none; -2 until read
	for i := range out {
		m := &out[i]
		if m.Tier != TierPhrase || m.Score != 1 || len(m.Hits) != 1 {
			continue
		}
		if m.Hits[0] != said {
			// Matches often share their one trigger: it is read once.
			said, hit = m.Hits[0], strings.ToLower(m.Hits[0])
			word := !strings.ContainsRune(hit, ' ')
			common = word && wordlist.Common(hit)
			english = common || word && wordlist.Known(hit)
			hitAt, strangers = -2, -1
		}
		if !english {
			continue
		}
		if q == nil {
			q = pt.read(r.plainIndex())
		}
		if len(q.toks) < loneEverydayWords && (len(q.toks) < loneEverydayVerbWords || pt.firstWord() != hit || !common) {
			if strangers < 0 {
				strangers = b2i(pt.opensQuestion() && r.strangersOnly(ctx, q, hit))
			}
			if strangers == 0 {
				continue
			}
		}
		var s int
		if len(at) == len(out) {
			s = at[i]
		} else {
			s = r.skillAt(*m)
		}
		if hitAt == -2 {
			hitAt = slices.Index(q.toks, hit) // q.toks are distinct
		}
		company, held := false, 0.0
		for k := 0; k < len(q.toks) && !company; k++ {
			if s >= 0 && q.holds(k, s) {
				company = k != hitAt
				held += q.words[k].idf
			}
		}
		if !company {
			// A guess carries its fit (runnersUp), summed here with
			// the words the skill holds.
			m.Tier = TierRelaxed
			m.Fit = q.share(s, held)
		}
	}
	return out
}

// strangersOnly reports whether every request word but hit's own is an
// English word (wordlist.Known) that no skill's indexed fields hold, and
// there is one: the request speaks of something the agent never names.
// Numbers are passed over; any other word (an identifier, a name, a
// misspelling, a word of the agent) means it may well be the agent's.
func (r *Router) strangersOnly(ctx context.Context, q *plainRequest, hit string) bool {
	own, n := routeStem(hit), 0
	for _, w := range q.toks {
		if st := routeStem(w); st == own || isNumber(w) {
			continue
		} else if held, _ := r.scorer.skillsHolding(ctx, st); held > 0 || !wordlist.Known(w) {
			return false
		}
		n++
	}
	return n > 0
}

// opensQuestion reports whether the request's first word opens an
// English question. "can", "could", "would" and "will" do not count:
// they open polite imperatives ("can you restart cart").
func (t *plainText) opensQuestion() bool {
	toks := t.toks
	if toks == nil {
		toks = appendTokens(nil, t.text)
	}
	if len(toks) == 0 {
		return false
	}
	switch toks[0] {
	case "what", "whats", "how", "hows", "where", "wheres", "when", "why", "who", "whos", "which",
		"is", "are", "was", "were", "do", "does", "did", "should", "shall":
		return true
	}
	return false
}

// isNumber reports whether w is all ASCII digits.
func isNumber(w string) bool {
	return w != "" && strings.Trim(w, "0123456789") == ""
}

// firstWord is the first word of the request that is not a stop word
// ("please" aside): the slot of an imperative verb; "" when none.
func (t *plainText) firstWord() string {
	if !t.firstDone {
		toks := t.toks
		if toks == nil {
			toks = appendTokens(nil, t.text)
		}
		if k := slices.IndexFunc(toks, func(tok string) bool { return !stopWords[tok] && tok != "please" }); k >= 0 {
			t.first = toks[k]
		}
		t.firstDone = true
	}
	return t.first
}

// Question frames: the grammar of asking about a subject rather than for
// a task: what it is, how it works or compares, what it is worth or
// called, what to read, who made it and when and its history, how a
// trade is doing, what it costs, how to pass an exam on it, what a paper
// on it says. A
// personal frame does not count when the request speaks of the asker's
// own things (a first-person word or a number: "我的订单状态是什么").
type questionFrame struct {
	name     string
	re       *regexp.Regexp
	personal bool
	zh       bool // a Chinese frame
}

var questionFrames = []questionFrame{
	// English frames read from the start of the request: a question
	// word later on ("tell me what is failing") is the task's object.
	{"definition", regexp.MustCompile(`^(?:so\s+|ok\s+|hey\s+)?(?:what(?:'s|\s+is|\s+are)\s+(?:an?\s|[^\s]+\s*\??\s*$|(?:the\s+)?(?:meaning|point|purpose|origin)\s+of\s)|what\s+does\s.+\s+(?:mean|stand\s+for)\b)`), true, false},
	{"mechanism", regexp.MustCompile(`^(?:so\s+|ok\s+)?how\s+(?:does|do)\s.+\s+work\b`), true, false},
	{"origin", regexp.MustCompile(`^(?:an?\s+)?(?:brief\s+|short\s+)?history\s+of\s|^who\s+(?:invented|made|created|founded|owns|wrote)\s|^when\s+(?:was|were|did)\s.+\s(?:released|founded|invented|created|come\s+out)\b`), true, false},
	{"comparison", regexp.MustCompile(`\bdifference\s+between\b|^(?:is|are)\s.+\s(?:better|worse)\s+than\s|^(?:is|are)\s.+\s(?:the\s+)?same\s+(?:thing\s+)?as\s`), false, false},
	{"worth", regexp.MustCompile(`^(?:is|are)\s+\S+(?:\s+\S+)?\s+(?:an?\s+)?(?:good|bad|great|decent)\s+(?:\S+\s+)?(?:to|for)\b|^(?:is|are)\s.+\sworth\s+(?:it|the|learning|using)\b|^(?:is|are)\s+\S+(?:\s+\S+)?\s+still\s+(?:the\s+)?(?:recommended|popular|relevant|used|best)\b`), false, false},
	{"trade", regexp.MustCompile(`^how\s+much\s+(?:does|do)\s+(?:an?\s+)?.+\s(?:earn|get\s+paid)\b|\bsalary\s+(?:of|for)\b`), false, false},
	{"price", regexp.MustCompile(`^how\s+much\s+(?:does|do|is|are)\s.+\s(?:cost|charge)\b`), true, false},
	{"exam", regexp.MustCompile(`\b(?:pass|passing|study\s+for|prepare\s+for)\s+(?:the\s+|an?\s+)?(?:\S+\s+){0,3}exams?\b`), false, false},
	{"language", regexp.MustCompile(`^how\s+(?:do|would|should)\s+(?:you|i|we)\s+(?:pronounce|spell|say)\s|\bin\s+(?:english|chinese|spanish|french|german|japanese)\s*\??$`), false, false},
	{"recommendation", regexp.MustCompile(`^(?:can\s+you\s+|could\s+you\s+|please\s+)?recommend\s+(?:me\s+)?(?:an?|some|any|good)\s|\bany\s+(?:good\s+)?recommendations?\s+for\b`), false, false},

	// Chinese frames read anywhere: the subject comes first ("退款和退货
	// 有什么区别"), the frame after it.
	{"定义", regexp.MustCompile(`什么是|什么叫|何为|是什么意思|什么意思|啥意思|指的是什么|是指什么|的意思是|定义|概念`), false, true},
	{"定义(句末)", regexp.MustCompile(`是(?:什么|啥)[？?吗呀呢]*$`), true, true},
	{"比较", regexp.MustCompile(`(?:有什么|有何|有啥)(?:区别|不同|差别|差异)|(?:区别|差别|差异)(?:是什么|在哪)|的区别|的差别|哪个更?好|哪(?:个|家)更?(?:好|快|便宜|划算|靠谱)(?:[？?吗呢啊呀些点]|一点|$)|(?:一样|相同|一回事)吗|有什么不一样`), false, true},
	{"评价", regexp.MustCompile(`怎么样[？?吗啊呀呢]*$|好不好|靠谱吗|值不值|值得[买用学]?吗|是不是很|前景`), true, true},
	{"行业", regexp.MustCompile(`行业|这行|职业|工资|薪水|挣多少|考研`), false, true},
	{"来历", regexp.MustCompile(`谁发明|发明的|起源|由来|来历`), false, true},
	{"研究", regexp.MustCompile(`论文|调研|研究报告`), false, true},
	{"语言", regexp.MustCompile(`这个(?:词|字)|(?:英文|英语|中文|日语)(?:里)?(?:怎么|怎样|咋)(?:说|讲|写)|用(?:英文|英语)|怎么(?:读|念|拼)`), false, true},
	{"推荐", regexp.MustCompile(`有(?:什么|没有|哪些).{0,12}推荐|推荐(?:一下|几个|一个|一些|些)`), false, true},
}

// personalWord is what makes a personal frame a task: the asker's own
// things ("my", "our", 我), the things at hand ("this", "here"), a
// number standing alone (order 123, node-7; not p99) or a file name (body.go).
var personalWord = regexp.MustCompile(`我|您|咱|\b[0-9]+\b|\b(?:this|these|here|my|our)\b|\w\.[a-z]{1,4}\b`)

// askAboutSubject reports the first question frame text (lowercased,
// trimmed) is said in, or "". The Chinese frames are read only in a
// request that holds a rune of an unspaced script.
func askAboutSubject(text string) string {
	l := strings.TrimSpace(strings.ToLower(text))
	zh := segment.HasUnspaced(l)
	for _, f := range questionFrames {
		if f.zh && !zh {
			continue
		}
		if f.re.MatchString(l) && !(f.personal && personalWord.MatchString(l)) {
			return f.name
		}
	}
	return ""
}

// matches turns cands[order[0]], cands[order[1]], ... into phrase-tier
// matches; ords[i] are the trigger indexes cands[order[i]] hit.
func (r *Router) matches(cands []candidate, order []int, ords [][]uint32, ranked bool) []Match {
	n := 0
	for _, o := range ords {
		n += len(o)
	}
	all := make([]string, n) // one backing array for every match's hits
	out := make([]Match, len(order))
	for i, k := range order {
		c := &cands[k]
		name, z, triggers := r.src.Phrases(c.skill)
		phrases := all[:len(ords[i]):len(ords[i])]
		all = all[len(ords[i]):]
		for j, o := range ords[i] {
			phrases[j] = triggers[o]
		}
		out[i] = Match{Name: name, Z: z, Score: c.score, Hits: phrases, Tier: TierPhrase}
		if ranked {
			out[i].Relevance = c.rel
		}
	}
	return out
}

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
func conditionLast(pt *plainText, out []Match) []Match {
	if len(out) < 2 || !pt.mayHold(conditionWord) {
		return out
	}
	cond, main, ok := conditionClause(pt.text)
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
	return slices.ContainsFunc(hits, func(h string) bool {
		return slices.ContainsFunc(appendTokens(nil, h), func(tok string) bool { return strings.Contains(clause, tok) })
	})
}

// conditionWords are the words every conditional clause opens or closes
// with (conditionLead, conditionTrail, conditionZh): a request without
// any is not read by the expressions, which cost more than the rest of a
// small agent's route.
var conditionWords = newCues("if ", "unless ", "in case", "的话", "如果", "要是", "假如", "万一")
