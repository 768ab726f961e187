package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agent3md/agent3md/loader"
)

// resolveCmd is `agent3md resolve`: a skill and, depth-first, every skill
// it depends on.
func (a *app) resolveCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "resolve FILE SKILL",
		Short: "Print a skill and, depth-first, every skill it depends on",
		Long: `resolve prints the skill, then the skills its [[z=N]] links name, depth-first
in body order, each once, as "### name" followed by the body — the text an
agent needs to carry the skill out.`,
		Example: `  agent3md resolve examples/oncall.3md rollback-deploy`,
		Args:    args(cobra.ExactArgs(2)),
		RunE: func(c *cobra.Command, args []string) error {
			return a.withAgent(args[0], func(ag *loader.Agent) error {
				text, err := ag.ResolveText(c.Context(), args[1])
				if err != nil {
					return skillError(ag, args[0], err)
				}
				fmt.Fprintln(a.stdout, text)
				return nil
			})
		},
	}
	a.addLimitFlags(c.Flags())
	return c
}
