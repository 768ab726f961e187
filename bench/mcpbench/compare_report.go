package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// cmpCell is one contender's median for one metric, when it has samples.
type cmpCell struct {
	value float64
	ok    bool
}

// cell returns the median of who's samples of key.
func (s samples) cell(who, key string) cmpCell {
	v := s[who][key]
	if len(v) == 0 {
		return cmpCell{}
	}
	return cmpCell{value: median(v), ok: true}
}

// ratio is ours / reference: under 1 means ours is faster or smaller. It
// is absent when either side has no median or the reference's is zero.
func ratio(ours, ref cmpCell) (float64, bool) {
	if !ours.ok || !ref.ok || ref.value == 0 {
		return 0, false
	}
	return ours.value / ref.value, true
}

// formatRatio shows a ratio with two significant decimals, or a dash.
func formatRatio(ours, ref cmpCell) string {
	q, ok := ratio(ours, ref)
	if !ok {
		return "—"
	}
	if q >= 10 {
		return fmt.Sprintf("%.1f×", q)
	}
	return fmt.Sprintf("%.2f×", q)
}

// formatCell shows a median in its metric's unit, or a dash.
func formatCell(m metric, c cmpCell) string {
	if !c.ok {
		return "—"
	}
	return fmt.Sprintf(m.format+" %s", c.value, m.unit)
}

// writeCompare prints one table row per size and metric: our median, the
// reference's and their ratio, then every failure.
func writeCompare(w io.Writer, o *options, results []*cmpResult) error {
	refName := "none (pass -ref 'CMD' to compare)"
	switch {
	case o.ref != "":
		refName = o.ref + " FILE"
	case o.ab != "":
		refName = o.ab + " (-ab: another agent3md build, measured as ours)"
	}
	fmt.Fprintf(w, "agent3md vs reference over stdio: medians of %d runs (cold: %d); requests pipelined, one kind at a time,\n", o.runs, o.coldRuns)
	fmt.Fprintf(w, "each timed burst aimed at %v (%d–%d requests) after %d untimed ones, from %v after the handshake and one route;\nratio = ours / reference\n",
		o.burst, warmupRequests, o.requests, warmupRequests, o.settle)
	fmt.Fprintf(w, "reference: %s\n\n", refName)
	floor := false
	for _, r := range results {
		floor = floor || len(r.Samples["floor"]) > 0
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if floor {
		fmt.Fprintln(tw, "skills\tmeasure\tours\treference\tratio\tfloor\tours / floor\t")
	} else {
		fmt.Fprintln(tw, "skills\tmeasure\tours\treference\tratio\t")
	}
	for _, r := range results {
		for _, m := range compareMetrics {
			us, ref := r.Samples.cell("ours", m.key), r.Samples.cell("reference", m.key)
			if !us.ok && !ref.ok {
				continue
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t", r.Size, m.label, formatCell(m, us), formatCell(m, ref), formatRatio(us, ref))
			if floor {
				fl := r.Samples.cell("floor", m.key)
				fmt.Fprintf(tw, "%s\t%s\t", formatCell(m, fl), formatRatio(us, fl))
			}
			fmt.Fprintln(tw)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if floor {
		fmt.Fprintln(w, "\nfloor: mcpbench itself answering every request from memory with the answers ours gave")
		fmt.Fprintln(w, "(the first 64 of each kind, in turn): what ours' bytes cost the pipe and this client.")
	}
	fmt.Fprintln(w, "\nours serves from a pre-built cache (agent3md index) except in the cold rows, which start")
	fmt.Fprintln(w, "with an empty --cache-dir; \"all requests\" RSS is the serving process after every burst.")
	for _, r := range results {
		for _, who := range []string{"ours", "reference"} {
			if n := r.Misses[who]; n > 0 {
				fmt.Fprintf(w, "\nsize %d: %d route_skill answers of %s matched no skill\n", r.Size, n, who)
			}
		}
		for _, e := range r.Errors {
			fmt.Fprintf(w, "\nFAILED size %d: %s\n", r.Size, strings.TrimSpace(e))
		}
	}
	return nil
}

// writeCompareJSON prints every sample with the medians and ratios.
func writeCompareJSON(w io.Writer, results []*cmpResult) error {
	type out struct {
		*cmpResult
		Medians []medianRow `json:"medians"`
	}
	all := make([]out, len(results))
	for i, r := range results {
		all[i].cmpResult = r
		for _, m := range compareMetrics {
			if row, ok := newMedianRow(m, 0, func(who string) cmpCell { return r.Samples.cell(who, m.key) }); ok {
				all[i].Medians = append(all[i].Medians, row)
			}
		}
	}
	return writeIndentedJSON(w, all)
}

// medianRow is one metric's medians in a JSON report: ours, the
// reference's, their ratio and, in the folder mode, the goal and the
// floor server's.
type medianRow struct {
	Metric    string   `json:"metric"`
	Unit      string   `json:"unit"`
	Ours      *float64 `json:"ours"`
	Reference *float64 `json:"reference"`
	Ratio     *float64 `json:"ratio"`
	Goal      *float64 `json:"goal,omitempty"`
	Floor     *float64 `json:"floor,omitempty"`
}

// newMedianRow builds m's row from cell (who → median); false when
// neither ours nor the reference has samples.
func newMedianRow(m metric, goal float64, cell func(who string) cmpCell) (medianRow, bool) {
	us, ref := cell("ours"), cell("reference")
	if !us.ok && !ref.ok {
		return medianRow{}, false
	}
	q, ok := ratio(us, ref)
	row := medianRow{Metric: m.key, Unit: m.unit, Ours: optCell(us), Reference: optCell(ref),
		Ratio: optCell(cmpCell{q, ok}), Floor: optCell(cell("floor"))}
	if goal > 0 {
		row.Goal = &goal
	}
	return row, true
}

// optCell is c's value, or nil (JSON null) when it has none.
func optCell(c cmpCell) *float64 {
	if !c.ok {
		return nil
	}
	return &c.value
}

func writeIndentedJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
