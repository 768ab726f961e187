package cases_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/agent3md/agent3md/cases"
	"github.com/agent3md/agent3md/internal/synth"
	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/mcp"
	"github.com/agent3md/agent3md/router"
)

// BenchmarkEval1000 is `agent3md eval` on 1,000 cases against the
// 1,000-skill synthetic agent (bench/gen-agent.py): the agent opened, its
// routing index built in memory (no cache: what a CI run pays cold), and
// every case routed with route_skill's query. One op is one whole run;
// docs/performance.md holds the measured figure.
func BenchmarkEval1000(b *testing.B) {
	path := synth.Path(b, 1000)
	ctx := context.Background()
	cs := benchCases(b, path, 1000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ag, err := loader.Open(path, nil)
		if err != nil {
			b.Fatal(err)
		}
		r, err := router.ForAgent(ctx, ag, &router.Options{NoCache: true})
		if err != nil {
			b.Fatal(err)
		}
		rs, err := cases.Run(ctx, cs, func(ctx context.Context, text string) ([]router.Match, error) {
			return r.Route(ctx, text, mcp.RouteQuery())
		}, nil)
		if err != nil {
			b.Fatal(err)
		}
		if s := cases.Summarize(rs); s.Cases != len(cs) {
			b.Fatalf("summary %+v", s)
		}
		r.Close()
		ag.Close()
	}
}

// benchCases makes n cases from the agent's own triggers, with filler
// words around them, and one in ten a request no skill should take.
func benchCases(b *testing.B, path string, n int) []cases.Case {
	ag, err := loader.Open(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ag.Close()
	info := ag.Info()
	fill := []string{"please", "can you", "for the team", "today", "again"}
	cs := make([]cases.Case, n)
	for i := range cs {
		if i%10 == 9 {
			cs[i] = cases.Case{Line: i + 1, Request: fmt.Sprintf("what should I cook for dinner tonight %d", i)}
			continue
		}
		s := info.Skills[1+i%(len(info.Skills)-1)]
		trig := s.Name
		if len(s.Triggers) > 0 {
			trig = s.Triggers[i%len(s.Triggers)]
		}
		cs[i] = cases.Case{Line: i + 1, Request: fill[i%len(fill)] + " " + trig + " " + fill[(i+2)%len(fill)], Expect: s.Name}
	}
	return cs
}
