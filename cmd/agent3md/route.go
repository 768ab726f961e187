package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agent3md/agent3md/loader"
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
	r, err := router.ForAgent(c.Context(), ag, a.routerOptions(ag))
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
			tier = "; " + m.Tier
		}
		fmt.Fprintf(w, "%s  (score %d; matched: %s%s)\n", m.Name, m.Score, strings.Join(m.Hits, ", "), tier)
	}
}
