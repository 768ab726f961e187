package router

import "testing"

// TestSpecificFirst: a skill that hits more trigger phrases with common
// words does not go ahead of one whose single phrase covers the
// request's more informative words; with equal counts, evidence still
// orders them.
func TestSpecificFirst(t *testing.T) {
	r := newTest(t, []Skill{
		{Name: "run-tests", Z: 1, Triggers: []string{"run the tests", "run tests"}, Description: "Run the test suite"},
		{Name: "flaky-test", Z: 2, Triggers: []string{"flaky test"}, Description: "Find why a test fails only sometimes"},
		{Name: "deploy", Z: 3, Triggers: []string{"run the deploy"}, Description: "Deploy the service"},
	}, nil)
	for _, tc := range []struct{ text, want string }{
		{"the flaky test fails when I run the tests", "flaky-test"},
		{"run the tests", "run-tests"},
	} {
		got := route(t, r, tc.text, &Query{Mode: Ranked, Limit: DefaultLimit})
		if len(got) == 0 || got[0].Name != tc.want || got[0].Tier != TierPhrase {
			t.Errorf("Route(%q) = %s, want %s first, sure", tc.text, brief(got), tc.want)
		}
	}
}
