package lint

import (
	"context"
	"testing"

	"github.com/agent3md/agent3md/internal/synth"
	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/router"
)

// BenchmarkCheck1000 runs every lint over the 1,000-skill synthetic agent
// (bench/gen-agent.py): its description and ~4 triggers per skill routed
// with route_skill's query over an index built once. docs/performance.md
// §6 holds the measured figure of the whole validate.
func BenchmarkCheck1000(b *testing.B) {
	ctx := context.Background()
	ag, err := loader.Open(synth.Path(b, 1000), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ag.Close()
	r, err := router.ForAgent(ctx, ag, &router.Options{NoCache: true})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	cat, info := ag.Scanned()
	var skills []SkillText
	for _, s := range info.Skills {
		if s.Plane != info.Identity {
			skills = append(skills, SkillText{Name: s.Name, Description: cat.Planes[s.Plane].Description, Triggers: s.Triggers})
		}
	}
	route := func(ctx context.Context, text string) ([]router.Match, error) {
		return r.Route(ctx, text, &router.Query{Mode: router.Ranked, Limit: router.DefaultLimit})
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Check(ctx, skills, route, nil); err != nil {
			b.Fatal(err)
		}
	}
}
