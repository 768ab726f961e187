package router

import (
	"slices"
	"testing"
)

// gramSkills is a small Chinese agent: the segmenter knows 收货 (a
// trigger of address) and 地址 (a trigger of invoice), so "收货地址" is
// read as two words.
var gramSkills = []Skill{
	{Name: "refund", Z: 1, Triggers: []string{"退款"}, Description: "买家要求退款，或者吊牌完好的商品申请退货。"},
	{Name: "address", Z: 2, Triggers: []string{"收货"}, Description: "买家要改收货人或电话：门牌号、吊顶、吊桥、牌照。"},
	{Name: "invoice", Z: 3, Triggers: []string{"地址", "发票"}, Description: "开发票、修改发票抬头，问发票是什么时候开的。"},
}

func TestRequestGrams(t *testing.T) {
	r := newTest(t, gramSkills, nil)
	for _, tc := range []struct {
		text      string
		want, not []string
	}{
		// 收货|地址 are two of the agent's words: no 货地 across them.
		{"收货地址", []string{"收货", "地址"}, []string{"货地"}},
		{"吊牌还在能退吗", []string{"吊牌", "牌还", "退吗"}, nil},
	} {
		got := r.requestGrams(tc.text)
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("requestGrams(%q) = %q, want it to hold %q", tc.text, got, w)
			}
		}
		for _, n := range tc.not {
			if slices.Contains(got, n) {
				t.Errorf("requestGrams(%q) = %q, want no %q", tc.text, got, n)
			}
		}
	}
}

func TestGramRunnersUp(t *testing.T) {
	r := newTest(t, gramSkills, nil)
	for _, tc := range []struct {
		text string
		want string // first match; "" for none
	}{
		// No trigger: the pair 吊牌 of refund's description finds it,
		// though address holds 吊 and 牌 more often, apart.
		{"吊牌", "refund"},
		{"吊牌还在，能退吗", "refund"},
	} {
		got := route(t, r, tc.text, &Query{Mode: Ranked, Limit: DefaultLimit})
		first := ""
		if len(got) > 0 {
			first = got[0].Name
		}
		if first != tc.want {
			t.Errorf("Route(%q) = %v, want %q first", tc.text, got, tc.want)
		}
	}
	// Only the commonest characters: the plain ranking may list a skill
	// that holds 是 or 么, and its fit says it holds nothing else.
	for _, m := range route(t, r, "这是什么呢", &Query{Mode: Ranked, Limit: DefaultLimit}) {
		if m.Tier != TierRunnerUp || m.Fit != 0 {
			t.Errorf("Route(这是什么呢) has %+v, want runner-ups of fit 0 only", m)
		}
	}
	// invoice's description holds 什么时候, two pairs of the commonest
	// characters: they may weigh for a skill (here the relaxed tier's
	// match), never bring in a runner-up alone.
	for _, m := range route(t, r, "什么时候", &Query{Mode: Ranked, Limit: DefaultLimit}) {
		if m.Tier == TierRunnerUp {
			t.Errorf("Route(什么时候) has runner-up %+v, found by common pairs alone", m)
		}
	}
}

// TestWordsText: the relaxed tier's analyzers read a cut request as the
// segmenter's words, so its character pairs never span two of them.
func TestWordsText(t *testing.T) {
	r := newTest(t, gramSkills, nil)
	toks, _ := r.segmenterOf().split(nil, appendTokens(nil, "收货地址"))
	a := analyze(r.an, wordsText("收货地址", toks), false)
	for _, x := range a.text {
		if x.term == "货地" {
			t.Errorf("relaxed terms of 收货地址 = %v, hold 货地 across the segmenter's words", a.text)
		}
	}
	// requestTerms, what the relaxed search reads, cuts the same way.
	for _, x := range requestTerms(r.an, "收货地址", toks, appendStems(nil, toks), true, nil).exact {
		if x.term == "货地" {
			t.Errorf("requestTerms of 收货地址 hold 货地 across the segmenter's words")
		}
	}
	if got := wordsText("deploy it", []string{"deploy", "it"}); got != "deploy it" {
		t.Errorf("wordsText of an English request = %q, want it as written", got)
	}
}
