package router

import (
	"maps"
	"slices"
	"testing"
)

// TestFieldTerms: a skill's field terms are the set its field's analyzer
// gives, whether kept (a small agent, asked twice) or read again (past
// fieldTermsMax).
func TestFieldTerms(t *testing.T) {
	skills := append(genSkills(30), Skill{Name: "CrashLoop-fixer", Triggers: []string{"pods crash-looping", "the the"},
		Description: "Fixes CrashLoopBackOff in naïve clusters; it's summarised.", Tool: "kubectl rollout restart {x}", Inputs: []string{"pod", "ns"}},
		Skill{Name: "bare"})
	r := newTest(t, skills, &Options{NoCache: true})
	for i := range skills {
		s := &skills[i]
		first, again := r.fieldTerms(i, s), r.fieldTerms(i, s)
		if len(first) != len(fields) || len(again) != len(fields) {
			t.Fatalf("skill %d: %d and %d fields, want %d", i, len(first), len(again), len(fields))
		}
		for k, f := range fields {
			want := map[string]bool{}
			if v := fieldValue(s, f.name); v != "" {
				for _, tok := range r.an.text.Analyze([]byte(v)) {
					want[string(tok.Term)] = true
				}
			}
			if w := slices.Sorted(maps.Keys(want)); !slices.Equal(first[k], w) || !slices.Equal(again[k], w) || !slices.Equal(r.analyzeFields(s)[k], w) {
				t.Errorf("skill %d field %s: terms %q, again %q, want %q", i, f.name, first[k], again[k], w)
			}
		}
		if &first[0] != &again[0] {
			t.Errorf("skill %d: field terms read twice, not kept", i)
		}
	}
}
