package router

import (
	"context"
	"testing"
)

// TestDataopsRequests routes the two requests issue 24 quotes against an
// agent written by someone trying the project as a new user would
// (testdata/dataops.3md): the pipeline skill must be among the first
// three for a request that hits another skill's phrase, and a request
// that says one word of a phrase must find the restart skill, relaxed.
func TestDataopsRequests(t *testing.T) {
	r := newTest(t, loadAgentSkills(t, "testdata/dataops.3md"), nil)
	got := route(t, r, "the nightly orders DAG failed, can you check what happened", &Query{Limit: 3})
	if !hasAmong(got, "check-pipeline", 3) {
		t.Errorf("DAG failed: %s, want check-pipeline in the first three", brief(got))
	}
	if len(got) == 0 || got[0].Tier != TierPhrase {
		t.Errorf("DAG failed: %s, want the phrase match first", brief(got))
	}
	// What run asks for: the one sure answer, no runner-up beside it.
	if one := route(t, r, "the nightly orders DAG failed, can you check what happened", &Query{Limit: 1}); len(one) != 1 || one[0].Name != "incident-summary" || one[0].Tier != TierPhrase {
		t.Errorf("DAG failed, limit 1: %s, want incident-summary alone", brief(one))
	}
	got = route(t, r, "payments-api is hanging, bounce it", &Query{Limit: 3})
	if len(got) == 0 || got[0].Name != "restart-service" || got[0].Tier != TierRelaxed {
		t.Errorf("bounce it: %s, want restart-service, relaxed", brief(got))
	}
	if got := route(t, r, "payments-api is hanging, bounce it", &Query{Mode: Spec}); len(got) != 0 {
		t.Errorf("spec mode reads part of a phrase: %s", brief(got))
	}
}

func hasAmong(ms []Match, name string, n int) bool {
	for i, m := range ms {
		if i < n && m.Name == name {
			return true
		}
	}
	return false
}

// TestPartialPhrase: a phrase counts in part only through its
// informative words, all of them, and a single one only when no other
// skill uses it, in its triggers, name or description.
func TestPartialPhrase(t *testing.T) {
	skills := []Skill{
		{Name: "restart-deployment", Z: 1, Triggers: []string{"bounce the service", "restart the service"}, Tool: "kubectl rollout restart {name}", Inputs: []string{"name"}},
		{Name: "scale-deployment", Z: 2, Triggers: []string{"scale the service", "add replicas"}},
		{Name: "rotate-keys", Z: 3, Triggers: []string{"rotate the keys", "renew certificate expiry"}},
		{Name: "renew-lease", Z: 4, Triggers: []string{"renew the lease"}},
		{Name: "tail-logs", Z: 5, Triggers: []string{"tail logs"}},
		{Name: "query-metrics", Z: 6, Triggers: []string{"error rate", "latency"}},
		{Name: "open-incident", Z: 7, Triggers: []string{"declare an incident"}},
		{Name: "find-runbook", Z: 8, Triggers: []string{"runbook"}},
		{Name: "cancel-plan", Z: 9, Triggers: []string{"wants to cancel"}},
		{Name: "refund-rules", Z: 10, Triggers: []string{"refund rules"}, Description: "Whether a cancelled plan is refunded."},
	}
	r := newTest(t, skills, nil)
	for _, tt := range []struct {
		text, want string
	}{
		{"payments is stuck, bounce it", "restart-deployment"},             // "service" is everyday English: bounce is the phrase
		{"the lease ran out", ""},                                          // "renew" is missing
		{"renew that before friday", ""},                                   // renew: two skills use it, alone it is no phrase
		{"certificate expiry is tomorrow for the api", "rotate-keys"},      // both informative words of a three-word phrase
		{"restart that for me now", ""},                                    // "restart the service" has no informative word
		{"bounce the service", "restart-deployment"},                       // the whole phrase: a phrase hit
		{"my kids love to bounce on the trampoline", "restart-deployment"}, // still a relaxed guess, to be confirmed
		{"cancel my dentist appointment", ""},                              // another skill's description says cancel too
		{"the customer wants to cancel", "cancel-plan"},                    // the whole phrase: a phrase hit
	} {
		got := found(t, r, tt.text, nil)
		switch {
		case tt.want == "" && len(got) > 0:
			t.Errorf("%q: %s, want nothing", tt.text, brief(got))
		case tt.want != "" && (len(got) == 0 || got[0].Name != tt.want):
			t.Errorf("%q: %s, want %s", tt.text, brief(got), tt.want)
		}
	}
}

// TestSkillsHolding: the count of skills whose indexed fields hold a term
// is the same from the term statistics and from bleve's own index.
func TestSkillsHolding(t *testing.T) {
	r := newTest(t, []Skill{
		{Name: "cancel-plan", Z: 1, Triggers: []string{"wants to cancel"}},
		{Name: "refund-rules", Z: 2, Description: "Whether a cancelled plan is refunded."},
		{Name: "lookup", Z: 3, Description: "Find the account."},
	}, nil)
	ctx := context.Background()
	analyzed, err := buildTermStats(ctx, r.corpus())
	if err != nil {
		t.Fatal(err)
	}
	for term, want := range map[string]int{"cancel": 2, "plan": 2, "account": 1, "absent": 0} {
		for name, s := range map[string]*termStats{"bleve": r.scorer, "analyzer": analyzed} {
			if n, ok := s.skillsHolding(ctx, term); !ok || n != want {
				t.Errorf("%s: skillsHolding(%q) = %d, %v; want %d", name, term, n, ok, want)
			}
		}
	}
	var none *termStats
	if _, ok := none.skillsHolding(ctx, "cancel"); ok {
		t.Error("a router without an index claims to know")
	}
}
