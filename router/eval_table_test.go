package router

import (
	"flag"
	"fmt"
	"strings"
	"testing"
)

var (
	routingTable  = flag.Bool("routing.table", false, "print every routing set's figures as the Markdown table of testdata/README.md")
	routingSetsOf = flag.String("routing.sets", "dev", `with -routing.table, which sets: "dev" (development sets only, for working on routing), "held" (and the held-out sets) or "all" (and the blind sets of both rounds, whose figures are read once per change)`)
)

// routingSets are every labelled routing set, development and held-out,
// in the order testdata/README.md's table lists them.
var routingSets = []struct {
	file, kind string
}{
	{"routing.json", "development"},
	{"routing-dev2.json", "development"},
	{"routing-nearmiss.json", "development (irrelevant only)"},
	{"routing-nearmiss-tools.json", "development (irrelevant only)"},
	{"routing-kefu-dev.json", "development"},
	{"routing-kefu-dev2.json", "development"},
	{"routing-folders.json", "development"},
	{"routing-folders-nearmiss.json", "development (irrelevant only)"},
	{"routing-nearmiss3.json", "development (irrelevant only)"},
	{"routing-refagents-dev.json", "development"},
	{"routing-kefu-dev3.json", "development"},
	{"routing-folders-dev2.json", "development"},
	{"routing-holdout.json", "held-out"},
	{"routing-fresh.json", "held-out"},
	{"routing-blind.json", "held-out"},
	{"routing-blind2.json", "held-out"},
	{"routing-blind3.json", "held-out"},
	{"routing-blind4.json", "held-out"},
	{"routing-kefu-blind.json", "held-out"},
	{"routing-folders-fresh.json", "held-out"},
	{"routing-folders-blind.json", "held-out"},
	{"routing-refagents-holdout.json", "held-out"},
	{"routing-blind5.json", "held-out, blind round 1 (2026-11-27)"},
	{"routing-kefu-blind2.json", "held-out, blind round 1 (2026-11-27)"},
	{"routing-folders-blind2.json", "held-out, blind round 1 (2026-11-27)"},
	{"routing-blind6.json", "held-out, blind round 2 (2026-11-27)"},
	{"routing-kefu-blind3.json", "held-out, blind round 2 (2026-11-27)"},
	{"routing-folders-blind3.json", "held-out, blind round 3 (2026-11-28)"},
	{"routing-kefu-blind4.json", "held-out, blind round 3 (2026-11-28)"},
	{"routing-blind7.json", "held-out, blind round 3 (2026-11-28)"},
	{"routing-folders-blind4.json", "held-out, blind round 4 (2026-11-29)"},
	{"routing-kefu-blind5.json", "held-out, blind round 4 (2026-11-29)"},
	{"routing-folders-blind5.json", "held-out, blind round 5 (2026-11-29)"},
	{"routing-kefu-blind6.json", "held-out, blind round 5 (2026-11-29)"},
}

// TestRoutingTable prints, with -routing.table, one Markdown row per
// routing set and mode: top-1, top-3 and false-match rate (and the
// false matches among near misses, where a set marks them). The bars are
// held by each set's own test; this one only reports.
func TestRoutingTable(t *testing.T) {
	if !*routingTable {
		t.Skip("pass -routing.table to print the table")
	}
	var b strings.Builder
	b.WriteString("| set | kind | cases | ranked top-1 | ranked top-3 | ranked false | spec top-1 | spec top-3 | spec false |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	all := map[string]map[Mode]*tally{}
	for _, s := range routingSets {
		switch {
		case *routingSetsOf == "dev" && strings.HasPrefix(s.kind, "held-out"),
			*routingSetsOf == "held" && strings.Contains(s.kind, "blind"):
			continue
		}
		_, total := runSet(t, s.file, nil)
		r, sp := total[Ranked], total[Spec]
		group := s.kind
		if strings.HasPrefix(group, "held-out") {
			group = "held-out"
		} else {
			group = "development"
		}
		if all[group] == nil {
			all[group] = map[Mode]*tally{Ranked: {}, Spec: {}}
		}
		all[group][Ranked].merge(r)
		all[group][Spec].merge(sp)
		fmt.Fprintf(&b, "| `%s` | %s | %d+%d | %s | %s | %s | %s | %s | %s |\n", s.file, s.kind, r.pos, r.neg,
			pct(r.top1, r.pos), pct(r.top3, r.pos), falseCell(r), pct(sp.top1, sp.pos), pct(sp.top3, sp.pos), falseCell(sp))
	}
	for _, g := range []string{"development", "held-out"} {
		if all[g] == nil {
			continue
		}
		r, sp := all[g][Ranked], all[g][Spec]
		fmt.Fprintf(&b, "| all %s | | %d+%d | %s | %s | %s | %s | %s | %s |\n", g, r.pos, r.neg,
			pct(r.top1, r.pos), pct(r.top3, r.pos), falseCell(r), pct(sp.top1, sp.pos), pct(sp.top3, sp.pos), falseCell(sp))
	}
	t.Logf("\n%s", b.String())
}

// pct is a/b as a percentage with one decimal, "–" when b is 0.
func pct(a, b int) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}

// falseCell is the false-match rate, with the near misses' count when the
// set marks any.
func falseCell(t *tally) string {
	s := pct(t.falseMatch, t.neg)
	if t.nearNeg > 0 {
		s += fmt.Sprintf(" (near %d/%d)", t.nearFalse, t.nearNeg)
	}
	return s
}
