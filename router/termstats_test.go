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
	bsearch "github.com/blevesearch/bleve/v2/search"
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

// TestTermStatsRelevance checks that the relevance the term statistics
// give is the float64 bleve's term searchers give (relevanceOf over the
// built index), exactly, for every skill and request, whichever way the
// index was built; that each term's score of each skill is bleve's own
// bit for bit; and that both agree with a real bleve search.
func TestTermStatsRelevance(t *testing.T) {
	ctx := context.Background()
	for _, ag := range relevanceAgents(t) {
		for _, opts := range []*Options{{NoCache: true}, {CacheDir: t.TempDir(), ContentHash: "5eed", MemoryThreshold: -1}} {
			r := newTest(t, ag.skills, opts)
			name := ag.name + "/" + r.Info().Index
			ts, err := buildTermStats(ctx, r.corpus())
			if err != nil {
				t.Fatal(err)
			}
			checked, nonzero := 0, 0
			for _, text := range ag.texts {
				a := analyze(r.an, text, false)
				var viaBleve, viaTable []candidate
				var which []int
				for i := range ag.skills {
					viaBleve = append(viaBleve, candidate{skill: i, rel: -1})
					viaTable = append(viaTable, candidate{skill: i, rel: -1})
					which = append(which, i)
				}
				if err := r.scorer.relevanceOf(ctx, a.text, viaBleve, which, &orderScratch{}); err != nil {
					t.Fatal(err)
				}
				ts.relevanceOf(a.text, viaTable, which)
				for i := range viaBleve {
					checked++
					b, tb := viaBleve[i].rel, viaTable[i].rel
					if math.Float64bits(b) != math.Float64bits(tb) && len(a.text) > 0 {
						t.Fatalf("%s %q, skill %d: table relevance %v (%x), bleve %v (%x)", name, text, i, tb, math.Float64bits(tb), b, math.Float64bits(b))
					}
					if b > 0 {
						nonzero++
					}
				}
				checkTermScores(t, name, r, ts, a.text)
				checkAgainstSearch(t, name, r, text, a, viaTable)
			}
			if nonzero == 0 || nonzero == checked {
				t.Errorf("%s: %d of %d relevances nonzero; the requests do not exercise the table", name, nonzero, checked)
			}
		}
	}
}

// checkTermScores compares, for each request term, the score of every
// skill holding it as the table computes it and as bleve's term searcher
// (normalised over the whole request) does.
func checkTermScores(t *testing.T, name string, r *Router, ts *termStats, terms []term) {
	t.Helper()
	ctx := bm25Context(context.Background())
	var weights float64
	for _, tm := range terms {
		post, _ := ts.postings(tm.term)
		w := ts.idf(len(post))
		weights += w * w
	}
	qnorm := 1 / math.Sqrt(weights)
	for _, tm := range terms {
		post, ok := ts.postings(tm.term)
		if !ok {
			if _, inIndex := r.scorer.vocab[tm.term]; inIndex {
				t.Fatalf("%s: term %q is in the index but not in the table", name, tm.term)
			}
			continue
		}
		s, err := searcher.NewTermSearcher(ctx, r.scorer.snapshot, tm.term, indexField, 1.0, bsearch.SearcherOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Count() != uint64(len(post)) {
			t.Fatalf("%s: term %q: bleve holds it in %d skills, the table in %d", name, tm.term, s.Count(), len(post))
		}
		if math.Float64bits(s.Weight()) != math.Float64bits(ts.idf(len(post))*ts.idf(len(post))) {
			t.Fatalf("%s: term %q: bleve weight %v, table %v", name, tm.term, s.Weight(), ts.idf(len(post))*ts.idf(len(post)))
		}
		s.SetQueryNorm(qnorm)
		qw := 1.0 * ts.idf(len(post)) * qnorm
		sctx := &bsearch.SearchContext{DocumentMatchPool: bsearch.NewDocumentMatchPool(2, 0)}
		for {
			m, err := s.Next(sctx)
			if err != nil {
				t.Fatal(err)
			}
			if m == nil {
				break
			}
			skill := -1
			for i := 0; i < r.scorer.ids.len(); i++ {
				if r.scorer.ids.id(i).Equals(m.IndexInternalID) {
					skill = i
					break
				}
			}
			p, ok := find(post, uint32(skill))
			if !ok {
				t.Fatalf("%s: term %q: bleve finds it in skill %d, the table does not", name, tm.term, skill)
			}
			got := ts.docScore(ts.idf(len(post)), p)
			if qw != 1.0 {
				got *= qw
			}
			if math.Float64bits(got) != math.Float64bits(m.Score) {
				t.Fatalf("%s: term %q, skill %d: table score %v, bleve %v", name, tm.term, skill, got, m.Score)
			}
			sctx.DocumentMatchPool.Put(m)
		}
		s.Close()
	}
}

// checkAgainstSearch compares the table's relevance with a bleve search of
// the request's disjunction. A search sums the terms' scores in the order
// its heap yields them, so it may differ in the last bits before
// rounding: the tolerance is the rounding step.
func checkAgainstSearch(t *testing.T, name string, r *Router, text string, a analyzed, cands []candidate) {
	t.Helper()
	q := relevanceQuery(a)
	if q == nil {
		return
	}
	hits, err := search(context.Background(), r.idx, q, len(cands))
	if err != nil {
		t.Fatal(err)
	}
	full := make(map[int]float64, len(hits))
	for _, h := range hits {
		full[h.skill] = h.score
	}
	for _, c := range cands {
		if math.Abs(c.rel-full[c.skill]) > 2e-9 {
			t.Fatalf("%s %q, skill %d: table relevance %v, bleve search %v", name, text, c.skill, c.rel, full[c.skill])
		}
	}
}

// TestTermStatsWorkers checks that cutting the skills into chunks taken by
// several goroutines gives the table one goroutine builds in one go.
func TestTermStatsWorkers(t *testing.T) {
	m, err := newMapping()
	if err != nil {
		t.Fatal(err)
	}
	skills := Skills(genSkills(700))
	one, err := buildTermStatsOn(context.Background(), &corpus{m: m, skills: skills}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct{ workers, chunks int }{{1, 5}, {2, 2}, {2, 9}, {3, 7}, {7, 3}} {
		got, err := buildTermStatsOn(context.Background(), &corpus{m: m, skills: skills}, w.workers, w.chunks)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(tableByTerm(got), tableByTerm(one)) || !slices.Equal(got.length, one.length) || got.avgLength != one.avgLength {
			t.Errorf("%d goroutines over %d chunks build another table than one", w.workers, w.chunks)
		}
	}
}

// tableByTerm is a table's postings keyed by term, independent of how
// terms were numbered.
func tableByTerm(ts *termStats) map[string][]posting {
	out := make(map[string][]posting, len(ts.ids))
	for term := range ts.ids {
		out[term], _ = ts.postings(term)
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

// TestTableSearchLikeBleve checks that the term statistics find what a
// bleve search of the request's disjunction finds: the same skills with
// the same score, bit for bit before rounding (searchScores), and so the
// same relaxed hits, in the same order, as searchTies for any size.
func TestTableSearchLikeBleve(t *testing.T) {
	ctx := context.Background()
	scored, refused := 0, 0
	for _, ag := range relevanceAgents(t) {
		r := newTest(t, ag.skills, &Options{NoCache: true})
		ts, err := buildTermStats(ctx, r.corpus())
		if err != nil {
			t.Fatal(err)
		}
		n := len(ag.skills)
		for _, text := range ag.texts {
			a := analyze(r.an, text, true)
			q := relevanceQuery(a)
			if q == nil {
				continue
			}
			res, err := r.idx.SearchInContext(ctx, bleve.NewSearchRequestOptions(q, n, 0, false))
			if err != nil {
				t.Fatal(err)
			}
			want := map[int]float64{}
			for _, h := range res.Hits {
				i, _ := strconv.Atoi(h.ID)
				want[i] = h.Score
			}
			got := map[int]float64{}
			if !ts.searchScores(a.text, func(skill int, score float64) { got[skill] = score }) {
				refused++
				if len(a.text) <= searcher.DisjunctionHeapTakeover {
					t.Fatalf("%s %q: %d terms refused", ag.name, text, len(a.text))
				}
				continue
			}
			scored++
			if len(got) != len(want) {
				t.Fatalf("%s %q: the table finds %d skills, bleve %d", ag.name, text, len(got), len(want))
			}
			for s, w := range want {
				if g, ok := got[s]; !ok || math.Float64bits(g) != math.Float64bits(w) {
					t.Fatalf("%s %q, skill %d: table score %v (%x), bleve %v (%x)", ag.name, text, s, g, math.Float64bits(g), w, math.Float64bits(w))
				}
			}
			for _, size := range []int{1, 3, 10, 40} {
				bl, err := searchTies(ctx, r.idx, q, size, n)
				if err != nil {
					t.Fatal(err)
				}
				tb, _ := ts.search(a.text, size)
				if !reflect.DeepEqual(tb, bl) && len(tb)+len(bl) > 0 {
					t.Fatalf("%s %q, size %d: table\n%v\nbleve\n%v", ag.name, text, size, tb, bl)
				}
			}
		}
	}
	if scored == 0 || refused == 0 {
		t.Errorf("%d requests scored, %d refused: both must be exercised", scored, refused)
	}
}
