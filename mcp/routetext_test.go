package mcp

import (
	"testing"

	"github.com/agent3md/agent3md/router"
)

// TestRouteText: route_skill's text is one reference line per match, a
// name or relaxed match saying its tier after the reference's fields, so
// a model reading the text alone sees which answers to confirm.
func TestRouteText(t *testing.T) {
	for _, tt := range []struct {
		name    string
		matches []router.Match
		want    string
	}{
		{"none", nil, "no skill matched"},
		{"phrase, as the reference writes it", []router.Match{{Name: "deploy", Score: 2, Hits: []string{"ship it", "deploy"}, Tier: router.TierPhrase}},
			"deploy  (score 2; matched: ship it, deploy)"},
		{"a sure match, then a runner-up", []router.Match{
			{Name: "incident-summary", Score: 1, Hits: []string{"what happened"}, Tier: router.TierPhrase},
			{Name: "check-pipeline", Hits: []string{"dag", "failed"}, Tier: router.TierRelaxed, Fit: 0.426},
			{Name: "tail-logs", Hits: []string{"failed"}, Tier: router.TierRunnerUp, Fit: 0.1},
		}, "incident-summary  (score 1; matched: what happened)\ncheck-pipeline  (score 0; matched: dag, failed; relaxed, fit 43%)\ntail-logs  (score 0; matched: failed; runner-up, fit 10%)"},
		{"named", []router.Match{{Name: "run-tests", Hits: []string{"tests"}, Tier: router.TierName}},
			"run-tests  (score 0; matched: tests; name)"},
		{"described", []router.Match{{Name: "semgrep-rule-creator", Hits: []string{"semgrep rule"}, Tier: router.TierDescribed, Fit: 1}},
			"semgrep-rule-creator  (score 0; matched: semgrep rule; described)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := routeText(tt.matches); got != tt.want {
				t.Errorf("routeText = %q, want %q", got, tt.want)
			}
		})
	}
}
