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

// TestExplainGaps: a guess names the trigger phrases the request came
// closest to and the words it lacks of each, the closest first; a sure
// match lists none.
func TestExplainGaps(t *testing.T) {
	r := newTest(t, []Skill{
		{Name: "cut-release", Z: 1, Triggers: []string{"publish the release notes", "tag a release", "bump the version"}, Description: "Create a version tag and publish release notes"},
		{Name: "run-tests", Z: 2, Triggers: []string{"run the tests"}, Description: "Run the Go tests of a package"},
	}, nil)
	got, err := r.Explain(context.Background(), "tag v1.5.0", nil)
	if err != nil || len(got) == 0 || got[0].Name != "cut-release" || Sure(got[0].Tier) {
		t.Fatalf("Explain = %+v, %v; want cut-release as a guess", got, err)
	}
	want := []TriggerGap{{Trigger: "tag a release", Missing: []string{"release"}}}
	if !slices.EqualFunc(got[0].Gaps, want, func(a, b TriggerGap) bool { return a.Trigger == b.Trigger && slices.Equal(a.Missing, b.Missing) }) {
		t.Errorf("gaps %+v, want %+v", got[0].Gaps, want)
	}
	sure, err := r.Explain(context.Background(), "tag a release", nil)
	if err != nil || len(sure) == 0 || !Sure(sure[0].Tier) || len(sure[0].Gaps) != 0 {
		t.Errorf("a sure match: %+v, %v; want no gaps", sure, err)
	}
}

// TestTriggerGapsOrder: the fewest missing words first, at most maxGaps,
// and only triggers that share a word with the request.
func TestTriggerGapsOrder(t *testing.T) {
	got := triggerGaps([]string{"deploy the web app now", "deploy app", "roll back", "deploy web", "deploy the app", "deploy to staging"}, []string{"deploy"})
	var names []string
	for _, g := range got {
		names = append(names, g.Trigger)
	}
	if want := []string{"deploy app", "deploy web", "deploy the app"}; !slices.Equal(names, want) {
		t.Errorf("gaps %v, want %v", names, want)
	}
}
