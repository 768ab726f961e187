package router

import "testing"

// TestConditionClause: the conditional clause is found by grammar in
// both scripts; "if" asking whether is no condition.
func TestConditionClause(t *testing.T) {
	for _, c := range []struct {
		text, cond string
		ok         bool
	}{
		{"if the build is red, roll back the deploy", "if the build is red,", true},
		{"roll back the deploy, if the build is red", ", if the build is red", true},
		{"Unless it shipped, change the address", "unless it shipped,", true},
		{"还没发货的话能换个收货地址吗", "还没发货的话", true},
		{"如果已经发货，就帮我退款", "如果已经发货，", true},
		{"check if the certificate is still valid", "", false},
		{"tell me if it's red", "", false},
		{"if the build is red,", "", false}, // no main clause
		{"订单到哪了", "", false},
	} {
		cond, _, ok := conditionClause(c.text)
		if ok != c.ok || cond != c.cond {
			t.Errorf("%q: %q %v, want %q %v", c.text, cond, ok, c.cond, c.ok)
		}
	}
}

// TestConditionLast: a sure match whose trigger is said in the condition
// alone goes behind the match the main clause asks for, relaxed; without
// a condition the order is the phrase tier's.
func TestConditionLast(t *testing.T) {
	skills := []Skill{
		{Name: "order-status", Z: 1, Triggers: []string{"还没发货", "订单状态"}, Description: "查询订单状态和发货进度"},
		{Name: "change-address", Z: 2, Triggers: []string{"改地址"}, Description: "修改订单的收货地址"},
		{Name: "build-status", Z: 3, Triggers: []string{"build failed"}, Description: "Report why a CI build failed"},
		{Name: "rollback", Z: 4, Description: "Roll a deploy back to the previous release"},
	}
	r := newTest(t, skills, nil)
	for _, c := range []struct{ text, want, tier string }{
		{"还没发货的话能换个收货地址吗", "change-address", TierRelaxed},
		{"还没发货，能换个收货地址吗", "order-status", TierPhrase},
		{"if the build failed, roll the deploy back to the previous release", "rollback", TierRelaxed},
	} {
		got := route(t, r, c.text, nil)
		if len(got) == 0 || got[0].Name != c.want || got[0].Tier != c.tier {
			t.Errorf("%q: %+v, want %s (%s) first", c.text, got, c.want, c.tier)
		}
		for i := 1; i < len(got) && c.tier == TierRelaxed; i++ {
			if Sure(got[i].Tier) {
				t.Errorf("%q: %s is sure after a guess: %+v", c.text, got[i].Name, got)
			}
		}
	}
}
