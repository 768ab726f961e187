package router

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// refWord is the reference tokeniser, written independently of
// appendTokens: docs/format.md §10's "maximal runs of Unicode letters and digits".
var refWord = regexp.MustCompile(`[\p{L}\p{Nd}]+`)

// refRoute is a brute-force agent3md/1 route: every phrase of every skill
// against the request's token set.
func refRoute(skills []Skill, text string) []Match {
	set := map[string]bool{}
	for _, t := range refWord.FindAllString(text, -1) {
		set[strings.Map(unicode.ToLower, t)] = true
	}
	type scoredSkill struct {
		i int
		m Match
	}
	var got []scoredSkill
	for i, s := range skills {
		var hits []string
		for _, p := range s.Triggers {
			toks := refWord.FindAllString(p, -1)
			all := len(toks) > 0
			for _, t := range toks {
				all = all && set[strings.Map(unicode.ToLower, t)]
			}
			if all {
				hits = append(hits, p)
			}
		}
		if len(hits) > 0 {
			got = append(got, scoredSkill{i, Match{Name: s.Name, Z: s.Z, Score: len(hits), Hits: hits, Tier: TierPhrase}})
		}
	}
	slices.SortFunc(got, func(a, b scoredSkill) int {
		return cmp.Or(cmp.Compare(b.m.Score, a.m.Score), cmp.Compare(a.m.Z, b.m.Z),
			cmp.Compare(a.m.Name, b.m.Name), cmp.Compare(a.i, b.i))
	})
	out := []Match{}
	for _, g := range got {
		out = append(out, g.m)
	}
	return out
}

func newTest(t testing.TB, skills []Skill, opts *Options) *Router {
	t.Helper()
	r, err := New(context.Background(), skills, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func route(t testing.TB, r *Router, text string, q *Query) []Match {
	t.Helper()
	got, err := r.Route(context.Background(), text, q)
	if err != nil {
		t.Fatalf("Route(%q): %v", text, err)
	}
	return got
}

// found is route without the plain ranking's runners-up: the matches
// the router found evidence for, which the relaxed tier's rules decide.
func found(t testing.TB, r *Router, text string, q *Query) []Match {
	t.Helper()
	return slices.DeleteFunc(route(t, r, text, q), func(m Match) bool { return m.Tier == TierRunnerUp })
}

var specSkills = []Skill{
	{Name: "search-code", Z: 1, Triggers: []string{"search the code", "find where", "grep", "who calls"}},
	{Name: "run-tests", Z: 2, Triggers: []string{"run tests", "test", "go test"}},
	{Name: "commit", Z: 3, Triggers: []string{"commit", "commits", "git commit"}},
	{Name: "later-grep", Z: 0.5, Triggers: []string{"grep"}},
	{Name: "unicode", Z: 4, Triggers: []string{"Ärger melden", "ǅemal", "١٢٣ count", "İstanbul"}},
	{Name: "symbols", Z: 5, Triggers: []string{"!!!", "", "C++ build"}},
}

func TestSpecRoute(t *testing.T) {
	r := newTest(t, specSkills, nil)
	tests := []struct {
		name, text string
		want       []string // names in order
		hits       [][]string
	}{
		{"no hit", "hello there", nil, nil},
		{"empty", "", nil, nil},
		{"one phrase", "please GREP this", []string{"later-grep", "search-code"}, [][]string{{"grep"}, {"grep"}}},
		{"score beats z", "grep and find where, who calls it?", []string{"search-code", "later-grep"},
			[][]string{{"find where", "grep", "who calls"}, {"grep"}}},
		{"order free", "code the search", []string{"search-code"}, [][]string{{"search the code"}}},
		{"no stemming", "commits", []string{"commit"}, [][]string{{"commits"}}},
		{"unicode letters", "ärger!MELDEN", []string{"unicode"}, [][]string{{"Ärger melden"}}},
		{"titlecase digraph", "ǆemal", []string{"unicode"}, [][]string{{"ǅemal"}}},
		{"arabic digits", "count ١٢٣", []string{"unicode"}, [][]string{{"١٢٣ count"}}},
		{"no-token phrase never hits", "!!!", nil, nil},
		{"plus is a separator", "build c", []string{"symbols"}, [][]string{{"C++ build"}}},
		{"underscore separates", "run_tests", []string{"run-tests"}, [][]string{{"run tests"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := route(t, r, tt.text, &Query{Mode: Spec})
			if want := refRoute(specSkills, tt.text); !reflect.DeepEqual(got, want) {
				t.Errorf("route disagrees with reference:\n got %+v\nwant %+v", got, want)
			}
			var names []string
			var hits [][]string
			for _, m := range got {
				names = append(names, m.Name)
				hits = append(hits, m.Hits)
				if m.Relevance != 0 || m.Tier != TierPhrase {
					t.Errorf("%s: relevance %v tier %q, want 0 and phrase", m.Name, m.Relevance, m.Tier)
				}
			}
			if !reflect.DeepEqual(names, tt.want) || !reflect.DeepEqual(hits, tt.hits) {
				t.Errorf("got %v %v, want %v %v", names, hits, tt.want, tt.hits)
			}
			if got == nil {
				t.Error("no hit must be an empty slice, not nil")
			}
		})
	}
}

func TestSpecLimit(t *testing.T) {
	r := newTest(t, specSkills, nil)
	for limit, want := range map[int]int{0: 2, 1: 1, 2: 2, 5: 2} {
		got := route(t, r, "grep", &Query{Mode: Spec, Limit: limit})
		if len(got) != want {
			t.Errorf("limit %d: %d matches, want %d", limit, len(got), want)
		}
	}
	if _, err := r.Route(context.Background(), "grep", &Query{Limit: -1}); err == nil {
		t.Error("negative limit: no error")
	}
	if _, err := r.Route(context.Background(), "grep", &Query{Mode: "fuzzy"}); err == nil {
		t.Error("unknown mode: no error")
	}
}

// words mixes ASCII, case, non-Latin letters and digits, and characters
// that lowercase specially, for the random tests.
var words = []string{"grep", "Grep", "find", "where", "the", "code", "run", "tests", "test",
	"commit", "commits", "Ärger", "ärger", "İ", "i", "ǅ", "ǆ", "١٢", "x2", "ΣΑΣ", "σας", "日本",
	"a", "b", "c", "fin", "finding", "café", "CAFÉ"}
var seps = []string{" ", ", ", "-", "_", "!", "\t", "²", "\xff", "'", "."}

func randText(rng *rand.Rand, maxWords int) string {
	var b strings.Builder
	for i := rng.IntN(maxWords + 1); i > 0; i-- {
		b.WriteString(words[rng.IntN(len(words))])
		b.WriteString(seps[rng.IntN(len(seps))])
	}
	return b.String()
}

func randSkills(rng *rand.Rand) []Skill {
	skills := make([]Skill, 1+rng.IntN(25))
	for i := range skills {
		s := &skills[i]
		s.Name = fmt.Sprintf("skill-%d", i)
		s.Z = float64(rng.IntN(10)) // duplicates on purpose: the order must still be total
		for k := rng.IntN(5); k > 0; k-- {
			s.Triggers = append(s.Triggers, randText(rng, 3))
		}
		s.Description = randText(rng, 6)
	}
	return skills
}

// TestSpecMatchesReference is the property test: over random agents and
// requests, Spec agrees with the brute-force reference exactly.
func TestSpecMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	rounds := 120
	if testing.Short() {
		rounds = 50
	}
	for round := 0; round < rounds; round++ {
		skills := randSkills(rng)
		r := newTest(t, skills, nil)
		for k := 0; k < 20; k++ {
			text := randText(rng, 8)
			got := route(t, r, text, &Query{Mode: Spec})
			if want := refRoute(skills, text); !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d, request %q:\n got %+v\nwant %+v\nskills %+v", round, text, got, want, skills)
			}
			checkRankedKeepsSpec(t, r, text, got)
			checkLimitIsPrefix(t, r, text)
		}
		r.Close()
	}
}

// checkRankedKeepsSpec checks Ranked against Spec's answer: every Spec
// match is a Ranked match with at least its score, a phrase match or one
// a rule of order.go made a guess in place (a lone trigger word, a
// question about a subject), and Ranked lists exactly Spec's skills
// before any skill that only stemming found.
func checkRankedKeepsSpec(t *testing.T, r *Router, text string, spec []Match) {
	t.Helper()
	ranked := route(t, r, text, nil)
	if len(spec) == 0 {
		return
	}
	if len(ranked) < len(spec) {
		t.Fatalf("%q: ranked has %d matches, spec %d", text, len(ranked), len(spec))
	}
	want := map[string]int{}
	for _, m := range spec {
		want[m.Name] = m.Score
	}
	for _, m := range ranked[:len(spec)] {
		score, ok := want[m.Name]
		if !ok || m.Score < score || (m.Tier != TierPhrase && m.Tier != TierRelaxed) {
			t.Fatalf("%q: ranked %+v ahead of spec matches %+v", text, ranked, spec)
		}
	}
}

func FuzzRoute(f *testing.F) {
	f.Add("grep|find where,who calls|commit,commits", "please grep and commit")
	f.Add("Ärger melden|İstanbul", "ÄRGER melden in istanbul")
	f.Add("a b c,,|", "c b a a")
	f.Add("\xff\xfe|x²", "x 2 \xff")
	f.Add("deploy,release a build|logs,tail the logs|compose", "ship the printing service, roll out and write it up")
	f.Add("部署,发布|查看日志,日志|デプロイ,배포", "请部署结账服务然后查看日志 k8s部署 배포해줘")
	f.Fuzz(func(t *testing.T, agent, text string) {
		var skills []Skill
		for i, part := range strings.Split(agent, "|") {
			skills = append(skills, Skill{Name: fmt.Sprint("s", i), Z: float64(i % 3),
				Triggers: strings.Split(part, ","), Description: part})
		}
		r := newTest(t, skills, nil)
		got := route(t, r, text, &Query{Mode: Spec})
		if want := refRoute(skills, text); !reflect.DeepEqual(got, want) {
			t.Fatalf("spec %+v, reference %+v", got, want)
		}
		checkRankedKeepsSpec(t, r, text, got)
	})
}

// checkLimitIsPrefix checks that a limited route is the head of the full
// one, in both modes.
func checkLimitIsPrefix(t *testing.T, r *Router, text string) {
	t.Helper()
	for _, mode := range []Mode{Spec, Ranked} {
		all := route(t, r, text, &Query{Mode: mode})
		for limit := 1; limit <= 3; limit++ {
			got := route(t, r, text, &Query{Mode: mode, Limit: limit})
			want := all[:min(limit, len(all))]
			if len(all) > 0 && all[0].Tier == TierRelaxed {
				continue // relaxed matches examine a pool sized by the limit
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s %q limit %d:\n got %+v\nwant %+v", mode, text, limit, got, want)
			}
		}
	}
}

// TestWordsTokenizer checks the index's tokenizer against the route
// tokeniser: the same words, at the right offsets.
func TestWordsTokenizer(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 2000; i++ {
		text := randText(rng, 10)
		stream := wordsTokenizerImpl{}.Tokenize([]byte(text))
		want := refWord.FindAllStringIndex(text, -1)
		if len(stream) != len(want) {
			t.Fatalf("%q: %d tokens, want %d", text, len(stream), len(want))
		}
		for k, tok := range stream {
			if tok.Start != want[k][0] || tok.End != want[k][1] || string(tok.Term) != text[want[k][0]:want[k][1]] || tok.Position != k+1 {
				t.Fatalf("%q token %d: %+v, want %v", text, k, tok, want[k])
			}
		}
	}
}
