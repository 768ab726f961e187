package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/router"
)

func (a *app) routeCmd() *cobra.Command {
	var (
		mode    string
		limit   int
		asJSON  bool
		explain bool
	)
	c := &cobra.Command{
		Use:   "route FILE TEXT",
		Short: "Rank the skills that fit a request",
		Long: `route scores TEXT against the agent's skills. Mode "ranked" (default) matches
trigger phrases on word stems, breaks ties by relevance, and after the
matches it is sure of offers guesses: relaxed matches, from names,
descriptions, bodies, tools and inputs, marked "; relaxed", then the
plain ranking's runner-ups, marked "; runner-up", each with its fit
(at most 5 lines unless --limit says otherwise). --explain prints under
each match why it has its tier and, for each request word, which of the
skill's fields hold it and its weight. Mode "spec" is exactly
the agent3md/1 route definition, every match. Each match shows the
phrases (or terms) that matched: routing is advice, so the evidence
matters. Exit status 1 when no skill matched, as grep's.`,
		Example: `  agent3md route examples/devtools.3md "the tests are failing on main"   # → run-tests
  agent3md route --mode spec --json examples/devtools.3md "run tests"      # → run-tests`,
		Args: args(cobra.ExactArgs(2)),
		RunE: func(c *cobra.Command, args []string) error {
			if !c.Flags().Changed("limit") && router.Mode(mode) == router.Ranked {
				limit = router.DefaultLimit
			}
			q, err := query(mode, limit)
			if err != nil {
				return err
			}
			a.useCache = true
			return a.withAgent(args[0], func(ag *loader.Agent) error {
				if explain {
					return a.explain(c, ag, args[1], q, asJSON)
				}
				matches, closest, err := a.routeClosest(c, ag, args[1], q, true)
				if err != nil {
					return err
				}
				if asJSON {
					if matches == nil {
						matches = []router.Match{}
					}
					out := map[string]any{"mode": q.Mode, "matches": matches}
					if len(closest) > 0 {
						out["closest"] = closest
					}
					if err := writeJSON(a.stdout, out); err != nil {
						return err
					}
				} else {
					printMatches(a.stdout, matches)
					printClosest(a.stderr, closest)
				}
				if len(matches) == 0 {
					return silent(exitInvalid) // as grep: a script can tell a miss from a hit
				}
				return nil
			})
		},
	}
	c.Flags().StringVar(&mode, "mode", string(router.Ranked), `routing mode: "ranked" or "spec"`)
	c.Flags().IntVar(&limit, "limit", 0, "print at most this many matches (0: all; default 5 in ranked mode, all in spec mode)")
	c.Flags().BoolVar(&explain, "explain", false, "under each match, print why it has its tier and which fields hold each request word")
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
	matches, _, err := a.routeClosest(c, ag, text, q, false)
	return matches, err
}

// routeClosest routes text; with withClosest, when no match is sure
// (ranked mode), closest holds the guesses whose trigger phrases the
// request came near, with the words it lacked of each (router.Explain's
// gaps): why each fell short.
func (a *app) routeClosest(c *cobra.Command, ag *loader.Agent, text string, q *router.Query, withClosest bool) (matches []router.Match, closest []router.Explained, err error) {
	r, err := router.ForAgent(c.Context(), ag, a.routerOptions(ag))
	if err != nil {
		return nil, nil, ioError(fmt.Errorf("building the routing index: %w", err))
	}
	defer r.Close()
	matches, err = r.Route(c.Context(), text, q)
	if err != nil {
		return nil, nil, ioError(err)
	}
	if !withClosest || q.Mode != router.Ranked || slices.ContainsFunc(matches, func(m router.Match) bool { return router.Sure(m.Tier) }) {
		return matches, nil, nil
	}
	ex, err := r.Explain(c.Context(), text, q)
	if err != nil {
		return nil, nil, ioError(err)
	}
	for _, e := range ex {
		if len(e.Gaps) > 0 {
			closest = append(closest, e)
		}
	}
	return matches, closest, nil
}

// printClosest says, on stderr, which trigger phrases of the guesses the
// request came closest to and what it lacked of each: the words to say,
// or, to an author, a phrase the skill's triggers are missing.
func printClosest(w io.Writer, closest []router.Explained) {
	if len(closest) == 0 {
		return
	}
	fmt.Fprintln(w, "no sure match; the closest trigger phrases, and what the request lacks of each:")
	for _, e := range closest {
		fmt.Fprintf(w, "  %s: %s\n", e.Name, gapText(e.Gaps))
	}
	fmt.Fprintln(w, "(agent3md route --explain shows all the evidence)")
}

// gapText is "\"tag a release\" lacks release; …".
func gapText(gaps []router.TriggerGap) string {
	parts := make([]string, len(gaps))
	for i, g := range gaps {
		parts[i] = fmt.Sprintf("%q lacks %s", g.Trigger, strings.Join(g.Missing, " "))
	}
	return strings.Join(parts, "; ")
}

// explain prints each match of a route with its evidence
// (router.Explain): its line, why it has its tier, and each request word
// with the fields that hold it and its weight; as JSON with asJSON.
func (a *app) explain(c *cobra.Command, ag *loader.Agent, text string, q *router.Query, asJSON bool) error {
	r, err := router.ForAgent(c.Context(), ag, a.routerOptions(ag))
	if err != nil {
		return ioError(fmt.Errorf("building the routing index: %w", err))
	}
	defer r.Close()
	ex, err := r.Explain(c.Context(), text, q)
	if err != nil {
		return ioError(err)
	}
	if asJSON {
		if ex == nil {
			ex = []router.Explained{}
		}
		if err := writeJSON(a.stdout, map[string]any{"mode": q.Mode, "matches": ex}); err != nil {
			return err
		}
	} else if len(ex) == 0 {
		fmt.Fprintln(a.stdout, "no skill matched: no skill's name, description or trigger holds a word of the request")
	}
	for i := range ex {
		if asJSON {
			break
		}
		fmt.Fprintf(a.stdout, "%s\n    %s\n", router.AppendLine(nil, &ex[i].Match), ex[i].Why)
		for _, w := range ex[i].Words {
			held := "no field"
			if len(w.Fields) > 0 {
				held = strings.Join(w.Fields, ", ")
			}
			fmt.Fprintf(a.stdout, "    %-16s %3.0f%% of the request  %s\n", w.Word, 100*w.Weight, held)
		}
		if len(ex[i].Gaps) > 0 {
			fmt.Fprintf(a.stdout, "    closest triggers: %s\n", gapText(ex[i].Gaps))
		}
	}
	if len(ex) == 0 {
		return silent(exitInvalid)
	}
	return nil
}

// printMatches writes one line per match in the route_skill tool's format.
func printMatches(w io.Writer, matches []router.Match) {
	if len(matches) == 0 {
		fmt.Fprintln(w, "no skill matched")
		return
	}
	var b []byte
	for i := range matches {
		b = append(router.AppendLine(b[:0], &matches[i]), '\n')
		w.Write(b)
	}
}
