package router

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agent3md/agent3md/internal/synth"
)

var update = flag.Bool("update", false, "rewrite testdata/routes*.golden with the routes' actual answers")

// goldenSets are the labelled request sets whose every answer
// testdata/routes.golden pins, as evalSet names them.
var goldenSets = []string{
	"routing.json",
	"routing-holdout.json",
	"routing-fresh.json",
	"routing-blind.json",
	"routing-blind2.json",
	"routing-dev2.json",
	"routing-folders.json",
	"routing-folders-fresh.json",
	"routing-blind3.json",
	"routing-blind4.json",
	"routing-nearmiss.json",
	"routing-nearmiss-tools.json",
	"routing-folders-blind.json",
	"routing-folders-nearmiss.json",
	"routing-refagents-dev.json",
	"routing-refagents-holdout.json",
}

// goldenQueries are the queries every request is routed with: both modes,
// and Ranked with a limit, which orders only the tiers reaching into it.
var goldenQueries = []Query{{Mode: Spec}, {Mode: Ranked}, {Mode: Ranked, Limit: 1}, {Mode: Ranked, Limit: 3}}

// TestRoutesGolden pins every match of every request of the labelled sets
// (names, tiers, hits, scores and relevance to the last bit), so work on
// the routing's speed shows at once if it changes an answer. The eval
// tests only count top-1 answers; this sees the whole list. Run with
// -update after a change meant to alter answers, and read the diff.
func TestRoutesGolden(t *testing.T) {
	var buf bytes.Buffer
	for _, file := range goldenSets {
		routers := map[string][]*Router{}
		for _, c := range readSet(t, file) {
			rs, ok := routers[c.Agent]
			if !ok {
				rs = goldenRouters(t, loadAgentSkills(t, c.agentPath()))
				routers[c.Agent] = rs
			}
			writeRoutes(t, &buf, rs, file+" "+c.Agent, c.Text, goldenQueries)
		}
	}
	compareGolden(t, "testdata/routes.golden", buf.Bytes())
}

// TestRoutesGoldenSynth is TestRoutesGolden over the synthetic agents the
// benchmarks route on, with the benchmarks' requests.
func TestRoutesGoldenSynth(t *testing.T) {
	var buf bytes.Buffer
	reqs := append(benchRequests(), "please deploy the nightly report", "rotate the logs and check disk usage", "report")
	for _, n := range []int{10, 1000} {
		rs := goldenRouters(t, loadAgentSkills(t, synth.Path(t, n)))
		queries := goldenQueries
		if n > 10 { // every query, but not every one of hundreds of matches
			queries = []Query{{Mode: Spec, Limit: 10}, {Mode: Ranked, Limit: 10}}
		}
		for _, text := range reqs {
			writeRoutes(t, &buf, rs, fmt.Sprintf("synth-%d", n), text, queries)
		}
	}
	compareGolden(t, "testdata/routes-synth.golden", buf.Bytes())
}

// goldenRouters are two routers over skills: one built in the foreground,
// whose relevance comes from bleve's term searchers, and one built as the
// MCP server builds it (Options.Background), whose relevance comes from
// term statistics.
//
// The second is waited for: a route answered while the index builds has
// no runners-up (TestBackgroundAnswersLikeForeground covers that).
func goldenRouters(t *testing.T, skills []Skill) []*Router {
	bg := newTest(t, skills, &Options{NoCache: true, Background: true})
	if _, err := bg.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	return []*Router{newTest(t, skills, nil), bg}
}

// writeRoutes writes where a request comes from and the request, then a
// line per golden query: the query and each match as name, tier, score,
// relevance (formatted to read back as the same bits) and hits. Every
// router of rs must give the same line.
func writeRoutes(t *testing.T, w *bytes.Buffer, rs []*Router, from, text string, queries []Query) {
	t.Helper()
	fmt.Fprintf(w, "%s %q\n", from, text)
	for _, q := range queries {
		var first string
		for k, r := range rs {
			line := fmt.Sprintf("\t%s/%d", q.Mode, q.Limit)
			for _, m := range route(t, r, text, &q) {
				line += fmt.Sprintf(" %s:%s:%d:%s%q", m.Name, m.Tier, m.Score, strconv.FormatFloat(m.Relevance, 'g', -1, 64), m.Hits)
			}
			if k == 0 {
				first = line
			} else if line != first {
				t.Errorf("%s %q: routers disagree:\n%s\n%s", from, text, first, line)
			}
		}
		w.WriteString(first + "\n")
	}
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	shown := 0
	for i := 0; i < max(len(gl), len(wl)) && shown < 10; i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Errorf("%s line %d:\n got %s\nwant %s", path, i+1, g, w)
			shown++
		}
	}
	if shown == 0 {
		t.Errorf("%s differs", path)
	}
}

// TestRoutesKeepTheirAnswers: routes reuse pooled memory (the tally) and
// kept field terms, so this routes the development set's requests from
// several goroutines at once, each answer compared with the one routed
// alone first, and then checks that those first answers are unchanged:
// no Match may share memory a later route writes.
func TestRoutesKeepTheirAnswers(t *testing.T) {
	cases := readSet(t, "routing.json")
	routers := map[string]*Router{}
	queries := []Query{{}, {Limit: 3}, {Mode: Spec}}
	var first [][]Match
	for _, c := range cases {
		if routers[c.Agent] == nil {
			routers[c.Agent] = newTest(t, loadAgentSkills(t, c.agentPath()), &Options{NoCache: true, Background: true})
			// Built, so that a first answer does not lack the runners-up
			// a route made while the index builds leaves out.
			if _, err := routers[c.Agent].Wait(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		for _, q := range queries {
			first = append(first, route(t, routers[c.Agent], c.Text, &q))
		}
	}
	want := make([][]Match, len(first))
	for i, m := range first {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &want[i]); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for pass := 0; pass < 2; pass++ {
				k := 0
				for _, c := range cases {
					for _, q := range queries {
						got, err := routers[c.Agent].Route(context.Background(), c.Text, &q)
						if err != nil {
							t.Error(err)
							return
						}
						if !reflect.DeepEqual(got, first[k]) {
							t.Errorf("%s %q %+v routed concurrently:\n got %+v\nwant %+v", c.Agent, c.Text, q, got, first[k])
							return
						}
						k++
					}
				}
			}
		}()
	}
	wg.Wait()
	for i := range first {
		if !reflect.DeepEqual(first[i], want[i]) && (len(first[i]) > 0 || len(want[i]) > 0) {
			t.Fatalf("answer %d changed after later routes:\n got %+v\nwant %+v", i, first[i], want[i])
		}
	}
}
