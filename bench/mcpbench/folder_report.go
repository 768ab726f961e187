package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// formatGoal shows the goal for a ratio and whether the median
// meets it: "≤ 0.10× met", "≤ 0.05× MISSED", or "" without a goal or a
// ratio.
func formatGoal(goal float64, ours, ref cmpCell) string {
	q, ok := ratio(ours, ref)
	if goal == 0 || !ok {
		return ""
	}
	verdict := "met"
	if q > goal {
		verdict = "MISSED"
	}
	return fmt.Sprintf("≤ %.2f× %s", goal, verdict)
}

// writeFolders prints one row per folder and metric: our median, the
// reference's, their ratio and the goal, then every failure.
func writeFolders(w io.Writer, o *options, results []*folderResult) error {
	ref := "none (pass -ref-folder 'CMD' to compare)"
	if o.refFolder != "" {
		ref = o.refFolder + " DIR"
	}
	fmt.Fprintf(w, "agent3md vs reference serving skill folders over stdio: medians of %d runs (cold: %d); ratio = ours / reference\n", o.runs, o.coldRuns)
	fmt.Fprintf(w, "read, ping = median of %d sequential round trips after %d untimed ones, from the request's write to the\n", o.reads, readWarmup)
	fmt.Fprintln(w, "arrival of the whole answer line (the client's JSON decoding is not counted)")
	fmt.Fprintf(w, "reference: %s\n\n", ref)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "folder\tmeasure\tours\treference\tratio\tgoal\t"
	if o.floor {
		head += "floor\tfloor / reference\t"
	}
	fmt.Fprintln(tw, head)
	for _, r := range results {
		for _, m := range folderMetrics {
			us, them := r.Samples.cell("ours", m.key), r.Samples.cell("reference", m.key)
			if !us.ok && !them.ok {
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t", r.Name, m.label, formatCell(m.metric, us), formatCell(m.metric, them),
				formatRatio(us, them), formatGoal(m.goal, us, them))
			if o.floor {
				f := r.Samples.cell("floor", m.key)
				fmt.Fprintf(tw, "%s\t%s\t", formatCell(m.metric, f), formatRatio(f, them))
			}
			fmt.Fprintln(tw)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nours serves the reads from a cache a first route filled; the cold rows start with an empty --cache-dir.")
	if o.floor {
		fmt.Fprintln(w, "floor: mcpbench itself as the least stdio server (one goroutine, answers from memory); no server's")
		fmt.Fprintln(w, "round trip through this client on this machine goes under it, so floor / reference bounds every ratio.")
	}
	for _, r := range results {
		if r.Dir != "" {
			fmt.Fprintf(w, "\n%s: %s, %d SKILL.md files; read skill://%s", r.Name, r.Dir, r.Skills, r.Skill)
			for _, who := range []string{"ours", "reference"} {
				if n, ok := r.ReadBytes[who]; ok {
					fmt.Fprintf(w, "; %s answered %d bytes", who, n)
				}
			}
			fmt.Fprintln(w)
		}
		for _, e := range r.Errors {
			fmt.Fprintf(w, "\nFAILED %s: %s\n", r.Name, strings.TrimSpace(e))
		}
	}
	return nil
}

// writeFolderJSON prints every sample with the medians, ratios and goals.
func writeFolderJSON(w io.Writer, results []*folderResult) error {
	type out struct {
		*folderResult
		Medians []medianRow `json:"medians"`
	}
	all := make([]out, len(results))
	for i, r := range results {
		all[i].folderResult = r
		for _, m := range folderMetrics {
			if row, ok := newMedianRow(m.metric, m.goal, func(who string) cmpCell { return r.Samples.cell(who, m.key) }); ok {
				all[i].Medians = append(all[i].Medians, row)
			}
		}
	}
	return writeIndentedJSON(w, all)
}
