package router

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agent3md/agent3md/internal/synth"
)

// Benchmark agents come from bench/gen-agent.py via internal/synth, so the
// figures compare with the rest of the project's. Run e.g.
//
//	go test ./router -run XXX -bench . -count 5
//	go test ./router -run XXX -bench 'Route/n=100000' -count 5

var benchSizes = []int{10, 1000, 4000, 100000}

var (
	benchMu     sync.Mutex
	benchSkills = map[int][]Skill{}
)

// synthSkills parses the synthetic agent with n skills once per process.
func synthSkills(b testing.TB, n int) []Skill {
	benchMu.Lock()
	defer benchMu.Unlock()
	if s, ok := benchSkills[n]; ok {
		return s
	}
	s := loadAgentSkills(b, synth.Path(b, n))
	if len(s) != n {
		b.Fatalf("synthetic agent has %d skills, want %d", len(s), n)
	}
	benchSkills[n] = s
	return s
}

// Words from bench/gen-agent.py's lists, for requests shaped like
// "please <verb> the latest <noun> for the team".
var (
	benchVerbs = strings.Fields("search summarize translate classify extract render compile deploy " +
		"encrypt compress schedule notify validate format parse scrape crawl index embed cluster rank " +
		"merge split convert resize annotate diff patch lint refactor profile migrate backup restore sync")
	benchNouns = strings.Fields("report image request record dataset stream event document query ledger " +
		"manifest model asset ticket invoice contract schema backup cluster volume pipeline release branch")
)

func benchRequests() []string {
	var out []string
	for i := 0; i < 64; i++ {
		v := benchVerbs[(i*7)%len(benchVerbs)]
		n := benchNouns[(i*5)%len(benchNouns)]
		out = append(out, fmt.Sprintf("please %s the latest %s for the team", v, n))
	}
	return out
}

func BenchmarkRoute(b *testing.B) {
	reqs := benchRequests()
	for _, n := range benchSizes {
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			skills := synthSkills(b, n)
			r, err := New(context.Background(), skills, &Options{CacheDir: b.TempDir(), ContentHash: "feed" + strconv.Itoa(n)})
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			for _, q := range []struct {
				name string
				q    Query
			}{
				{"spec", Query{Mode: Spec}},
				{"spec-top10", Query{Mode: Spec, Limit: 10}},
				{"ranked", Query{Mode: Ranked}},
				{"ranked-top10", Query{Mode: Ranked, Limit: 10}},
				{"ranked-default", Query{Mode: Ranked, Limit: DefaultLimit}},
			} {
				b.Run(q.name, func(b *testing.B) {
					ctx := context.Background()
					matches := 0
					b.ReportAllocs()
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						got, err := r.Route(ctx, reqs[i%len(reqs)], &q.q)
						if err != nil {
							b.Fatal(err)
						}
						matches += len(got)
					}
					b.ReportMetric(float64(matches)/float64(b.N), "matches/op")
				})
			}
		})
	}
}

// BenchmarkIndexCold builds the on-disk cache entry from nothing.
func BenchmarkIndexCold(b *testing.B) {
	for _, n := range []int{4000, 100000} {
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			skills := synthSkills(b, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r, err := New(context.Background(), skills, &Options{CacheDir: b.TempDir(), ContentHash: "c01d"})
				if err != nil {
					b.Fatal(err)
				}
				if r.Info().Index != IndexCacheBuilt {
					b.Fatalf("info %+v, want a built cache entry", r.Info())
				}
				r.Close()
			}
			b.StopTimer()
			reportPeak(b)
		})
	}
}

// BenchmarkColdFirstRoute is a server's cold start at 4,000 skills:
// New with Options.Background (phrase index and term statistics, the
// bleve build left running) and the first route, which is all a client
// waits for; then the build is waited for, untimed.
func BenchmarkColdFirstRoute(b *testing.B) {
	skills := synthSkills(b, 4000)
	text := benchRequests()[0]
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		r, err := New(ctx, skills, &Options{CacheDir: b.TempDir(), ContentHash: "f125", Background: true})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.Route(ctx, text, nil); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if info, err := r.Wait(ctx); err != nil || info.Index != IndexCacheBuilt {
			b.Fatalf("build: %+v, %v", info, err)
		}
		r.Close()
		b.StartTimer()
	}
}

// BenchmarkIndexWarm reopens an existing cache entry, as a restart does.
func BenchmarkIndexWarm(b *testing.B) {
	for _, n := range []int{4000, 100000} {
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			skills := synthSkills(b, n)
			opts := &Options{CacheDir: b.TempDir(), ContentHash: "3a43"}
			if _, err := buildEntry(context.Background(), skills, opts); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r, err := New(context.Background(), skills, opts)
				if err != nil {
					b.Fatal(err)
				}
				if r.Info().Index != IndexCacheHit {
					b.Fatalf("info %+v, want a cache hit", r.Info())
				}
				r.Close()
			}
		})
	}
}

// BenchmarkIndexCPU reports the CPU time (user+system, all threads) of a
// cold build and of a warm open at 4,000 skills: steadier than wall time
// on a shared machine.
func BenchmarkIndexCPU(b *testing.B) {
	skills := synthSkills(b, 4000)
	var cold, warm time.Duration
	for i := 0; i < b.N; i++ {
		opts := &Options{CacheDir: b.TempDir(), ContentHash: "c9a"}
		for k, d := range []*time.Duration{&cold, &warm} {
			c0 := cpuTime()
			r, err := New(context.Background(), skills, opts)
			*d += cpuTime() - c0
			if err != nil {
				b.Fatal(err)
			}
			if want := []string{IndexCacheBuilt, IndexCacheHit}[k]; r.Info().Index != want {
				b.Fatalf("info %+v, want %s", r.Info(), want)
			}
			r.Close()
		}
	}
	b.ReportMetric(float64(cold.Microseconds())/1000/float64(b.N), "cold-cpu-ms")
	b.ReportMetric(float64(warm.Microseconds())/1000/float64(b.N), "warm-cpu-ms")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkIndexMemory builds the in-memory index of a small agent.
func BenchmarkIndexMemory(b *testing.B) {
	for _, n := range []int{10, 1000, 4000} {
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			skills := synthSkills(b, n)
			for i := 0; i < b.N; i++ {
				r, err := New(context.Background(), skills, &Options{NoCache: true})
				if err != nil {
					b.Fatal(err)
				}
				r.Close()
			}
		})
	}
}

// reportPeak reports the process's peak resident memory (VmHWM, Linux).
func reportPeak(b *testing.B) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			if kb, err := strconv.Atoi(f[1]); err == nil {
				b.ReportMetric(float64(kb)/1024, "peak-MB")
			}
		}
	}
}

// BenchmarkRouteSmall is one Ranked route on a small agent: the 10-skill
// synthetic agent the MCP server's per-request benchmarks serve, where
// "hits" hits trigger phrases of every skill (ten candidates, nine tied,
// so relevance orders them), "relaxed" hits none and falls back to the
// relaxed tier, finding nothing, and "named" says a skill's name without
// a trigger (these are the requests of mcp's BenchmarkPipelined); and the
// devtools example, where "relaxed-hits" finds relaxed matches, whose
// evidence is read from their skills' text. The routers are built as the
// server builds them (Options.Background: relevance from term
// statistics).
func BenchmarkRouteSmall(b *testing.B) {
	agents := map[string][]Skill{"synth": synthSkills(b, 10), "devtools": loadAgentSkills(b, "../examples/devtools.3md"),
		"kefu": loadAgentSkills(b, "../examples/kefu.3md")}
	for _, bc := range []struct {
		agent, name, text string
		limit             int
	}{
		{"synth", "hits", "please deploy the nightly report", 0},
		{"synth", "hits-top5", "please deploy the nightly report", 5},
		{"synth", "relaxed", "rotate the logs and check disk usage", 5},
		{"synth", "named", "report", 0},
		{"devtools", "relaxed-hits", "send my branch to the team on GitHub so they can review it", 5},
		// A casual Chinese request with no trigger: the character pairs'
		// runner-ups (runnersup.go).
		{"kefu", "zh-runner-ups", "吊牌还在，没洗过，能退吗", 5},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r, err := New(context.Background(), agents[bc.agent], &Options{NoCache: true, Background: true})
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			if _, err := r.Wait(context.Background()); err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			q := &Query{Limit: bc.limit}
			b.ReportAllocs()
			b.ResetTimer()
			c0 := cpuTime()
			for i := 0; i < b.N; i++ {
				if _, err := r.Route(ctx, bc.text, q); err != nil {
					b.Fatal(err)
				}
			}
			// The process's CPU time (garbage collection included) varies
			// less than wall time on a shared machine.
			b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkRouteRunnersUp is the route that pays for runners-up or the
// relaxed tier at 4,000 skills: requests that hit no phrase of the
// synthetic agent (its verbs and nouns are all one-word triggers, so a
// request that says one hits dozens of skills and fills the limit with
// sure matches), with the default limit, as route_skill asks. Each
// searches relevance, reads the body index and weighs the evidence of
// the candidates.
func BenchmarkRouteRunnersUp(b *testing.B) {
	reqs := []string{
		"confirm the size budget before any side effect",
		"retry transient backend failures with backoff",
		"infer the output format when none is given",
		"a permission error is reported and never retried",
	}
	skills := synthSkills(b, 4000)
	r, err := New(context.Background(), skills, &Options{CacheDir: b.TempDir(), ContentHash: "feed4000"})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	q := &Query{Limit: DefaultLimit}
	matches := 0
	b.ReportAllocs()
	b.ResetTimer()
	c0 := cpuTime()
	for i := 0; i < b.N; i++ {
		got, err := r.Route(ctx, reqs[i%len(reqs)], q)
		if err != nil {
			b.Fatal(err)
		}
		matches += len(got)
	}
	b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(matches)/float64(b.N), "matches/op")
}

// BenchmarkPlainIndex builds the plain ranking's index (relevance.go),
// which the first route that fills runner-ups builds: at 100,000 skills
// it is what that route waits for beyond a route's own work.
func BenchmarkPlainIndex(b *testing.B) {
	for _, n := range []int{4000, 100000} {
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			skills := Skills(synthSkills(b, n))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				newPlainBM25(skills)
			}
		})
	}
}
