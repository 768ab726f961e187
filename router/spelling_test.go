package router

import (
	"slices"
	"strings"
	"testing"
)

// slipSkills is a small agent for the typing-slip tests.
var slipSkills = []Skill{
	{Name: "attest", Z: 1, Triggers: []string{"attest", "provenance", "sign the artifact"}},
	{Name: "read-issue", Z: 2, Triggers: []string{"issue", "details"}},
	{Name: "build-image", Z: 3, Triggers: []string{"build", "docker image"}},
	{Name: "plans", Z: 4, Triggers: []string{"plans", "roadmap"}},
	{Name: "latex", Z: 5, Triggers: []string{"latex"}},
	{Name: "deploy", Z: 6, Triggers: []string{"deploy", "deployment"}},
	{Name: "code-search", Z: 7, Triggers: []string{"code", "mute"}},
	// "tests" and "texts" are both one letter from "tezts".
	{Name: "run-tests", Z: 8, Triggers: []string{"tests"}},
	{Name: "translate-texts", Z: 9, Triggers: []string{"texts"}},
}

// TestRankedTypingSlips: a request that hits nothing as typed is routed
// as the agent words its slips stand for; English words, jargon and
// ambiguous slips are left alone, and spec mode never corrects.
func TestRankedTypingSlips(t *testing.T) {
	r := newTest(t, slipSkills, nil)
	for _, tt := range []struct {
		text, first string // first "": no phrase match, as no correction is made
		hits        []string
	}{
		{"atest the release binary", "attest", []string{"attest"}},            // a letter missing
		{"show the discussion on isue 1203", "read-issue", []string{"issue"}}, // a letter missing, 4 letters
		{"bulid it again", "build-image", []string{"build"}},                  // neighbours swapped
		{"the depolyment is stuck", "deploy", []string{"deployment"}},         // neighbours swapped
		{"attesst this", "attest", []string{"attest"}},                        // a letter doubled
		{"deplpy cart", "deploy", []string{"deploy"}},                         // a wrong letter inside
		// Words of the English list are never slips ("plants" is not
		// "plans", "later" is not "latex").
		{"water the plants later", "", nil},
		// Jargon one letter off an agent word: a letter added or the last
		// changed, the first letter changed, a four-letter substitution.
		{"open it in xcode", "", nil},
		{"take the mutex first", "", nil},
		{"upsert the rows", "", nil},
		{"convert the docx", "", nil},
		// Two agent words one slip away: no guess.
		{"tezts", "", nil},
	} {
		got := route(t, r, tt.text, &Query{Mode: Ranked})
		if tt.first == "" {
			if len(got) > 0 && got[0].Tier != TierRelaxed {
				t.Errorf("%q: got %+v, want no correction", tt.text, got)
			}
		} else if len(got) == 0 || got[0].Name != tt.first || got[0].Score == 0 || !slices.Equal(got[0].Hits, tt.hits) {
			// By its phrases: a phrase hit, sure or (one everyday
			// word in a longer request, demoteLoneEveryday) a guess.
			t.Errorf("%q: got %+v, want %s first by phrases %v", tt.text, got, tt.first, tt.hits)
		}
		if spec := route(t, r, tt.text, &Query{Mode: Spec}); len(spec) != 0 {
			t.Errorf("%q: spec mode matched %+v; it must not correct", tt.text, spec)
		}
	}
}

// TestSlipsOnlyWithoutHits: a request that hits a phrase as typed is
// routed as typed, its slips unread.
func TestSlipsOnlyWithoutHits(t *testing.T) {
	r := newTest(t, slipSkills, nil)
	got := route(t, r, "atest the docker image", &Query{Mode: Ranked})
	if len(got) != 1 || got[0].Name != "build-image" {
		t.Errorf("got %+v, want build-image alone (its phrase hit as typed)", got)
	}
}

// TestCorrectIdempotent: with the agent's speller (its trigger and name
// words, the router's stems), correcting corrected words changes nothing,
// so routing again after a correction cannot loop.
func TestCorrectIdempotent(t *testing.T) {
	r := newTest(t, slipSkills, nil)
	sp := r.spellerOf()
	toks := appendTokens(nil, "atest bulid isue depolyment tezts xcode")
	fixed, ok := sp.Correct(toks)
	if !ok {
		t.Fatal("nothing corrected")
	}
	if want := "attest build issue deployment tezts xcode"; strings.Join(fixed, " ") != want {
		t.Errorf("corrected to %q, want %q", strings.Join(fixed, " "), want)
	}
	if again, ok := sp.Correct(fixed); ok {
		t.Errorf("corrected twice: %q", strings.Join(again, " "))
	}
}

// TestSlipFormsOfOneWord: a slip one edit from two forms of one agent
// word ("tets": "test" and "tests") is read as that word, not left alone
// as ambiguous.
func TestSlipFormsOfOneWord(t *testing.T) {
	r := newTest(t, []Skill{
		{Name: "run-tests", Z: 1, Triggers: []string{"test", "tests failing"}},
		{Name: "deploy", Z: 2, Triggers: []string{"deploy"}},
	}, nil)
	got := route(t, r, "the tets are failing", nil)
	if len(got) == 0 || got[0].Name != "run-tests" || got[0].Tier != TierPhrase {
		t.Errorf("got %+v, want run-tests by a phrase", got)
	}
}

// TestSlipsReadOnce: a request is corrected once, among its first
// slips.MaxSlips unknown words; the corrected request is not corrected again
// (which tried the next slips.MaxSlips words, one full route a pass).
func TestSlipsReadOnce(t *testing.T) {
	r := newTest(t, []Skill{
		{Name: "attest", Z: 1, Triggers: []string{"attest the artifact"}},
		{Name: "deploy", Z: 2, Triggers: []string{"deployment"}},
	}, nil)
	// "atest" is corrected; the seven made-up words use up the tries, so
	// "depolyment", the ninth unknown word, is left as typed.
	text := "atest qzvx wqpk zzkv xqjw vkqz jqxw kqzv depolyment"
	if got := route(t, r, text, nil); len(got) > 0 && got[0].Name == "deploy" && got[0].Tier == TierPhrase {
		t.Errorf("got %+v: the corrected request was corrected again", got)
	}
}
