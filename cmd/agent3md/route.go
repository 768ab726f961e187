package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/mcp"
	"github.com/agent3md/agent3md/router"
)

func (a *app) routeCmd() *cobra.Command {
	var (
		mode   string
		limit  int
		asJSON bool
	)
	c := &cobra.Command{
		Use:   "route FILE TEXT",
		Short: "Rank the skills that fit a request",
		Long: `route scores TEXT against the agent's skills. Mode "ranked" (default) matches
trigger phrases on word stems, breaks ties by relevance and, when no phrase
fits, offers relaxed matches from names, descriptions, tools and inputs.
Mode "spec" is exactly the agent3md/1 route definition. Each match shows the
phrases (or terms) that matched: routing is advice, so the evidence matters.`,
		Example: `  agent3md route examples/devtools.3md "the tests are failing on main"
  agent3md route --mode spec --json examples/devtools.3md "run tests"`,
		Args: args(cobra.ExactArgs(2)),
		RunE: func(c *cobra.Command, args []string) error {
			q, err := query(mode, limit)
			if err != nil {
				return err
			}
			a.useCache = true
			return a.withAgent(args[0], func(ag *loader.Agent) error {
				matches, err := a.route(c, ag, args[1], q)
				if err != nil {
					return err
				}
				if asJSON {
					if matches == nil {
						matches = []router.Match{}
					}
					return writeJSON(a.stdout, map[string]any{"mode": q.Mode, "matches": matches})
				}
				printMatches(a.stdout, matches)
				return nil
			})
		},
	}
	c.Flags().StringVar(&mode, "mode", string(router.Ranked), `routing mode: "ranked" or "spec"`)
	c.Flags().IntVar(&limit, "limit", 0, "print at most this many matches (0: all)")
	c.Flags().BoolVar(&asJSON, "json", false, "print matches as JSON")
	a.addLimitFlags(c.Flags())
	a.addCacheFlags(c.Flags())
	return c
}

func query(mode string, limit int) (*router.Query, error) {
	m := router.Mode(mode)
	if m != router.Ranked && m != router.Spec {
		return nil, ioError(fmt.Errorf("--mode %q: use \"ranked\" or \"spec\"", mode))
	}
	if limit < 0 {
		return nil, ioError(fmt.Errorf("--limit %d: must be 0 (all) or more", limit))
	}
	return &router.Query{Mode: m, Limit: limit}, nil
}

func (a *app) route(c *cobra.Command, ag *loader.Agent, text string, q *router.Query) ([]router.Match, error) {
	r, err := mcp.NewRouter(c.Context(), ag, a.routerOptions(ag))
	if err != nil {
		return nil, ioError(fmt.Errorf("building the routing index: %w", err))
	}
	defer r.Close()
	matches, err := r.Route(c.Context(), text, q)
	if err != nil {
		return nil, ioError(err)
	}
	return matches, nil
}

// printMatches writes one line per match in the route_skill tool's format.
func printMatches(w io.Writer, matches []router.Match) {
	if len(matches) == 0 {
		fmt.Fprintln(w, "no skill matched")
		return
	}
	for _, m := range matches {
		tier := ""
		if m.Tier != router.TierPhrase {
			tier = ", " + m.Tier
		}
		fmt.Fprintf(w, "%s  (score %d; matched: %s%s)\n", m.Name, m.Score, strings.Join(m.Hits, ", "), tier)
	}
}

func (a *app) runCmd() *cobra.Command {
	var (
		skill  string
		doExec bool
		asJSON bool
	)
	c := &cobra.Command{
		Use:   "run FILE TEXT [NAME=VALUE...]",
		Short: "Route a request, fill the chosen skill's command, and print (or run) it",
		Long: `run is the whole loop on the command line: route TEXT to the best skill (or
take --skill), fill its command template with NAME=VALUE pairs (each value
shell-quoted, typed inputs checked), and print the command. With --exec it
runs the command through sh, but only when every required input is filled;
otherwise it says which inputs are missing and exits 1.`,
		Example: `  agent3md run examples/devtools.3md "search the code for parseConfig" pattern=parseConfig path=.
  agent3md run --exec --skill search-code examples/devtools.3md "" pattern=TODO path=.`,
		Args: args(cobra.MinimumNArgs(2)),
		RunE: func(c *cobra.Command, args []string) error {
			values, err := parseValues(args[2:])
			if err != nil {
				return err
			}
			a.useCache = true
			return a.withAgent(args[0], func(ag *loader.Agent) error {
				name := skill
				if name == "" {
					matches, err := a.route(c, ag, args[1], &router.Query{Mode: router.Ranked, Limit: 1})
					if err != nil {
						return err
					}
					if len(matches) == 0 {
						return invalid(fmt.Errorf("no skill matched %q; name one with --skill (see 'agent3md skills %s')", args[1], args[0]))
					}
					name = matches[0].Name
				}
				fill, err := ag.Command(name, values)
				if err != nil {
					return skillError(err)
				}
				return a.finishRun(fill, doExec, asJSON)
			})
		},
	}
	c.Flags().StringVar(&skill, "skill", "", "use this skill instead of routing TEXT")
	c.Flags().BoolVar(&doExec, "exec", false, "run the filled command with sh when every required input is filled")
	c.Flags().BoolVar(&asJSON, "json", false, "print the fill result as JSON")
	a.addLimitFlags(c.Flags())
	a.addCacheFlags(c.Flags())
	return c
}

func parseValues(pairs []string) (map[string]string, error) {
	values := map[string]string{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, ioError(fmt.Errorf("argument %q is not NAME=VALUE", p))
		}
		values[k] = v
	}
	return values, nil
}

func (a *app) finishRun(f *loader.Fill, doExec, asJSON bool) error {
	if asJSON {
		if err := writeJSON(a.stdout, f); err != nil {
			return ioError(err)
		}
	} else {
		printFill(a.stdout, a.stderr, f)
	}
	problem := fillProblem(f)
	if !doExec {
		if problem != nil && f.HasTool {
			return silent(exitInvalid)
		}
		return nil
	}
	if problem != nil {
		return invalid(problem)
	}
	cmd := exec.Command("sh", "-c", f.Command)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, a.stdout, a.stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return silent(ee.ExitCode())
		}
		return ioError(err)
	}
	return nil
}

// fillProblem explains why a fill cannot run, or returns nil.
func fillProblem(f *loader.Fill) error {
	if !f.HasTool {
		return fmt.Errorf("skill %q has no command to run; it is guidance only (see 'agent3md get')", f.Skill)
	}
	var parts []string
	if len(f.Missing) > 0 {
		parts = append(parts, "missing required inputs: "+strings.Join(f.Missing, ", "))
	}
	for _, p := range f.Invalid {
		parts = append(parts, fmt.Sprintf("input %s (%s): %s", p.Name, p.Type, p.Reason))
	}
	if len(parts) == 0 {
		return nil
	}
	return fmt.Errorf("skill %q cannot run: %s", f.Skill, strings.Join(parts, "; "))
}

func printFill(out, errw io.Writer, f *loader.Fill) {
	if !f.HasTool {
		fmt.Fprintf(out, "skill %s has no command (guidance only); read it with 'agent3md get'\n", f.Skill)
		return
	}
	fmt.Fprintf(out, "%s\n", f.Command)
	if len(f.Missing) > 0 {
		fmt.Fprintf(errw, "missing required inputs: %s\n", strings.Join(f.Missing, ", "))
	}
	for _, p := range f.Invalid {
		fmt.Fprintf(errw, "invalid input %s (%s): %s\n", p.Name, p.Type, p.Reason)
	}
	if len(f.Unknown) > 0 {
		u := append([]string(nil), f.Unknown...)
		sort.Strings(u)
		fmt.Fprintf(errw, "ignored values for undeclared inputs: %s\n", strings.Join(u, ", "))
	}
}
