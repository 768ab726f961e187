package router

import (
	"flag"
	"fmt"
	"strings"
	"testing"
)

// routingDiag turns on TestRoutingDiagnose.
var routingDiag = flag.Bool("routing.diag", false, "TestRoutingDiagnose logs where the right skill sits on every development miss")

// TestRoutingDiagnose logs, with -routing.diag, for every development
// set (never a held-out one: their requests are not read while routing
// changes) each positive case whose first match is wrong, with the tier
// and place of the right skill and of what went ahead of it, and each
// irrelevant case answered with a sure first match; then counts of both
// by tier. It only reports.
func TestRoutingDiagnose(t *testing.T) {
	if !*routingDiag {
		t.Skip("pass -routing.diag to log the development misses")
	}
	missTier := map[string]int{} // "first tier -> right tier"
	falseSure := map[string]int{}
	var b strings.Builder
	devRoutes(t, func(file string, c evalCase, r *Router, got []Match) {
		if c.Want == nil {
			if len(got) > 0 && Sure(got[0].Tier) {
				falseSure[got[0].Tier]++
				fmt.Fprintf(&b, "%s FALSE-SURE %q\n\t%s\n", file, c.Text, listOf(got))
			}
			return
		}
		if len(got) > 0 && got[0].Name == *c.Want {
			return
		}
		at, tier := -1, "absent"
		for i, m := range got {
			if m.Name == *c.Want {
				at, tier = i+1, m.Tier
			}
		}
		first := "none"
		if len(got) > 0 {
			first = got[0].Tier
		}
		missTier[first+" -> "+tier]++
		fmt.Fprintf(&b, "%s MISS %q want %s (at %d, %s)\n\t%s\n", file, c.Text, *c.Want, at, tier, listOf(got))
	})
	fmt.Fprintf(&b, "\nmisses by first tier -> right tier: %v\nfalse-sure by tier: %v\n", missTier, falseSure)
	t.Logf("\n%s", b.String())
}

func listOf(got []Match) string {
	var parts []string
	for _, m := range got {
		parts = append(parts, fmt.Sprintf("%s[%s s%d r%.2f f%.2f %v]", m.Name, m.Tier, m.Score, m.Relevance, m.Fit, m.Hits))
	}
	return strings.Join(parts, " | ")
}

// TestRoutingDiagLone logs, with -routing.diag, every development case
// led by a sure match of one one-word hit, right or wrong, with the
// request words its skill's name and description hold beside the hit
// and the words no skill's name, description or trigger holds.
func TestRoutingDiagLone(t *testing.T) {
	if !*routingDiag {
		t.Skip("pass -routing.diag")
	}
	var b strings.Builder
	devRoutes(t, func(file string, c evalCase, r *Router, got []Match) {
		if len(got) == 0 || !Sure(got[0].Tier) || len(got[0].Hits) != 1 || strings.ContainsRune(got[0].Hits[0], ' ') {
			return
		}
		p := r.plainIndex()
		trig := map[string]bool{}
		for i := range r.src.Len() {
			_, _, tr := r.src.Phrases(i)
			for _, x := range tr {
				for _, w := range baselineTokens(nil, x) {
					trig[w] = true
				}
			}
		}
		q := (&plainText{text: c.Text}).read(p)
		sk := r.skillAt(got[0])
		var company, foreign []string
		for k, w := range q.toks {
			if w == strings.ToLower(got[0].Hits[0]) {
				continue
			}
			if q.holds(k, sk) {
				company = append(company, w)
			}
			if _, ok := p.post[w]; !ok && !trig[w] {
				foreign = append(foreign, w)
			}
		}
		verdict := "RIGHT"
		if c.Want == nil {
			verdict = "FALSE"
		} else if *c.Want != got[0].Name {
			verdict = "WRONG"
		}
		fmt.Fprintf(&b, "%s %s %s hit=%s words=%d company=%v foreign=%v %q\n", verdict, got[0].Tier, file, got[0].Hits[0], len(q.toks), company, foreign, c.Text)
	})
	t.Logf("\n%s", b.String())
}

// devRoutes routes every case of the development sets in ranked mode at
// the default limit, one router per agent, and calls fn with each answer.
func devRoutes(t *testing.T, fn func(file string, c evalCase, r *Router, got []Match)) {
	for _, s := range routingSets {
		if s.kind != "development" && s.kind != "development (irrelevant only)" {
			continue
		}
		agents := map[string]*Router{}
		for _, c := range readSet(t, s.file) {
			r, ok := agents[c.Agent]
			if !ok {
				r = newTest(t, Skills(loadAgentSkills(t, c.agentPath())), nil)
				agents[c.Agent] = r
			}
			fn(s.file, c, r, route(t, r, c.Text, &Query{Mode: Ranked, Limit: DefaultLimit}))
		}
	}
}
