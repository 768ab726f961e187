package router

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/agent3md/agent3md/loader"
)

// examplesDir holds the example agents.
const examplesDir = "../examples"

// setsDir holds every labelled routing set. A case's agent is a path
// relative to it: ../../examples/NAME.3md for an example agent,
// folders/… and refagents/… for agents written by others.
const setsDir = "testdata"

// readSet reads the cases of the labelled set setsDir/<file>.
func readSet(t testing.TB, file string) []evalCase {
	t.Helper()
	path := filepath.Join(setsDir, file)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the routing eval needs %s: %v", path, err)
	}
	var set struct {
		Cases []evalCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &set); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	seen := map[string]bool{}
	for i, c := range set.Cases {
		if seen[c.Agent] {
			continue
		}
		seen[c.Agent] = true
		if _, err := os.Stat(c.agentPath()); err != nil {
			t.Fatalf("%s case %d: agent %q is not a path relative to %s/ (an example agent is ../../examples/NAME.3md): %v", path, i+1, c.Agent, setsDir, err)
		}
	}
	return set.Cases
}

// agentPath is where c's agent is, from the package's directory.
func (c evalCase) agentPath() string { return filepath.Join(setsDir, c.Agent) }

// Bars from the routing set's issue: Ranked must reach them; Spec's figures
// are printed only.
const (
	minTop1       = 0.95
	maxFalseMatch = 0.10
)

type evalCase struct {
	Agent string  `json:"agent"`
	Text  string  `json:"text"`
	Want  *string `json:"want"`
	// NearMiss marks an irrelevant request that reuses a skill's words
	// for something no skill does.
	NearMiss bool `json:"nearMiss"`
}

// loadAgentSkills opens an example agent (a directory as skill folders)
// and maps its skills, bodies included, through the server's own adapter.
func loadAgentSkills(t testing.TB, path string) []Skill {
	t.Helper()
	ctx := context.Background()
	var a *loader.Agent
	var err error
	if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
		a, err = loader.OpenFolders(ctx, []string{path}, nil)
	} else {
		a, err = loader.Open(path, nil)
	}
	if err != nil {
		t.Fatalf("opening %s: %v", path, err)
	}
	defer a.Close()
	src := newRouterSkills(a)
	skills := make([]Skill, src.Len())
	for i := range skills {
		skills[i] = src.Skill(i)
	}
	err = src.EachBody(ctx, func(i int, body []byte) error {
		skills[i].Body = string(body)
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return skills
}

// tally counts one agent's results in one mode: positive cases, those
// whose first match is right and those whose first evalTopK matches hold
// the right one; irrelevant cases, those that drew any match, and the
// same two counts for the near misses among them.
type tally struct {
	pos, top1, top3, neg, falseMatch int
	nearNeg, nearFalse               int
}

// evalTopK is how far down the list top-k accuracy looks: a model reads
// a short list and picks.
const evalTopK = 3

func (t tally) top1Rate() float64  { return ratio(t.top1, t.pos) }
func (t tally) top3Rate() float64  { return ratio(t.top3, t.pos) }
func (t tally) falseRate() float64 { return ratio(t.falseMatch, t.neg) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func (t *tally) add(c evalCase, got []Match) bool {
	if c.Want == nil {
		t.neg++
		if c.NearMiss {
			t.nearNeg++
		}
		// A false match is one the router found evidence for (sure or
		// relaxed); the plain ranking's runners-up follow every request
		// with a word a skill holds, and say their fit instead.
		if len(got) > 0 && got[0].Tier != TierRunnerUp {
			t.falseMatch++
			if c.NearMiss {
				t.nearFalse++
			}
			return false
		}
		return true
	}
	t.pos++
	for i, m := range got[:min(len(got), evalTopK)] {
		if m.Name == *c.Want {
			t.top3++
			if i == 0 {
				t.top1++
				return true
			}
		}
	}
	return false
}

// merge adds o's counts to t.
func (t *tally) merge(o *tally) {
	t.pos += o.pos
	t.top1 += o.top1
	t.top3 += o.top3
	t.neg += o.neg
	t.falseMatch += o.falseMatch
	t.nearNeg += o.nearNeg
	t.nearFalse += o.nearFalse
}

// figures is the one-line summary of t the README's table holds.
func (t tally) figures() string {
	near := "–"
	if t.nearNeg > 0 {
		near = fmt.Sprintf("%d/%d", t.nearFalse, t.nearNeg)
	}
	return fmt.Sprintf("top-1 %5.1f%% (%d/%d)  top-3 %5.1f%%  false %5.1f%% (%d/%d)  near-miss false %s",
		100*t.top1Rate(), t.top1, t.pos, 100*t.top3Rate(), 100*t.falseRate(), t.falseMatch, t.neg, near)
}

// TestRoutingEval routes every labelled request of the development set
// (testdata/routing.json) in both modes, prints top-1 accuracy and
// false-match rate per agent, and holds Ranked to the bars and to never
// losing a positive case Spec gets right.
func TestRoutingEval(t *testing.T) {
	total := evalSet(t, "routing.json")
	if total == nil {
		return
	}
	r := total[Ranked]
	if r.top1Rate() < minTop1 {
		t.Errorf("ranked top-1 accuracy %.1f%% (%d/%d), below the %.0f%% bar", 100*r.top1Rate(), r.top1, r.pos, 100*minTop1)
	}
	if r.falseRate() > maxFalseMatch {
		t.Errorf("ranked false-match rate %.1f%% (%d/%d), above the %.0f%% bar", 100*r.falseRate(), r.falseMatch, r.neg, 100*maxFalseMatch)
	}
}

// TestRoutingHoldout routes the held-out set (testdata/routing-holdout.json),
// written blind after the development set had shaped the examples'
// triggers. Its figures say how routing generalises; they are printed, and
// only a floor well under the development bar is enforced, so that a
// change which makes routing generalise worse is caught.
func TestRoutingHoldout(t *testing.T) {
	holdTo(t, "held-out", "routing-holdout.json", holdoutMinTop1, false, true)
}

// TestRoutingFresh routes the second held-out set
// (testdata/routing-fresh.json), written from each skill's purpose before
// the evidence, name and command rules were made, and never tuned on. Like
// the first held-out set, its figures are printed and a floor under them
// is enforced: most of its misses are requests whose words no trigger,
// name, command or description of the right skill uses.
func TestRoutingFresh(t *testing.T) {
	holdTo(t, "fresh held-out", "routing-fresh.json", freshMinTop1, true, true)
}

// freshMinTop1 is the fresh held-out set's floor: measured 89.8% (79/88)
// when it was introduced, before and after the rules it was held back
// from, and 90.9% (80/88) with the thesaurus's synonyms (totals only).
const freshMinTop1 = 0.85

// holdoutMinTop1 is the held-out set's floor: measured 90.8% when it was
// introduced, 90.1% just before the evidence, name and command rules and
// 90.8% with them; a drop below this means routing stopped generalising.
const holdoutMinTop1 = 0.85

// holdTo routes testdata/<file> (evalSet) and holds ranked mode to a
// top-1 floor and, when asked, to the false-match bar and to getting at
// least as many cases right as spec mode. It returns the totals per mode
// (nil when the set could not be routed) for checks of a set's own.
func holdTo(t *testing.T, name, file string, floor float64, falseBar, vsSpec bool) map[Mode]*tally {
	t.Helper()
	total := evalSet(t, file)
	if total == nil {
		return nil
	}
	r, s := total[Ranked], total[Spec]
	if r.top1Rate() < floor {
		t.Errorf("%s ranked top-1 %.1f%% (%d/%d), below the %.0f%% floor", name, 100*r.top1Rate(), r.top1, r.pos, 100*floor)
	}
	if falseBar && r.falseRate() > maxFalseMatch {
		t.Errorf("%s false-match rate %.1f%% (%d/%d), above the %.0f%% bar", name, 100*r.falseRate(), r.falseMatch, r.neg, 100*maxFalseMatch)
	}
	if vsSpec && r.top1 < s.top1 {
		t.Errorf("%s: ranked gets %d cases right, fewer than spec's %d", name, r.top1, s.top1)
	}
	return total
}

// holdWithCeiling holds a set to its top-1 floor, to ranked not doing
// worse than spec, and to its own false-match ceiling, for the sets whose
// false-match rate is measured above the 10% bar; it logs both modes' totals.
func holdWithCeiling(t *testing.T, name, file string, floor, ceiling float64) {
	t.Helper()
	total := holdTo(t, name, file, floor, false, true)
	if total == nil {
		return
	}
	for _, m := range []Mode{Ranked, Spec} {
		x := total[m]
		t.Logf("%s %v: top-1 %d/%d, false %d/%d", name, m, x.top1, x.pos, x.falseMatch, x.neg)
	}
	holdFalseTo(t, name, total, ceiling)
}

// holdFalseTo holds a set's ranked false-match rate to its own ceiling,
// for the sets whose rate is measured above the 10% bar.
func holdFalseTo(t *testing.T, name string, total map[Mode]*tally, ceiling float64) {
	t.Helper()
	if r := total[Ranked]; r.falseRate() > ceiling {
		t.Errorf("%s false-match rate %.1f%% (%d/%d), above its %.0f%% ceiling", name, 100*r.falseRate(), r.falseMatch, r.neg, 100*ceiling)
	}
}

// evalSet routes every case of testdata/<file> in both modes, logs misses
// and the per-agent table, reports any positive case Ranked loses that
// Spec gets right, and returns the totals per mode. A set listed in
// blindSets is routed the same way, but only its totals are logged and
// held: its cases are not to be read while routing changes.
func evalSet(t *testing.T, file string) map[Mode]*tally {
	blind := blindSets[file]
	stats, total := runSet(t, file, func(c evalCase, spec, ranked []Match, specOK, rankedOK bool) {
		if blind {
			return
		}
		if !rankedOK {
			want := "nothing"
			if c.Want != nil {
				want = *c.Want
			}
			t.Logf("ranked miss %s %q: want %s, got %s", c.Agent, c.Text, want, brief(ranked))
		}
		// A negative case that draws a relaxed guess counts against the
		// false-match bar, not here: only positive cases can be "lost".
		if c.Want != nil && specOK && !rankedOK {
			t.Errorf("ranked loses a case spec gets right: %s %q: spec %s, ranked %s", c.Agent, c.Text, brief(spec), brief(ranked))
		}
	})
	if total == nil {
		return nil
	}
	agents := make([]string, 0, len(stats))
	for a := range stats {
		agents = append(agents, a)
	}
	sort.Strings(agents)
	t.Logf("%s", file)
	t.Logf("%-28s %6s %6s %6s   %6s %6s %6s", "agent", "spec", "", "", "ranked", "", "")
	t.Logf("%-28s %6s %6s %6s   %6s %6s %6s", "", "top-1", "top-3", "false", "top-1", "top-3", "false")
	for _, a := range append(agents, "all") {
		s, r := total[Spec], total[Ranked]
		if a != "all" {
			s, r = stats[a][Spec], stats[a][Ranked]
		}
		t.Logf("%-28s %5.1f%% %5.1f%% %5.1f%%   %5.1f%% %5.1f%% %5.1f%%", a,
			100*s.top1Rate(), 100*s.top3Rate(), 100*s.falseRate(), 100*r.top1Rate(), 100*r.top3Rate(), 100*r.falseRate())
	}
	for _, m := range []Mode{Ranked, Spec} {
		t.Logf("%s %-6s %s", file, m, total[m].figures())
	}
	return total
}

// runSet routes every case of the set testdata/<file> in both modes with the limit a model is given
// (evalLimit), calls seen with each case's answers and whether each
// mode's first match is right, and returns the counts per agent and in
// total, per mode.
func runSet(t *testing.T, file string, seen func(c evalCase, spec, ranked []Match, specOK, rankedOK bool)) (map[string]map[Mode]*tally, map[Mode]*tally) {
	t.Helper()
	routers := map[string]*Router{}
	stats := map[string]map[Mode]*tally{}
	total := map[Mode]*tally{Spec: {}, Ranked: {}}
	for _, c := range readSet(t, file) {
		r, ok := routers[c.Agent]
		if !ok {
			r = newTest(t, loadAgentSkills(t, c.agentPath()), nil)
			routers[c.Agent] = r
			stats[c.Agent] = map[Mode]*tally{Spec: {}, Ranked: {}}
		}
		spec := route(t, r, c.Text, &Query{Mode: Spec, Limit: evalLimit})
		ranked := route(t, r, c.Text, &Query{Mode: Ranked, Limit: evalLimit})
		specOK := stats[c.Agent][Spec].add(c, spec)
		total[Spec].add(c, spec)
		rankedOK := stats[c.Agent][Ranked].add(c, ranked)
		total[Ranked].add(c, ranked)
		if seen != nil {
			seen(c, spec, ranked, specOK, rankedOK)
		}
	}
	return stats, total
}

// evalLimit is the limit the eval routes with: the answer a model gets
// by default. (Before issue 24 the eval routed with no limit; a route
// then had no runners-up, so its first three matches were the same.)
const evalLimit = DefaultLimit

func brief(ms []Match) string {
	if len(ms) == 0 {
		return "nothing"
	}
	out := ""
	for i, m := range ms {
		if i == 3 {
			return out + " ..."
		}
		if i > 0 {
			out += ", "
		}
		b, _ := json.Marshal(m.Hits)
		out += m.Name + " (" + m.Tier + " " + string(b) + ")"
	}
	return out
}

// TestRoutingBlind routes the third held-out set
// (testdata/routing-blind.json): 93 requests and 20 irrelevant ones,
// written from each skill's name, description and body with its trigger
// lists out of sight, and committed before any routing change was tried
// against it. It measured 83.9% ranked (59.1% spec), 5% false matches;
// the floor sits under that, and the false-match bar holds.
func TestRoutingBlind(t *testing.T) {
	holdTo(t, "blind held-out", "routing-blind.json", blindMinTop1, true, true)
}

const blindMinTop1 = 0.80

// TestRoutingDev2 routes a second development set
// (testdata/routing-dev2.json) aimed at the two shapes of miss left: a
// generic word tying a specific one, and a request that names only the
// skill's command or words of its body. It may be tuned on; its floor
// keeps what routing reaches there from sliding back.
func TestRoutingDev2(t *testing.T) {
	holdTo(t, "dev2", "routing-dev2.json", dev2MinTop1, true, false)
}

// dev2MinTop1 is its floor: measured 62.1% before the command rule and the challenge,
// 64.5% with them, 72.6% with the thesaurus's synonyms, 76.6% with its one-way groups of tool names.
const dev2MinTop1 = 0.70

// TestRoutingBlind2 routes the fourth held-out set
// (testdata/routing-blind2.json): 90 requests over every skill of the four
// example agents and 18 irrelevant ones, written from each skill's
// purpose (its description and body, triggers out of sight) with varied
// phrasing: object nouns, command names, symptoms and synonyms. It was
// committed before the routing changes it measures, and only its totals
// were read while they were made.
func TestRoutingBlind2(t *testing.T) {
	holdTo(t, "blind2 held-out", "routing-blind2.json", blind2MinTop1, true, true)
}

// blind2MinTop1 is its floor: measured 86.7% ranked (62.2% spec), no false
// match, when it was committed, and 87.8% (79/90), no false match, once,
// after the command rule, the -ise folding and the challenge of a
// stem-only leader; 90.0% (81/90), no false match, with typing slips and
// synonyms (totals only).
const blind2MinTop1 = 0.84

// TestRoutingBlind3 routes the fifth held-out set
// (testdata/routing-blind3.json): 90 requests, two for each of the 45
// skills of the four example agents, and 20 irrelevant ones (near misses
// that share words with skills among them), written from each skill's
// purpose with its triggers out of sight and with fresh phrasing. It was
// committed before any routing figure was taken on it.
//
// Ranked mode is held to a top-1 floor and to getting at least as many
// cases right as spec mode, as for blind2. Its false-match rate measured
// far above the 10% bar, so it is held to its own ceiling instead (a
// drift upwards is caught) until a routing change brings it under the
// bar; then this test should move to holdTo with falseBar set.
func TestRoutingBlind3(t *testing.T) {
	holdWithCeiling(t, "blind3 held-out", "routing-blind3.json", blind3MinTop1, blind3MaxFalseMatch)
}

// blind3MinTop1 is its top-1 floor and blind3MaxFalseMatch its
// false-match ceiling. Measured once, when the set was committed and
// before any routing change was measured on it: ranked top-1 95.6%
// (86/90), spec top-1 73.3% (66/90); false matches 30.0% (6/20) ranked,
// 10.0% (2/20) spec. Totals since (its misses unread): 94.4% with typing
// slips (the one slip it holds, "relase", is read right and then hits
// another skill's "release" phrase), 93.3% with synonyms; false matches
// unchanged. Only the corrected word pairs of the held-out sets were
// looked at, to check the slips were slips.
const (
	blind3MinTop1       = 0.92
	blind3MaxFalseMatch = 0.35
)

// TestRoutingBlind4 routes the fifth held-out set over the example agents
// (testdata/routing-blind4.json): 104 requests over all 45 skills and 20
// irrelevant ones, written by a helper blind to the triggers, the
// thesaurus, the router and every other set, and committed before any
// run. Half of its requests name a tool, library, product or piece of
// jargon instead of the generic word ("a seaborn barplot of weekly
// signups"), half of its irrelevant ones name a tool in a non-task sense
// ("how do you pronounce kubectl"): it measures the thesaurus's one-way
// groups, which were written before it, on requests they were not tuned
// on.
func TestRoutingBlind4(t *testing.T) {
	holdWithCeiling(t, "blind4 held-out", "routing-blind4.json", blind4MinTop1, blind4MaxFalseMatch)
}

// blind4MinTop1 is its top-1 floor and blind4MaxFalseMatch its
// false-match ceiling, set from the one run made when the test was added
// (its misses unread): ranked top-1 86.5% (90/104), spec 58.7%; false
// matches 60% (12/20) ranked, 40% (8/20) spec, whose trigger phrases
// its everyday near misses say ("scale a recipe"). The same run on the
// commit before the one-way groups: 83.7% top-1, 50% false, so on
// requests they were not written for the groups gained three right
// answers and two false matches (a tool named in a non-task sense).
// Then, from a development set of such names (routing-nearmiss-tools.json),
// a tool name came to need two words beside it and one written word not
// among the commonest: 86.5% and 50%, one total read.
const (
	blind4MinTop1       = 0.84
	blind4MaxFalseMatch = 0.65
)

// TestRoutingNearMiss routes two development sets of requests no skill
// handles (testdata/routing-nearmiss.json over the example agents,
// testdata/routing-folders-nearmiss.json over the skill folders): office
// chores, accounts and small talk that share a word or two with a skill.
// They were written before anything was measured on them, to watch false
// matches, which the positive sets hold too few of to show. Every false
// match they drew when committed was a relaxed match on two everyday
// words ("remind me to renew the database license next month" → forecast
// on "next", "month"); ceilings just over those figures keep a rule that
// lets more through from landing unnoticed. A third
// (testdata/routing-nearmiss-tools.json) says tool and product names in a
// non-task sense ("what does the Intercom logo look like"), for the
// thesaurus's tool-name groups.
func TestRoutingNearMiss(t *testing.T) {
	for _, c := range []struct {
		file    string
		ceiling float64
	}{
		{"routing-nearmiss.json", nearMissMaxFalse},
		{"routing-folders-nearmiss.json", foldersNearMissMaxFalse},
		{"routing-nearmiss-tools.json", toolsNearMissMaxFalse},
	} {
		total := evalSet(t, c.file)
		if total == nil {
			continue
		}
		holdFalseTo(t, c.file, total, c.ceiling)
	}
}

// nearMissMaxFalse and foldersNearMissMaxFalse are the near-miss sets'
// ceilings: measured 10.4% (5/48) and 5.6% (1/18) ranked, 0% spec, when
// committed. toolsNearMissMaxFalse is the tool-name set's: 23.8% (10/42)
// ranked, 4.8% spec, when committed; 14.3% (6/42) once a tool name
// needed two words beside it even where it covers two phrases, and a
// written word not among the commonest beside it (relaxedEvidence). The
// six left are a trigger phrase said ("the history of Linux"), a stem
// shared with a trigger ("project"/"projection", "fire"/"firing"), a
// command's binary named ("DuckDB") and two everyday words ("VS Code
// theme").
const (
	nearMissMaxFalse        = 0.12
	foldersNearMissMaxFalse = 0.10
	toolsNearMissMaxFalse   = 0.16
)

// TestRoutingKefuDev routes the development set of the Chinese example
// agent (testdata/routing-kefu-dev.json): 32 requests over its 8 skills
// and 8 irrelevant ones, written with its triggers in view. It measures
// routing where words are not separated by spaces: trigger phrases found
// inside an unspaced request, and the relaxed tier's character pairs.
func TestRoutingKefuDev(t *testing.T) {
	holdWithCeiling(t, "kefu dev", "routing-kefu-dev.json", kefuDevMinTop1, kefuDevMaxFalseMatch)
}

// kefuDevMinTop1 and kefuDevMaxFalseMatch: measured 93.8% (30/32) ranked
// top-1 and 2/8 false matches when the set was written, before any
// change; spec mode, the reference's whitespace reading, matches none of
// these unspaced requests. The two false matches are the generic-word
// kind the English sets have ("快递员一个月能挣多少钱" hits 快递).
const (
	kefuDevMinTop1       = 0.90
	kefuDevMaxFalseMatch = 0.25
)

// TestRoutingKefuBlind routes the held-out set of the Chinese example agent
// (testdata/routing-kefu-blind.json): 40 requests, five for each of its 8
// skills, and 12 irrelevant ones, written by a helper from each skill's
// name and purpose with the triggers, the agent and every other set
// unseen, and committed before any run.
func TestRoutingKefuBlind(t *testing.T) {
	holdWithCeiling(t, "kefu held-out", "routing-kefu-blind.json", kefuBlindMinTop1, kefuBlindMaxFalseMatch)
}

// kefuBlindMinTop1 and kefuBlindMaxFalseMatch: measured once, when the
// test was added and before any routing change was made with it in view:
// ranked top-1 70.0% (28/40), false matches 3/12 (spec 1/40, 0/12). Most
// misses find nothing: the request describes the situation ("显示已签收
// 可我根本没拿到") in words only the skill's body holds, and bodies are not
// indexed; one was written in traditional characters. The false matches
// are the generic-word kind (快递, 发票, 优惠券 in a non-task sense).
// Since: 72.5% (29/40) with requests read in the agent's Chinese script
// (request.go), a general reading made knowing that one miss was of that
// kind. The trigger revision of kefu.3md against routing-kefu-dev3.json
// (buyers' own words: 物流不动, 七天无理由, 改寄, 叠加) brought a fourth
// relaxed false match (a near miss that says a new trigger's word) and
// kept top-1 at 95.0%: the ceiling holds 4/12.
const (
	kefuBlindMinTop1       = 0.65
	kefuBlindMaxFalseMatch = 0.34
)
