package cases

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/router"
)

// fakeRoute answers from a table: request -> matches.
func fakeRoute(answers map[string][]router.Match) RouteFunc {
	return func(_ context.Context, text string) ([]router.Match, error) {
		if text == "boom" {
			return nil, errors.New("route failed")
		}
		return answers[text], nil
	}
}

func m(name, tier string) router.Match {
	return router.Match{Name: name, Tier: tier, Hits: []string{"w"}}
}

func TestRunScores(t *testing.T) {
	answers := map[string][]router.Match{
		"first":    {m("a", router.TierPhrase), m("b", router.TierRelaxed)},
		"second":   {m("b", router.TierName), m("a", router.TierRelaxed), m("c", router.TierRelaxed), m("d", router.TierRelaxed)},
		"fourth":   {m("b", router.TierPhrase), m("c", router.TierRelaxed), m("d", router.TierRelaxed), m("a", router.TierRelaxed)},
		"none":     nil,
		"falsehit": {m("c", router.TierRelaxed)},
		"guesses":  {m("c", router.TierRunnerUp), m("d", router.TierRunnerUp)},
		"late":     {m("b", router.TierDescribed), m("c", router.TierRelaxed), m("d", router.TierRunnerUp), m("a", router.TierRunnerUp)},
	}
	cs := []Case{
		{Line: 1, Request: "first", Expect: "a"},
		{Line: 2, Request: "second", Expect: "a"},
		{Line: 3, Request: "fourth", Expect: "a"},
		{Line: 4, Request: "none"},
		{Line: 5, Request: "falsehit"},
		{Line: 6, Request: "none", Expect: "a"},
		{Line: 7, Request: "guesses"},
		{Line: 8, Request: "late", Expect: "a"},
	}
	rs, err := Run(context.Background(), cs, fakeRoute(answers), &Options{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []struct {
		rank int
		pass bool
		n    int
		tier string
	}{{1, true, 2, Sure}, {2, false, 3, Sure}, {0, false, 3, Sure}, {0, true, 0, ""}, {0, false, 1, Relaxed}, {0, false, 0, ""}, {0, true, 2, RunnerUp}, {0, false, 3, Sure}} {
		r := rs[i]
		if r.Rank != w.rank || r.Pass != w.pass || len(r.Matches) != w.n || (w.n > 0 && r.Matches[0].Tier != w.tier) {
			t.Errorf("case %d: rank %d pass %v %d matches %+v; want rank %d pass %v %d matches, first %s", i+1, r.Rank, r.Pass, len(r.Matches), r.Matches, w.rank, w.pass, w.n, w.tier)
		}
	}
	s := Summarize(rs)
	// "guesses" drew only runner-ups: no false match; "late" has its
	// skill fourth, past top-3.
	want := Summary{Cases: 8, Positive: 5, Top1: 1, Top3: 2, Negative: 3, False: 1, Top1Rate: 0.2, Top3Rate: 0.4, FalseRate: 1.0 / 3}
	if s != want {
		t.Errorf("summary %+v, want %+v", s, want)
	}
}

func TestRunError(t *testing.T) {
	cs := []Case{{Line: 1, Request: "first", Expect: "a"}, {Line: 7, Request: "boom", Expect: "a"}}
	_, err := Run(context.Background(), cs, fakeRoute(nil), nil)
	if err == nil || !strings.Contains(err.Error(), "line 7") {
		t.Fatalf("got %v, want the failing case's line", err)
	}
}

func TestProgress(t *testing.T) {
	cs := make([]Case, 50)
	for i := range cs {
		cs[i] = Case{Line: i + 1, Request: "none"}
	}
	last, calls := 0, 0
	_, err := Run(context.Background(), cs, fakeRoute(nil), &Options{Workers: 4, Progress: func(done, total int) {
		calls++
		if done != last+1 || total != 50 {
			t.Errorf("progress %d/%d after %d", done, total, last)
		}
		last = done
	}})
	if err != nil || calls != 50 {
		t.Fatalf("err %v, %d calls", err, calls)
	}
}

func report(pass ...bool) *Report {
	r := &Report{Agent: "a.3md", File: "c.tsv"}
	for i, p := range pass {
		res := Result{Case: Case{Line: i + 1, Request: "req " + string(rune('a'+i)), Expect: "x"}, Pass: p}
		if p {
			res.Rank, res.Matches = 1, []Hit{{Name: "x", Tier: Sure}}
		} else {
			res.Matches = []Hit{{Name: "y", Tier: Relaxed}}
		}
		r.Results = append(r.Results, res)
	}
	r.Summary = Summarize(r.Results)
	return r
}

func TestCompare(t *testing.T) {
	old := report(true, false, true, false)
	now := report(true, true, false, false)
	// Reordered and one more case: pairing is by request, not line.
	now.Results[0], now.Results[3] = now.Results[3], now.Results[0]
	now.Results = append(now.Results, Result{Case: Case{Line: 9, Request: "new one", Expect: "x"}})
	d := Compare(old, now)
	if len(d.Fixed) != 1 || d.Fixed[0].Request != "req b" || d.Fixed[0].Was != "y" || d.Fixed[0].Now != "x" {
		t.Errorf("fixed %+v", d.Fixed)
	}
	if len(d.Broken) != 1 || d.Broken[0].Request != "req c" {
		t.Errorf("broken %+v", d.Broken)
	}
	if d.Added != 1 || d.Gone != 0 {
		t.Errorf("added %d gone %d", d.Added, d.Gone)
	}
	var b bytes.Buffer
	d.WriteText(&b, "c.tsv")
	if !strings.Contains(b.String(), "fixed   c.tsv:2  req b  (y -> x)") || !strings.Contains(b.String(), "1 fixed, 1 broken, 1 new") {
		t.Errorf("text:\n%s", b.String())
	}
}

func TestJSONRoundTrip(t *testing.T) {
	r := report(true, false)
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	back, err := ReadReport(&b, "old.json")
	if err != nil {
		t.Fatal(err)
	}
	if d := Compare(r, back); len(d.Fixed)+len(d.Broken)+d.Added+d.Gone != 0 {
		t.Errorf("a report compared with itself read back: %+v", d)
	}
	if _, err := ReadReport(strings.NewReader(`{"agent": "x"}`), "old.json"); err == nil || !strings.Contains(err.Error(), "eval --json") {
		t.Errorf("a report without cases: %v", err)
	}
}

func TestJUnit(t *testing.T) {
	var b bytes.Buffer
	if err := report(true, false).WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	var s junitSuite
	if err := xml.Unmarshal(b.Bytes(), &s); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if s.Tests != 2 || s.Failures != 1 || s.Cases[1].Failure == nil || !strings.Contains(s.Cases[1].Failure.Message, "want x") {
		t.Errorf("suite %+v", s)
	}
}

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	r := report(true, false)
	if err := r.WriteText(&b, true); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "PASS") || !strings.Contains(out, "FAIL  c.tsv:2  req b\n      want x (not in the top 3); got 1. y [relaxed]") ||
		!strings.Contains(out, "2 cases: top-1 50.0% (1/2), top-3 50.0% (1/2)") {
		t.Errorf("text:\n%s", out)
	}
}
