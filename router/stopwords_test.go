package router

import (
	"slices"
	"testing"
)

// TestContractionTails: what a contraction leaves behind its apostrophe
// ("what's" → s) is no request word: no match lists it as evidence, and
// a description's possessive ("the team's") brings no skill in by it.
func TestContractionTails(t *testing.T) {
	r := newTest(t, []Skill{
		{Name: "rota", Z: 1, Triggers: []string{"who is on call"}, Description: "Show the team's on-call rota"},
		{Name: "orders", Z: 2, Triggers: []string{"order status"}, Description: "Look up an order"},
	}, nil)
	for _, text := range []string{"what's the average basket value", "it's the customer's, isn't it", "we'll see, they've said"} {
		for _, m := range route(t, r, text, nil) {
			if slices.ContainsFunc(m.Hits, func(h string) bool { return stopWords[h] }) {
				t.Errorf("%q: %s lists a stop word %v as evidence", text, m.Name, m.Hits)
			}
			if m.Name == "rota" {
				t.Errorf("%q: rota matched by its possessive: %+v", text, m)
			}
		}
	}
	an := testAnalyzers(t)
	for _, tt := range analyze(an, "what's the team's rota", false).text {
		if stopWords[tt.term] {
			t.Errorf("the text analyzer keeps %q", tt.term)
		}
	}
}
