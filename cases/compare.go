package cases

import (
	"fmt"
	"io"
	"strconv"
)

// Change is one case whose verdict differs between two reports.
type Change struct {
	Line    int    `json:"line"`
	Request string `json:"request"`
	Expect  string `json:"expect,omitempty"`
	// Was and Now are the first match's name before and after ("" for
	// none).
	Was string `json:"was"`
	Now string `json:"now"`
}

// Diff is what a change did to a set of cases: those it fixed (failed
// before, pass now), those it broke (passed before, fail now), and the
// cases only one side has.
type Diff struct {
	Fixed  []Change `json:"fixed"`
	Broken []Change `json:"broken"`
	Added  int      `json:"added"`   // cases the old report lacks
	Gone   int      `json:"removed"` // cases the new report lacks
}

// caseKey matches a case across two runs: its request and expectation,
// and which occurrence of that pair it is (a file may repeat a request).
type caseKey struct {
	request, expect string
	n               int
}

// keys returns each result's key, in order, and the results by key.
func keys(rs []Result) ([]caseKey, map[caseKey]*Result) {
	order := make([]caseKey, len(rs))
	m := make(map[caseKey]*Result, len(rs))
	seen := map[[2]string]int{}
	for i := range rs {
		p := [2]string{rs[i].Request, rs[i].Expect}
		seen[p]++
		order[i] = caseKey{p[0], p[1], seen[p]}
		m[order[i]] = &rs[i]
	}
	return order, m
}

// Compare says which cases of now changed verdict since old. Cases are
// matched by request and expected skill, not by line, so editing or
// reordering the file keeps them paired.
func Compare(old, now *Report) Diff {
	d := Diff{Fixed: []Change{}, Broken: []Change{}}
	_, before := keys(old.Results)
	order, after := keys(now.Results)
	for i, k := range order {
		r := &now.Results[i]
		o, ok := before[k]
		if !ok {
			d.Added++
			continue
		}
		c := Change{Line: r.Line, Request: r.Request, Expect: r.Expect, Was: first(o), Now: first(r)}
		switch {
		case !o.Pass && r.Pass:
			d.Fixed = append(d.Fixed, c)
		case o.Pass && !r.Pass:
			d.Broken = append(d.Broken, c)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			d.Gone++
		}
	}
	return d
}

func first(r *Result) string {
	if len(r.Matches) == 0 {
		return ""
	}
	return r.Matches[0].Name
}

// WriteText prints the diff: each fixed and broken case with what came
// first before and now, then the counts.
func (d Diff) WriteText(w io.Writer, file string) {
	for _, c := range d.Fixed {
		fmt.Fprintf(w, "fixed   %s:%d  %s  (%s -> %s)\n", file, c.Line, c.Request, orNone(c.Was), orNone(c.Now))
	}
	for _, c := range d.Broken {
		fmt.Fprintf(w, "broken  %s:%d  %s  (%s -> %s)\n", file, c.Line, c.Request, orNone(c.Was), orNone(c.Now))
	}
	fmt.Fprintf(w, "compared with the old report: %d fixed, %d broken", len(d.Fixed), len(d.Broken))
	if d.Added > 0 || d.Gone > 0 {
		fmt.Fprintf(w, ", %s new, %s no longer in the file", strconv.Itoa(d.Added), strconv.Itoa(d.Gone))
	}
	fmt.Fprintln(w)
}

func orNone(s string) string {
	if s == "" {
		return "no match"
	}
	return s
}
