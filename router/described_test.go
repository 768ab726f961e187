package router

import "testing"

// TestDescribedSure: on skills without triggers, a request that says a
// pair of words of one skill's name or description, no other skill's,
// gets that skill as a sure match when the relaxed tier ranks it first;
// a pair two skills share, or one of two everyday words, is no evidence.
func TestDescribedSure(t *testing.T) {
	skills := []Skill{
		{Name: "semgrep", Z: 1, Description: "Run Semgrep scans over a codebase and triage the findings"},
		{Name: "semgrep-rule-creator", Z: 2, Description: "Write custom Semgrep rules with tests for a vulnerability pattern"},
		{Name: "pdf-creator", Z: 3, Description: "Create PDF documents from Markdown with custom styles"},
		{Name: "meeting-notes", Z: 4, Description: "Keep notes of a meeting and make sure actions are tracked"},
	}
	r := newTest(t, skills, nil)
	for _, tt := range []struct {
		text, want, tier string
	}{
		{"write a semgrep rule for this sql injection pattern", "semgrep-rule-creator", TierName},
		{"triage the findings of last night's scan", "semgrep", TierDescribed},
		{"write custom semgrep rules for the pattern", "semgrep-rule-creator", TierName},
		{"make sure the build is green", "", ""}, // "make sure": everyday words
	} {
		got := route(t, r, tt.text, nil)
		switch {
		case tt.want == "" && len(got) > 0 && Sure(got[0].Tier):
			t.Errorf("%q: %s, want no sure match", tt.text, brief(got))
		case tt.want != "" && (len(got) == 0 || got[0].Name != tt.want || got[0].Tier != tt.tier):
			t.Errorf("%q: %s, want %s (%s) first", tt.text, brief(got), tt.want, tt.tier)
		}
	}
	b := newPairBook(Skills(skills))
	if s, _, _ := b.described(appendTokens(nil, "custom styles and semgrep scans"), nil); s != -1 {
		t.Errorf("one pair of each of two skills: skill %d, want a tie (-1)", s)
	}
}
