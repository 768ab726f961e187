package cases

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/agent3md/agent3md/router"
)

// TopK is how far down the answer top-3 looks, and how many matches a
// result keeps: the first three of what route_skill answers.
const TopK = 3

// Tiers as an author reads them: a sure match hit a trigger phrase,
// names the skill or says its description's own words (router.Sure); a
// relaxed one only shares words with it; a runner-up is what a plain
// search over names and descriptions ranks next, offered to every
// request, so it never counts as a match a no-skill case drew.
const (
	Sure     = "sure"
	Relaxed  = "relaxed"
	RunnerUp = "runner-up"
)

// Hit is one match of a case's answer.
type Hit struct {
	Name string `json:"name"`
	// Tier is Sure, Relaxed or RunnerUp; Via is the router's own tier
	// (phrase, name, described, relaxed, runner-up).
	Tier string   `json:"tier"`
	Via  string   `json:"via"`
	Hits []string `json:"hits"`
}

// Result is one case routed.
type Result struct {
	Case
	// Matches are the first TopK matches, best first.
	Matches []Hit `json:"matches"`
	// Rank is where Expect came, 1-based; 0 when it is not among Matches
	// (and for a case that expects no skill).
	Rank int `json:"rank"`
	// Pass: the expected skill came first, or, for a case that expects
	// none, nothing but runner-ups came.
	Pass bool `json:"pass"`
}

// Summary holds the rates a set of results scores.
type Summary struct {
	Cases int `json:"cases"`
	// Positive cases expect a skill; Top1 and Top3 count those whose
	// skill came first and among the first three.
	Positive int `json:"positive"`
	Top1     int `json:"top1"`
	Top3     int `json:"top3"`
	// Negative cases expect none; False counts those that drew a sure
	// or relaxed match.
	Negative int `json:"negative"`
	False    int `json:"false"`
	// The rates: Top1/Positive, Top3/Positive, False/Negative (0 when
	// the denominator is).
	Top1Rate  float64 `json:"top1_rate"`
	Top3Rate  float64 `json:"top3_rate"`
	FalseRate float64 `json:"false_rate"`
}

// RouteFunc routes one request as route_skill does.
type RouteFunc func(ctx context.Context, text string) ([]router.Match, error)

// Options configures Run.
type Options struct {
	// Workers is how many cases route at once (default GOMAXPROCS): a
	// Router is safe for concurrent use.
	Workers int
	// Progress, when set, is called as cases finish with the count done
	// and the total, from one goroutine at a time.
	Progress func(done, total int)
}

// Run routes every case and scores it. The first routing error stops the
// run and is returned with the case's line.
func Run(ctx context.Context, cs []Case, route RouteFunc, o *Options) ([]Result, error) {
	var opt Options
	if o != nil {
		opt = *o
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(cs))
	out := make([]Result, len(cs))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
		mu       sync.Mutex // serialises Progress
		done     int
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(cs) || ctx.Err() != nil {
					return
				}
				ms, err := route(ctx, cs[i].Request)
				if err != nil {
					errOnce.Do(func() { firstErr = fmt.Errorf("line %d: routing %q: %w", cs[i].Line, cs[i].Request, err); cancel() })
					return
				}
				out[i] = score(cs[i], ms)
				if opt.Progress != nil {
					mu.Lock()
					done++
					opt.Progress(done, len(cs))
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil { // the caller's context ended the run
		return nil, err
	}
	return out, nil
}

// score judges one answer against its case.
func score(c Case, ms []router.Match) Result {
	r := Result{Case: c, Matches: make([]Hit, 0, min(len(ms), TopK))}
	for i := range ms[:min(len(ms), TopK)] {
		m := &ms[i]
		tier := Sure
		if !router.Sure(m.Tier) {
			tier = m.Tier
		}
		r.Matches = append(r.Matches, Hit{Name: m.Name, Tier: tier, Via: m.Tier, Hits: m.Hits})
		if c.Expect != "" && r.Rank == 0 && m.Name == c.Expect {
			r.Rank = i + 1
		}
	}
	if c.Expect == "" {
		r.Pass = !drew(ms)
	} else {
		r.Pass = r.Rank == 1
	}
	return r
}

// drew reports an answer holding a match, not only runner-ups.
func drew(ms []router.Match) bool {
	return len(ms) > 0 && ms[0].Tier != router.TierRunnerUp
}

// Summarize counts results into their rates.
func Summarize(rs []Result) Summary {
	var s Summary
	s.Cases = len(rs)
	for i := range rs {
		r := &rs[i]
		if r.Expect == "" {
			s.Negative++
			if !r.Pass {
				s.False++
			}
			continue
		}
		s.Positive++
		if r.Rank == 1 {
			s.Top1++
		}
		if r.Rank > 0 {
			s.Top3++
		}
	}
	s.Top1Rate, s.Top3Rate, s.FalseRate = ratio(s.Top1, s.Positive), ratio(s.Top3, s.Positive), ratio(s.False, s.Negative)
	return s
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
