package router

import (
	"slices"
	"testing"
)

// TestInformativeOf: a skill's trigger phrases, read once, as the stems
// partialPhrase needs: stop words and common words left out, a phrase
// with none left (or a word the agent does not know) dropped, the same
// from the cache as read afresh.
func TestInformativeOf(t *testing.T) {
	skills := []Skill{
		{Name: "restart-deployment", Z: 1, Triggers: []string{"bounce the service", "restart the service"}},
		{Name: "rotate-keys", Z: 2, Triggers: []string{"renew certificate expiry"}},
		{Name: "tail-logs", Z: 3, Triggers: []string{"tail logs"}},
		// More skills, so that a word one skill uses is not common
		// (commonShare).
		{Name: "scale-deployment", Z: 4, Triggers: []string{"add replicas"}},
		{Name: "open-incident", Z: 5, Triggers: []string{"declare an incident"}},
	}
	r := newTest(t, skills, nil)
	sp := r.specificsOf()
	stems := func(ps []informative) [][]string {
		var out [][]string
		for _, p := range ps {
			var words []string
			for _, id := range p.ids {
				for _, w := range []string{"bounce", "renew", "certificate", "expiry", "tail", "logs"} {
					if got, ok := sp.id(routeStem(w)); ok && got == id {
						words = append(words, w)
					}
				}
			}
			out = append(out, words)
		}
		return out
	}
	for skill, want := range [][][]string{
		{{"bounce"}}, // "restart the service": no informative word
		{{"renew", "certificate", "expiry"}},
		{{"tail"}}, // "logs" is common English
	} {
		got := r.informativeOf(sp, skill)
		if !slices.EqualFunc(stems(got), want, slices.Equal) {
			t.Errorf("%s: %v, want %v", skills[skill].Name, stems(got), want)
		}
		if again := r.informativeOf(sp, skill); len(again) != len(got) || len(got) > 0 && &again[0] != &got[0] {
			t.Errorf("%s: read again, not kept", skills[skill].Name)
		}
		if fresh := readInformative(sp, r.src, skill); !slices.EqualFunc(stems(fresh), want, slices.Equal) {
			t.Errorf("%s: read afresh %v, want %v", skills[skill].Name, stems(fresh), want)
		}
	}
}
