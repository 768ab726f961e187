package router

import "testing"

func TestAboutSubject(t *testing.T) {
	for _, tt := range []struct {
		text  string
		about bool
	}{
		{"what is a feature flag", true},
		{"What's kubernetes?", true},
		{"what is the meaning of p99", true},
		{"how does a canary deploy work", true},
		{"what's the difference between a refund and a chargeback", true},
		{"show me the history of lines 40-80", false},
		{"什么是七天无理由退货", true},
		{"退款和退货有什么区别", true},
		{"what is the status of order 123", false},
		{"why is the build red", false},
		{"how do I deploy the api", false},
		{"我的订单状态是什么", false},
		{"deploy the api", false},
	} {
		if got := asksAbout(tt.text); got != tt.about {
			t.Errorf("aboutSubject(%q) = %v, want %v", tt.text, got, tt.about)
		}
	}
}

// TestAboutSubjectDemotes: a trigger phrase said in a question about
// its subject leaves its skill first, as a guess, not a sure match.
func TestAboutSubjectDemotes(t *testing.T) {
	r := newTest(t, []Skill{{Name: "refund", Z: 1, Triggers: []string{"refund"}, Description: "Refund an order"}}, nil)
	if got := route(t, r, "refund order 123", nil); len(got) == 0 || got[0].Tier != TierPhrase {
		t.Fatalf("a task: %s, want a phrase hit", brief(got))
	}
	got := route(t, r, "what is the difference between a refund and a chargeback", nil)
	if len(got) == 0 || got[0].Name != "refund" || got[0].Tier != TierRelaxed || got[0].Fit <= 0 {
		t.Errorf("about the subject: %+v, want refund first as a relaxed guess with its fit", got)
	}
}

// TestLoneEverydayTrigger: a one-word trigger that is an everyday word
// makes a sure match only with company, another request word the
// skill's name or description holds.
func TestLoneEverydayTrigger(t *testing.T) {
	r := newTest(t, []Skill{
		{Name: "git-push", Z: 1, Triggers: []string{"push"}, Description: "Push the current branch to its remote"},
		{Name: "kubectl-scale", Z: 2, Triggers: []string{"scale deployment"}, Description: "Scale a deployment"},
	}, nil)
	if got := route(t, r, "push my branch", nil); len(got) == 0 || got[0].Name != "git-push" || got[0].Tier != TierPhrase {
		t.Errorf("with company: %s, want git-push sure", brief(got))
	}
	if got := route(t, r, "push the swing a bit higher today", nil); len(got) == 0 || got[0].Name != "git-push" || got[0].Tier != TierRelaxed {
		t.Errorf("alone: %s, want git-push first as a relaxed guess", brief(got))
	}
}
