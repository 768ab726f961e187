package router

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// evalK is the deepest k the baseline comparison reads: top-1, top-3 and
// top-5 of the answer a model gets (DefaultLimit matches; a route asked
// for fewer than five cannot be right at five where it was not at three).
var evalKs = [...]int{1, 3, 5}

// kTally counts one set's answers at every k of evalKs, and for the
// irrelevant requests those whose answer holds anything (false-any) and
// those whose first match is sure (false-sure: phrase or name tier). For
// sure-precision, sure counts the answers led by a sure match and
// sureRight those whose sure first match was right.
type kTally struct {
	pos, neg            int
	top                 [len(evalKs)]int
	falseAny, falseSure int
	sure, sureRight     int
}

func (k *kTally) add(want *string, got []Match) {
	sure := len(got) > 0 && Sure(got[0].Tier)
	if sure {
		k.sure++
		if want != nil && got[0].Name == *want {
			k.sureRight++
		}
	}
	if want == nil {
		k.neg++
		if len(got) > 0 {
			k.falseAny++
		}
		if sure {
			k.falseSure++
		}
		return
	}
	k.pos++
	for i, m := range got {
		if m.Name != *want {
			continue
		}
		for j, depth := range evalKs {
			if i < depth {
				k.top[j]++
			}
		}
		return
	}
}

func (k *kTally) merge(o *kTally) {
	k.pos += o.pos
	k.neg += o.neg
	for j := range k.top {
		k.top[j] += o.top[j]
	}
	k.falseAny += o.falseAny
	k.falseSure += o.falseSure
	k.sure += o.sure
	k.sureRight += o.sureRight
}

// cells is k's row cells: top-1, top-3, top-5, false-sure, false-any.
func (k *kTally) cells() string {
	return fmt.Sprintf("%s | %s | %s | %s | %s", pct(k.top[0], k.pos), pct(k.top[1], k.pos), pct(k.top[2], k.pos),
		pct(k.falseSure, k.neg), pct(k.falseAny, k.neg))
}

// baselineCases routes every case of a set (runSet's paths) in ranked
// mode with the limit a model gets and through plainBM25, and returns the
// two tallies.
func baselineCases(t *testing.T, file string) (ranked, bm25 *kTally) {
	t.Helper()
	type agent struct {
		r *Router
		p *plainBM25
		s Skills
	}
	agents := map[string]agent{}
	ranked, bm25 = &kTally{}, &kTally{}
	for _, c := range readSet(t, file) {
		a, ok := agents[c.Agent]
		if !ok {
			s := Skills(loadAgentSkills(t, c.agentPath()))
			a = agent{newTest(t, s, nil), newPlainBM25(s), s}
			agents[c.Agent] = a
		}
		got := route(t, a.r, c.Text, &Query{Mode: Ranked, Limit: *routingLimit})
		ranked.add(c.Want, got)
		var line []byte
		for i := range got {
			if i > 0 {
				line = append(line, '\n')
			}
			line = AppendLine(line, &got[i])
		}
		answerChars = append(answerChars, utf8.RuneCount(line))
		var plain []Match
		for _, h := range a.p.rank(baselineTokens(nil, c.Text), evalKs[len(evalKs)-1]) {
			if len(plain) == evalKs[len(evalKs)-1] {
				break
			}
			plain = append(plain, Match{Name: a.s[h.skill].Name, Tier: TierRelaxed})
		}
		bm25.add(c.Want, plain)
	}
	return ranked, bm25
}

// routingLimit is the limit the comparison routes with: the answer a
// model gets by default, unless asked for another.
var routingLimit = flag.Int("routing.limit", DefaultLimit, "the limit TestRoutingBaseline routes with")

// routingSkip leaves out the sets whose kind holds it (a blind round not
// to be read while routing changes); the default routes every set.
var routingSkip = flag.String("routing.skip", "", "TestRoutingBaseline leaves out the sets whose kind contains this")

// answerChars collects the characters of every route answer the
// comparison routes (its lines, as route_skill sends them).
var answerChars []int

// baselineSets are the sets the comparison routes: every set of
// routingSets.
func baselineSets() []struct{ file, kind string } {
	return routingSets
}

// TestRoutingBaseline routes every evaluation set in ranked mode and
// through the plain BM25 baseline (relevance.go), logs both side by side
// as the Markdown table of testdata/README.md, and fails when ranked mode
// gets fewer cases right than the baseline at any k on a held-out set.
func TestRoutingBaseline(t *testing.T) {
	if testing.Short() {
		t.Skip("routes every evaluation set")
	}
	var b strings.Builder
	b.WriteString("| set | kind | cases | ranked top-1 | top-3 | top-5 | false-sure | false-any | BM25 top-1 | top-3 | top-5 | false-sure | false-any |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	groups := map[string][2]*kTally{}
	sure := map[string]*kTally{} // by kind of agent: sure-precision
	for _, s := range baselineSets() {
		if *routingSkip != "" && strings.Contains(s.kind, *routingSkip) {
			continue
		}
		r, p := baselineCases(t, s.file)
		group := "development"
		if strings.HasPrefix(s.kind, "held-out") {
			group = "held-out"
			for j, k := range evalKs {
				if r.top[j] < p.top[j] {
					t.Errorf("%s: ranked top-%d %d/%d, below plain BM25's %d/%d", s.file, k, r.top[j], r.pos, p.top[j], p.pos)
				}
			}
		}
		if groups[group][0] == nil {
			groups[group] = [2]*kTally{{}, {}}
		}
		groups[group][0].merge(r)
		groups[group][1].merge(p)
		kind := "agent files"
		if strings.Contains(s.file, "folders") {
			kind = "skills folders"
		}
		if sure[kind] == nil {
			sure[kind] = &kTally{}
		}
		sure[kind].merge(r)
		fmt.Fprintf(&b, "| `%s` | %s | %d+%d | %s | %s |\n", s.file, s.kind, r.pos, r.neg, r.cells(), p.cells())
	}
	for _, g := range []string{"development", "held-out"} {
		if x := groups[g]; x[0] != nil {
			fmt.Fprintf(&b, "| all %s | | %d+%d | %s | %s |\n", g, x[0].pos, x[0].neg, x[0].cells(), x[1].cells())
		}
	}
	for _, kind := range []string{"agent files", "skills folders"} {
		if x := sure[kind]; x != nil {
			fmt.Fprintf(&b, "\nsure-precision on %s: %s (%d of %d sure first matches right)", kind, pct(x.sureRight, x.sure), x.sureRight, x.sure)
		}
	}
	slices.Sort(answerChars)
	if n := len(answerChars); n > 0 {
		fmt.Fprintf(&b, "\nroute answers at limit %d: median %d characters, 95th percentile %d, longest %d",
			*routingLimit, answerChars[n/2], answerChars[n*95/100], answerChars[n-1])
	}
	t.Logf("\n%s", b.String())
	if *routingSkip == "" && *routingLimit == DefaultLimit {
		checkPublishedTable(t, b.String())
	}
}

// publishedTable is the document that shows TestRoutingBaseline's table
// to readers.
const publishedTable = "../examples/README.md"

// checkPublishedTable fails when publishedTable's table of every set
// (its lines from the table's header row to the first line that is no
// row) is not table's: a routing change that moves a figure updates the
// page in the same commit.
func checkPublishedTable(t *testing.T, table string) {
	t.Helper()
	rows := func(text string) []string {
		var out []string
		for _, l := range strings.Split(text, "\n") {
			l = strings.TrimSpace(l)
			if strings.HasPrefix(l, "| set | kind | cases | ranked top-1") || len(out) > 0 && strings.HasPrefix(l, "|") {
				out = append(out, l)
			} else if len(out) > 0 {
				break
			}
		}
		return out
	}
	data, err := os.ReadFile(publishedTable)
	if err != nil {
		t.Fatal(err)
	}
	got, want := rows(string(data)), rows(table)
	if !slices.Equal(got, want) {
		for i := range max(len(got), len(want)) {
			if i >= len(got) || i >= len(want) || got[i] != want[i] {
				t.Errorf("%s's routing table differs from the measured one at row %d; paste the table `go test ./router -run 'TestRoutingBaseline$' -v` prints:\n page     %q\n measured %q",
					publishedTable, i+1, at(got, i), at(want, i))
				break
			}
		}
	}
}

func at(rows []string, i int) string {
	if i < len(rows) {
		return rows[i]
	}
	return "(none)"
}
