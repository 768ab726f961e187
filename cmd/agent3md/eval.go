package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/agent3md/agent3md/cases"
	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/mcp"
	"github.com/agent3md/agent3md/router"
)

// evalFlags are eval's options.
type evalFlags struct {
	asJSON, junit, failedOnly  bool
	minTop1, minTop3, maxFalse float64
	compare                    string
	limits                     cases.Limits
}

// progressMinCases is the set size from which eval draws a progress bar
// (on a terminal only): below it the run is over before a bar is read.
const progressMinCases = 200

func (a *app) evalCmd() *cobra.Command {
	var f evalFlags
	c := &cobra.Command{
		Use:   "eval FILE|DIR CASES",
		Short: "Test routing against hand-written cases: which request reaches which skill",
		Long: `eval routes each case of CASES exactly as the MCP route_skill tool does (the
same index, ranking and default limit of 3) and prints, per case, PASS or
FAIL with the top 3 matches and their tiers ("sure": a trigger phrase or the
skill's name matched; "relaxed": only shared words), then the top-1, top-3
and false-match rates.

CASES is TSV, one case a line: the request, a tab, the skill it should
reach, or - when no skill should match. A file named *.jsonl holds one JSON
object a line instead: {"request": "…", "expect": "skill"} ("expect": null
for none). Blank lines and lines starting with # are skipped. A case passes
when its skill comes first, or, expecting none, when nothing matches.

Exit status: 0 when every case passes, or, given --min-top1, --min-top3 or
--max-false, when every bar given is met; 1 when not; 2 when the agent or
the cases file cannot be read (an error names the file, line and fix).`,
		Example: `  agent3md eval examples/devtools.3md examples/devtools.cases.tsv
  agent3md eval ~/.claude/skills my-cases.tsv --min-top1 0.9 --max-false 0.1
  agent3md eval --json agent.3md cases.tsv > before.json   # then edit, and:
  agent3md eval --compare before.json agent.3md cases.tsv`,
		Args: args(cobra.ExactArgs(2)),
		RunE: func(c *cobra.Command, args []string) error {
			return a.eval(c.Context(), args[0], args[1], &f)
		},
	}
	fs := c.Flags()
	fs.BoolVar(&f.asJSON, "json", false, "print the results as JSON (the input of --compare)")
	fs.BoolVar(&f.junit, "junit", false, "print the results as JUnit XML, for CI test reports")
	fs.BoolVar(&f.failedOnly, "failed", false, "list only the cases that fail (the rates still count all)")
	fs.Float64Var(&f.minTop1, "min-top1", -1, "exit 1 when fewer than this share of the cases that expect a skill get it first (0 to 1)")
	fs.Float64Var(&f.minTop3, "min-top3", -1, "exit 1 when fewer than this share get their skill in the top 3 (0 to 1)")
	fs.Float64Var(&f.maxFalse, "max-false", -1, "exit 1 when more than this share of the cases that expect no skill draw a match (0 to 1)")
	fs.StringVar(&f.compare, "compare", "", "a previous `eval --json` output: list the cases fixed and broken since")
	fs.IntVar(&f.limits.MaxCases, "max-cases", cases.DefaultMaxCases, "the most cases CASES may hold")
	fs.IntVar(&f.limits.MaxLineBytes, "max-case-bytes", cases.DefaultMaxLineBytes, "the longest line CASES may hold, in bytes")
	a.addLimitFlags(fs)
	a.addCacheFlags(fs)
	return c
}

// bars checks the threshold flags and says whether any was given.
func (f *evalFlags) bars() (bool, error) {
	given := false
	for _, b := range []struct {
		name string
		v    float64
	}{{"--min-top1", f.minTop1}, {"--min-top3", f.minTop3}, {"--max-false", f.maxFalse}} {
		if b.v == -1 {
			continue
		}
		if b.v < 0 || b.v > 1 {
			return false, ioError(fmt.Errorf("%s %g: give a share from 0 to 1 (0.9 is 90%%)", b.name, b.v))
		}
		given = true
	}
	if f.asJSON && f.junit {
		return false, ioError(fmt.Errorf("--json and --junit both print the results: pick one"))
	}
	if f.limits.MaxCases < 1 || f.limits.MaxLineBytes < 1 {
		return false, ioError(fmt.Errorf("--max-cases and --max-case-bytes must be 1 or more"))
	}
	return given, nil
}

func (a *app) eval(ctx context.Context, agentArg, casesPath string, f *evalFlags) error {
	withBars, err := f.bars()
	if err != nil {
		return err
	}
	var old *cases.Report
	if f.compare != "" {
		if old, err = readReport(f.compare); err != nil {
			return ioError(err)
		}
	}
	cs, err := cases.ReadFile(casesPath, f.limits)
	if err != nil {
		return ioError(err)
	}
	a.useCache = true
	return a.withAgent(agentArg, func(ag *loader.Agent) error {
		if err := knownSkills(ag, casesPath, cs); err != nil {
			return ioError(err)
		}
		rep, err := a.runCases(ctx, ag, cs)
		if err != nil {
			return err
		}
		rep.Agent, rep.File = agentArg, casesPath
		if err := a.printEval(rep, old, f); err != nil {
			return ioError(err)
		}
		if !evalPassed(rep, f, withBars) {
			return silent(exitInvalid)
		}
		return nil
	})
}

// runCases routes every case through the route_skill path: the index
// router.ForAgent builds for `route` and the MCP server, and
// mcp.RouteQuery.
func (a *app) runCases(ctx context.Context, ag *loader.Agent, cs []cases.Case) (*cases.Report, error) {
	r, err := router.ForAgent(ctx, ag, a.routerOptions(ag))
	if err != nil {
		return nil, ioError(fmt.Errorf("building the routing index: %w", err))
	}
	defer r.Close()
	var opts cases.Options
	if f, ok := a.rawStderr.(*os.File); ok && len(cs) >= progressMinCases && term.IsTerminal(int(f.Fd())) {
		opts.Progress = caseProgress(f)
	}
	res, err := cases.Run(ctx, cs, func(ctx context.Context, text string) ([]router.Match, error) {
		return r.Route(ctx, text, mcp.RouteQuery())
	}, &opts)
	if err != nil {
		return nil, ioError(err)
	}
	return &cases.Report{Results: res, Summary: cases.Summarize(res)}, nil
}

// caseProgress draws a bar on a terminal's stderr as cases finish.
func caseProgress(f *os.File) func(done, total int) {
	last := -1
	return func(done, total int) {
		pct := done * 100 / total
		if pct == last {
			return
		}
		last = pct
		const width = 40
		fmt.Fprintf(f, "\rrouting cases [%-*s] %3d%% %d/%d", width, strings.Repeat("=", pct*width/100), pct, done, total)
		if done >= total {
			fmt.Fprint(f, "\r\033[K") // the bar goes: the results follow on stdout
		}
	}
}

// knownSkills refuses a case that expects a skill the agent does not
// have: it could never pass, and it is most often a typo.
func knownSkills(ag *loader.Agent, file string, cs []cases.Case) error {
	names := map[string]bool{}
	for _, n := range ag.SkillNames() {
		names[n] = true
	}
	for _, c := range cs {
		if c.Expect == "" || names[c.Expect] {
			continue
		}
		msg := fmt.Sprintf("no skill named %q in %s", c.Expect, ag.Path())
		if near := ag.Closest(c.Expect, 3); len(near) > 0 {
			msg += fmt.Sprintf(": did you mean %s?", strings.Join(near, ", "))
		} else {
			msg += ": name one of its skills ('agent3md skills' lists them), or write - for none"
		}
		return &cases.Error{File: file, Line: c.Line, Msg: msg}
	}
	return nil
}

func readReport(path string) (*cases.Report, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--compare: %w", err)
	}
	defer fh.Close()
	return cases.ReadReport(fh, path)
}

func (a *app) printEval(rep *cases.Report, old *cases.Report, f *evalFlags) error {
	switch {
	case f.asJSON:
		return rep.WriteJSON(a.stdout)
	case f.junit:
		return rep.WriteJUnit(a.stdout)
	}
	if err := rep.WriteText(a.stdout, f.failedOnly); err != nil {
		return err
	}
	if old != nil {
		cases.Compare(old, rep).WriteText(a.stdout, rep.File)
	}
	return nil
}

// evalPassed applies the bars given, or, with none, asks every case to
// pass. A bar on a rate with no cases behind it (--max-false with no
// case expecting none) holds: there is nothing to measure.
func evalPassed(rep *cases.Report, f *evalFlags, withBars bool) bool {
	s := rep.Summary
	if !withBars {
		return s.Top1 == s.Positive && s.False == 0
	}
	ok := true
	if f.minTop1 >= 0 && s.Positive > 0 && s.Top1Rate < f.minTop1 {
		ok = false
	}
	if f.minTop3 >= 0 && s.Positive > 0 && s.Top3Rate < f.minTop3 {
		ok = false
	}
	if f.maxFalse >= 0 && s.Negative > 0 && s.FalseRate > f.maxFalse {
		ok = false
	}
	return ok
}
