package router

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
)

// routeCase is one request with the query it is routed under.
type routeCase struct {
	text string
	q    Query
}

func (c routeCase) String() string { return fmt.Sprintf("%q %s/%d", c.text, c.q.Mode, c.q.Limit) }

// routeCases crosses texts with the queries a client sends.
func routeCases(texts []string) []routeCase {
	var out []routeCase
	for _, text := range texts {
		for _, q := range []Query{{}, {Limit: 1}, {Limit: 3}, {Mode: Spec}} {
			out = append(out, routeCase{text, q})
		}
	}
	return out
}

// needsBleve reports whether a warm answer came from the relaxed tier (a
// request that hit no phrase and named no skill searches bleve, whether
// or not it finds anything).
func needsBleve(c routeCase, warm []Match) bool {
	if c.q.Mode == Spec {
		return false
	}
	// A name or described match may come from the relaxed tier's first
	// (describedFirst), which the relaxed search found.
	return len(warm) == 0 || warm[0].Tier != TierPhrase || challenged(c.text, warm)
}

// challenged reports whether a warm phrase-tier answer may have had its
// leader challenged (rankedRoute): one phrase hit in a request of at
// least challengeRequest content words. The challenge searches bleve
// whether or not it wins. (A leader hit as written is not challenged;
// counting it too only moves a case to the ones routed after the build.)
func challenged(text string, warm []Match) bool {
	if warm[0].Tier != TierPhrase || warm[0].Score != 1 {
		return false
	}
	var words []string
	for _, tok := range appendTokens(nil, text) {
		if !stopWords[tok] && !slices.Contains(words, tok) {
			words = append(words, tok)
		}
	}
	return len(words) >= challengeRequest
}

// likeForeground reports whether got, answered by a Router whose index
// may still have been building, is want, the foreground's answer: the
// same, or with the same sure matches first: a route made while the
// index builds does not wait for the relaxed matches after them.
func likeForeground(got, want []Match) bool {
	if reflect.DeepEqual(got, want) {
		return true
	}
	// The sure matches, or the phrase hits a question about their
	// subject left relaxed (demoteAboutSubject): what needs no bleve.
	sure := func(ms []Match) []Match {
		n := 0
		for n < len(ms) && (Sure(ms[n].Tier) || ms[n].Score > 0) {
			n++
		}
		return ms[:n]
	}
	return len(sure(want)) > 0 && reflect.DeepEqual(sure(got), sure(want))
}

// TestBackgroundAnswersLikeForeground is the cold start's contract: a
// Router whose bleve index builds in the background answers every
// request exactly as one built in the foreground (names, order, scores,
// relevance to the last bit, hits, tiers). Phrase-tier requests are
// answered while the build is held back; relaxed ones wait for it.
//
// Relaxed matches of equal relevance come in skill order (search),
// whatever order a build numbered bleve's documents in, so relaxed
// answers are compared exactly too.
func TestBackgroundAnswersLikeForeground(t *testing.T) {
	for _, ag := range relevanceAgents(t) {
		t.Run(ag.name, func(t *testing.T) {
			cases := routeCases(ag.texts)
			fg := newTest(t, ag.skills, &Options{NoCache: true})
			want := make([][]Match, len(cases))
			for i, c := range cases {
				want[i] = route(t, fg, c.text, &c.q)
			}
			for _, cache := range []bool{false, true} {
				o := &Options{NoCache: true}
				if cache {
					o = &Options{CacheDir: t.TempDir(), ContentHash: "c01d", MemoryThreshold: -1}
				}
				warmOpts := *o
				o.Background, o.holdBuild = true, make(chan struct{})
				release := sync.OnceFunc(func() { close(o.holdBuild) })
				cold := newTest(t, ag.skills, o)
				t.Cleanup(release) // after a failure, before cold's Close (cleanups run last first)
				if got := cold.Info().Index; got != IndexBuilding {
					t.Fatalf("cold Info().Index = %q, want %q", got, IndexBuilding)
				}
				got := make([][]Match, len(cases))
				// Phrase tier, with the build held: answered without bleve.
				var later []int
				for i, c := range cases {
					if needsBleve(c, want[i]) {
						later = append(later, i)
						continue
					}
					got[i] = route(t, cold, c.text, &c.q)
					if !likeForeground(got[i], want[i]) {
						t.Fatalf("%v while building:\n got %+v\nwant %+v", c, got[i], want[i])
					}
				}
				if cold.Info().Index != IndexBuilding {
					t.Fatal("the build ran although held")
				}
				if len(later) == 0 || len(later) == len(cases) {
					t.Fatalf("%d of %d cases need the relaxed tier: both kinds must be exercised", len(later), len(cases))
				}
				// Relaxed tier: each waits for the build, released meanwhile.
				errs := make(chan error, len(later))
				for _, i := range later {
					go func() {
						var err error
						got[i], err = cold.Route(context.Background(), cases[i].text, &cases[i].q)
						errs <- err
					}()
				}
				release()
				for range later {
					if err := <-errs; err != nil {
						t.Fatal(err)
					}
				}
				info, err := cold.Wait(context.Background())
				if err != nil || info.Index != fg.Info().Index && !cache || cache && info.Index != IndexCacheBuilt {
					t.Fatalf("Wait = %+v, %v", info, err)
				}
				for _, i := range later {
					if !likeForeground(got[i], want[i]) {
						t.Fatalf("%v waiting for the build:\n got %+v\nwant %+v", cases[i], got[i], want[i])
					}
				}
				if cache {
					warm := newTest(t, ag.skills, &warmOpts)
					if warm.Info().Index != IndexCacheHit {
						t.Fatalf("warm: %+v, want a cache hit", warm.Info())
					}
					for i, c := range cases {
						if w := route(t, warm, c.text, &c.q); !reflect.DeepEqual(want[i], w) {
							t.Fatalf("%v: foreground answered\n %+v\nwarm start answers\n %+v", c, want[i], w)
						}
					}
				}
				// And after the build, everything again.
				for i, c := range cases {
					if again := route(t, cold, c.text, &c.q); !reflect.DeepEqual(again, want[i]) {
						t.Fatalf("%v after the build:\n got %+v\nwant %+v", c, again, want[i])
					}
				}
			}
		})
	}
}

// TestBackgroundCancel checks that cancelling the context New was given
// stops a background build: relaxed routes then fail with the reason,
// phrase routes still answer, and Close returns.
func TestBackgroundCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	hold := make(chan struct{})
	defer close(hold)
	r, err := New(ctx, rankedSkills, &Options{NoCache: true, Background: true, holdBuild: hold})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := r.Wait(context.Background()); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait after cancel: %v, want context.Canceled", err)
	}
	if got := route(t, r, "deploy", nil); len(got) == 0 || got[0].Tier != TierPhrase {
		t.Fatalf("phrase route after a failed build: %+v", got)
	}
	if _, err := r.Route(context.Background(), "expiring load balancers", nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("relaxed route after a failed build: %v, want context.Canceled", err)
	}
	if r.Info().Index != IndexNone || r.Info().Reason == "" {
		t.Errorf("Info after a failed build: %+v", r.Info())
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestBackgroundWaitingRouteCancelled checks that a relaxed route waiting
// for the build gives up with its own context.
func TestBackgroundWaitingRouteCancelled(t *testing.T) {
	hold := make(chan struct{})
	r := newTest(t, rankedSkills, &Options{NoCache: true, Background: true, holdBuild: hold})
	defer close(hold)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Route(ctx, "expiring load balancers", nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("relaxed route with a cancelled context: %v", err)
	}
	wctx, wcancel := context.WithCancel(context.Background())
	wcancel()
	if _, err := r.Wait(wctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait with a cancelled context: %v", err)
	}
}

// TestBackgroundOnlyWhenCold checks when New defers the build: not for an
// agent whose cache entry exists (it opens in milliseconds), nor without
// Background, nor for no skills.
func TestBackgroundOnlyWhenCold(t *testing.T) {
	skills := genSkills(40)
	dir := t.TempDir()
	opts := &Options{CacheDir: dir, ContentHash: "beef", MemoryThreshold: -1, Background: true}
	first := newTest(t, skills, opts)
	if first.Info().Index != IndexBuilding {
		t.Fatalf("cold: %+v, want a background build", first.Info())
	}
	if info, err := first.Wait(context.Background()); err != nil || info.Index != IndexCacheBuilt || info.Path == "" {
		t.Fatalf("cold, built: %+v, %v", info, err)
	}
	if again := newTest(t, skills, opts); again.Info().Index != IndexCacheHit {
		t.Errorf("warm: %+v, want a cache hit opened in the foreground", again.Info())
	}
	if fg := newTest(t, skills, &Options{NoCache: true}); fg.Info().Index != IndexMemory {
		t.Errorf("without Background: %+v", fg.Info())
	}
	if none := newTest(t, nil, &Options{Background: true}); none.Info().Index != IndexNone {
		t.Errorf("no skills: %+v", none.Info())
	}
}

// TestSearchTiesInSkillOrder: skills of equal relevance are found in
// agent order, whatever order a build numbered bleve's documents in.
func TestSearchTiesInSkillOrder(t *testing.T) {
	skills := make([]Skill, 300)
	for i := range skills {
		skills[i] = Skill{Name: fmt.Sprintf("same-%03d", i), Z: float64(i + 1), Triggers: []string{fmt.Sprintf("unique%d", i)},
			Description: "Handles the shared boilerplate request exactly like every other skill."}
	}
	r := newTest(t, skills, &Options{NoCache: true})
	res := r.scorer.search(analyze(r.an, "shared boilerplate request", true).text, nil, 10)
	if len(res) != 10 {
		t.Fatalf("search = %d hits, want 10", len(res))
	}
	for i, h := range res {
		if h.skill != i {
			t.Fatalf("tied hit %d is skill %d, want the agent's first skills in order", i, h.skill)
		}
	}
}
