package router

import (
	"slices"
	"testing"
)

// TestBodyCutAtAgentWords: a body in an unspaced script is cut where a
// request is cut, at the agent's trigger and name words, before it is read
// in pairs, so no body pair straddles the edge of an agent word; text
// between agent words is still read in pairs.
func TestBodyCutAtAgentWords(t *testing.T) {
	an := testAnalyzers(t)
	skills := Skills{
		{Name: "refund", Triggers: []string{"退款", "退钱"}, Body: "退款原路返回，银行卡到账慢"},
		{Name: "status", Triggers: []string{"订单状态"}},
	}
	x := newBodyIndexBuilder(len(skills))
	br := newBodyReader(skills, an, 100, x)
	var got []string
	for _, id := range br.terms([]byte(skills[0].Body)) {
		for term, tid := range x.ids {
			if tid == id {
				got = append(got, term)
			}
		}
	}
	for _, want := range []string{"退款", "原路", "路返", "返回", "银行", "到账"} {
		if !slices.Contains(got, want) {
			t.Errorf("body terms %q lack %q", got, want)
		}
	}
	if slices.Contains(got, "款原") {
		t.Errorf("body terms %q hold 款原, a pair across the edge of the agent word 退款", got)
	}
	// An agent with no words in the script reads the body as before.
	plain := Skills{{Name: "refund", Triggers: []string{"refund"}, Body: "退款原路返回"}}
	br = newBodyReader(plain, an, 100, newBodyIndexBuilder(1))
	if n := len(br.terms([]byte(plain[0].Body))); n != 5 {
		t.Errorf("without agent words: %d terms, want the 5 pairs of 退款原路返回", n)
	}
}

// TestSegmenterSpaced: spaced puts a space on each side of every agent
// word split would find, leaving other text as it is.
func TestSegmenterSpaced(t *testing.T) {
	sg := testSegmenter()
	for in, want := range map[string]string{
		"请部署结账服务":     "请 部署 结账服务",
		"帮我查看日志":      "帮我 查看日志 ",
		"k8s部署 done":  "k8s 部署  done",
		"deploy logs": "deploy logs",
	} {
		if got := string(sg.Spaced(nil, in)); got != want {
			t.Errorf("spaced(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestBodyStretchOneWord: the pairs of one stretch of text a request
// shares with a body (a stock phrase: 小时内发) are one request word of
// evidence, not one per pair, so they do not make a relaxed match alone;
// two separate stretches are two words and do.
func TestBodyStretchOneWord(t *testing.T) {
	skills := []Skill{
		{Name: "exchange", Z: 1, Triggers: []string{"换货", "换尺码"}, Description: "换尺码或颜色",
			Body: "仓库收到退货后 48 小时内发出新商品，运单号短信通知买家。"},
		{Name: "invoice", Z: 2, Triggers: []string{"发票", "开票"}, Description: "开具发票"},
		{Name: "coupon", Z: 3, Triggers: []string{"优惠券"}, Description: "优惠券问题"},
	}
	r := newTest(t, skills, nil)
	if got := found(t, r, "两小时内发的", nil); len(got) != 0 {
		t.Errorf("one shared stretch: %s, want nothing", brief(got))
	}
	if got := route(t, r, "仓库收到了吗新商品呢", nil); len(got) == 0 || got[0].Name != "exchange" || got[0].Tier != TierRelaxed {
		t.Errorf("two shared stretches: %s, want exchange, relaxed", brief(got))
	}
}
