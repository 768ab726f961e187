package router

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"

	"github.com/agent3md/agent3md/internal/synth"
)

// relevanceAgent is one agent the term statistics are checked on, with
// requests for it.
type relevanceAgent struct {
	name   string
	skills []Skill
	texts  []string
}

// relevanceAgents are the example agents with their labelled requests, and
// generated agents with requests drawn from their own words.
func relevanceAgents(t *testing.T) []relevanceAgent {
	t.Helper()
	var out []relevanceAgent
	byAgent := map[string][]string{}
	for _, set := range []string{"routing.json", "routing-holdout.json", "routing-fresh.json"} {
		for _, c := range readSet(t, set) {
			byAgent[c.agentPath()] = append(byAgent[c.agentPath()], c.Text)
		}
	}
	files, _ := filepath.Glob(filepath.Join(examplesDir, "*.3md"))
	if len(files) == 0 {
		t.Fatal("no example agents")
	}
	for _, f := range files {
		skills := loadAgentSkills(t, f)
		name := strings.TrimSuffix(filepath.Base(f), ".3md")
		texts := append([]string(nil), byAgent[f]...)
		delete(byAgent, f)
		texts = append(texts, wordRequests(skills, 40, 1)...)
		out = append(out, relevanceAgent{name, skills, texts})
	}
	for a := range byAgent {
		t.Fatalf("labelled requests name %s, which is not an example agent", a)
	}
	gen := genSkills(600)
	out = append(out, relevanceAgent{"gen-600", gen, wordRequests(gen, 150, 2)})
	if !testing.Short() {
		s := loadAgentSkills(t, synth.Path(t, 1000))
		out = append(out, relevanceAgent{"synth-1000", s, wordRequests(s, 150, 3)})
	}
	return out
}

// wordRequests makes n requests of one to eight words taken from the
// skills' own text, with stop words, repeats, case changes and words no
// skill has mixed in.
func wordRequests(skills []Skill, n int, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, 7))
	var words []string
	for _, s := range skills {
		words = append(words, strings.Fields(s.Name+" "+strings.Join(s.Triggers, " ")+" "+s.Description+" "+s.Tool)...)
	}
	extra := []string{"the", "a", "please", "zebra", "quux", "Deploying", "RUNS", "x", "it's"}
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		k := 1 + rng.IntN(8)
		var b []string
		for j := 0; j < k; j++ {
			if rng.IntN(5) == 0 {
				b = append(b, extra[rng.IntN(len(extra))])
			} else {
				b = append(b, words[rng.IntN(len(words))])
			}
			if rng.IntN(10) == 0 {
				b = append(b, b[rng.IntN(len(b))]) // a repeated word
			}
		}
		out = append(out, strings.Join(b, " "))
	}
	return out
}

// TestStatsFromBleve: the statistics a cold router gathers with the
// index field's analyzer before bleve has built (buildTermStats) are the
// ones read out of bleve's index once it has (statsFromIndex), whichever
// way the index was built, so a background build's routes answer alike.
func TestStatsFromBleve(t *testing.T) {
	ctx := context.Background()
	for _, ag := range relevanceAgents(t) {
		for _, opts := range []*Options{{NoCache: true}, {CacheDir: t.TempDir(), ContentHash: "5eed", MemoryThreshold: -1}} {
			r := newTest(t, ag.skills, opts)
			name := ag.name + "/" + r.Info().Index
			ts, err := buildTermStats(ctx, r.corpus())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(tableByTerm(ts), tableByTerm(r.scorer)) {
				t.Fatalf("%s: the analyzer's postings differ from bleve's", name)
			}
			if ts.avgLength != r.scorer.avgLength || !slices.Equal(ts.lengthNorm, r.scorer.lengthNorm) {
				t.Fatalf("%s: average length %v, bleve's %v; or the length norms differ", name, ts.avgLength, r.scorer.avgLength)
			}
		}
	}
}

// TestRelevanceLikeBleveSearch: relevance is the score a bleve search of
// the request's disjunction gives each skill, and the same for a tied
// skill (relevanceOf) as for a search hit.
func TestRelevanceLikeBleveSearch(t *testing.T) {
	ctx := context.Background()
	checked := 0
	for _, ag := range relevanceAgents(t) {
		r := newTest(t, ag.skills, &Options{NoCache: true})
		n := len(ag.skills)
		for _, text := range ag.texts {
			a := analyze(r.an, text, true)
			q := relevanceQuery(a)
			if q == nil {
				continue
			}
			hits, err := search(ctx, r.idx, q, n)
			if err != nil {
				t.Fatal(err)
			}
			want := map[int]float64{}
			for _, h := range hits {
				want[h.skill] = h.score
			}
			got := r.scorer.search(a.text, nil, n)
			if len(got) != len(want) {
				t.Fatalf("%s %q: %d skills found, bleve %d", ag.name, text, len(got), len(want))
			}
			cands := make([]candidate, n)
			which := make([]int, n)
			for i := range cands {
				cands[i].skill, which[i] = i, i
			}
			r.scorer.relevanceOf(a.text, cands, which)
			for _, h := range got {
				// Past bleve's slice disjunction (10 terms) its heap sums
				// in another order: equal to the rounding step.
				if w := want[h.skill]; w != h.score && (len(a.text) <= searcher.DisjunctionHeapTakeover || math.Abs(w-h.score) > 2e-9) {
					t.Fatalf("%s %q, skill %d: relevance %v, bleve search %v", ag.name, text, h.skill, h.score, w)
				}
				if cands[h.skill].rel != h.score {
					t.Fatalf("%s %q, skill %d: relevanceOf %v, search %v", ag.name, text, h.skill, cands[h.skill].rel, h.score)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Error("no relevance checked")
	}
}

// relevanceQuery is the request as one disjunction of term queries over
// the index field, as a bleve search would be asked; nil when the
// request has no indexable terms.
func relevanceQuery(a analyzed) query.Query {
	if len(a.text) == 0 {
		return nil
	}
	qs := make([]query.Query, len(a.text))
	for i, t := range a.text {
		q := query.NewTermQuery(t.term)
		q.SetField(indexField)
		qs[i] = q
	}
	return query.NewDisjunctionQuery(qs)
}

// search runs q on bleve and returns up to size hits by relevance.
func search(ctx context.Context, idx bleve.Index, q query.Query, size int) ([]scored, error) {
	res, err := idx.SearchInContext(ctx, bleve.NewSearchRequestOptions(q, size, 0, false))
	if err != nil {
		return nil, err
	}
	out := make([]scored, 0, len(res.Hits))
	for _, h := range res.Hits {
		i, err := strconv.Atoi(h.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, scored{i, roundRelevance(h.Score)})
	}
	return out, nil
}

// tableByTerm is a table's postings keyed by term, independent of how
// terms were numbered.
func tableByTerm(ts *termStats) map[string][]posting {
	out := make(map[string][]posting, len(ts.ids))
	for term := range ts.ids {
		out[term], _ = ts.term(term)
	}
	return out
}

// TestTermStatsMemory: the statistics a server keeps for its router's
// life stay small next to the skills (docs/architecture.md §5 counts on
// ~130 bytes a skill); 400 would mean something now holds text per skill.
func TestTermStatsMemory(t *testing.T) {
	skills := genSkills(2000)
	m, err := newMapping()
	if err != nil {
		t.Fatal(err)
	}
	ts, err := buildTermStats(context.Background(), &corpus{m: m, skills: Skills(skills)})
	if err != nil {
		t.Fatal(err)
	}
	per := float64(ts.size()) / float64(len(skills))
	t.Logf("term statistics: %d bytes, %.0f a skill", ts.size(), per)
	if per > 400 {
		t.Errorf("term statistics hold %.0f bytes a skill, over 400", per)
	}
}

// size is the statistics' approximate memory in bytes.
func (ts *termStats) size() int {
	n := 8*len(ts.post) + 4*len(ts.start) + 8*len(ts.lengthNorm) + 8*len(ts.idf)
	for t := range ts.ids {
		n += len(t) + 16 + 8 // string header, value, bucket share
	}
	return n
}
