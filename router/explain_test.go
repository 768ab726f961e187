package router

import (
	"context"
	"slices"
	"testing"
)

// TestExplain: each match says why it has its tier, and each request
// word which of the skill's fields hold it and what it weighs.
func TestExplain(t *testing.T) {
	r := newTest(t, []Skill{
		{Name: "deploy", Z: 1, Triggers: []string{"ship it"}, Description: "Roll the service out to production"},
		{Name: "tail-logs", Z: 2, Triggers: []string{"show logs"}, Description: "Follow the service logs in production"},
	}, nil)
	got, err := r.Explain(context.Background(), "ship it to production", nil)
	if err != nil || len(got) != 2 {
		t.Fatalf("Explain = %+v, %v; want deploy and tail-logs", got, err)
	}
	d := got[0]
	if d.Name != "deploy" || d.Why != "sure: 1 trigger phrase(s) hit (ship it)" {
		t.Errorf("first: %s, %q", d.Name, d.Why)
	}
	i := slices.IndexFunc(d.Words, func(w WordEvidence) bool { return w.Word == "production" })
	if i < 0 || !slices.Equal(d.Words[i].Fields, []string{"description"}) || d.Words[i].Weight <= 0 {
		t.Errorf("deploy's words %+v: want production held by its description, with a weight", d.Words)
	}
	if i := slices.IndexFunc(d.Words, func(w WordEvidence) bool { return w.Word == "ship" }); i < 0 || !slices.Equal(d.Words[i].Fields, []string{"trigger"}) {
		t.Errorf("deploy's words %+v: want ship held by a trigger", d.Words)
	}
	if got[1].Tier != TierRunnerUp || got[1].Why == "" {
		t.Errorf("second: %+v", got[1])
	}
}
