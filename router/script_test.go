package router

import (
	"slices"
	"testing"
)

// TestRouteOtherHanScript: ranked mode reads a request in the other
// Chinese script in the agent's, for triggers and descriptions alike,
// and its hits are the agent's words; spec mode stays the reference's.
func TestRouteOtherHanScript(t *testing.T) {
	simplified := newTest(t, []Skill{
		{Name: "order-status", Z: 1, Triggers: []string{"订单状态", "发货"}, Description: "查询订单是否付款成功、是否已发货。"},
		{Name: "invoice", Z: 2, Triggers: []string{"发票"}, Description: "为买家开具电子发票。"},
	}, nil)
	traditional := newTest(t, []Skill{
		{Name: "order-status", Z: 1, Triggers: []string{"訂單狀態", "發貨"}, Description: "查詢訂單是否付款成功、是否已發貨。"},
		{Name: "invoice", Z: 2, Triggers: []string{"發票"}, Description: "為買家開具電子發票。"},
	}, nil)
	for _, tt := range []struct {
		r          *Router
		text, want string
		hits       []string
	}{
		{simplified, "請問我的訂單發貨了嗎", "order-status", []string{"发货"}},
		{simplified, "我要開發票", "invoice", []string{"发票"}},
		{simplified, "我的订单发货了吗", "order-status", []string{"发货"}},
		{traditional, "我的订单发货了吗", "order-status", []string{"發貨"}},
		{traditional, "我要开发票", "invoice", []string{"發票"}},
		{traditional, "請問我的訂單發貨了嗎", "order-status", []string{"發貨"}},
	} {
		got := route(t, tt.r, tt.text, &Query{Mode: Ranked})
		if firstName(got) != tt.want || !slices.Equal(got[0].Hits, tt.hits) {
			t.Errorf("ranked %q: %+v, want %s first with hits %q", tt.text, got, tt.want, tt.hits)
		}
	}
	// Spec mode compares the request as written: a whole token in the
	// other script is no trigger of the agent's.
	if got := route(t, simplified, "發票", &Query{Mode: Spec}); len(got) != 0 {
		t.Errorf("spec 發票 on a simplified agent: %+v, want nothing (the reference's answer)", got)
	}
	if got := route(t, simplified, "發票", &Query{Mode: Ranked}); firstName(got) != "invoice" {
		t.Errorf("ranked 發票 on a simplified agent: %+v, want invoice", got)
	}
}

// TestHanScriptLeavesJapaneseAlone: an agent with kana is Japanese, whose
// kanji follow neither Chinese script, and a request with kana is read as
// written, so no Japanese word is rewritten into a form its agent lacks.
func TestHanScriptLeavesJapaneseAlone(t *testing.T) {
	japanese := newTest(t, []Skill{
		{Name: "copy", Z: 1, Triggers: []string{"写真"}, Description: "写真をコピーする。"},
		{Name: "machine", Z: 2, Triggers: []string{"機械"}, Description: "機械の状態を調べる。"},
	}, nil)
	if s := japanese.hanScriptOf(); s != hanNone {
		t.Fatalf("a Japanese agent read as Chinese script %d", s)
	}
	if got := route(t, japanese, "写真を送って", &Query{Mode: Ranked}); firstName(got) != "copy" {
		t.Errorf("写真を送って: %+v, want copy", got)
	}
	simplified := newTest(t, []Skill{{Name: "photo", Z: 1, Triggers: []string{"写真"}, Description: "整理照片和写真。"}}, nil)
	if text := simplified.inAgentScript("寫真をください"); text != "寫真をください" {
		t.Errorf("a request with kana was rewritten to %q", text)
	}
	mixed := newTest(t, []Skill{
		{Name: "a", Z: 1, Triggers: []string{"订单"}},
		{Name: "b", Z: 2, Triggers: []string{"訂單"}},
	}, nil)
	if s := mixed.hanScriptOf(); s != hanNone {
		t.Errorf("an agent written in both scripts alike read as script %d, want none", s)
	}
}
