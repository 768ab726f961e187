package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agent3md/agent3md/loader"
)

// manifestCmd is `agent3md manifest`: the agent's manifest and catalog.
func (a *app) manifestCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "manifest FILE",
		Short: "Print the agent's manifest: name, model, tools, persona, identity and skill catalog",
		Example: `  agent3md manifest examples/oncall.3md
  agent3md manifest --json examples/oncall.3md | jq '.skills[].name'`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			return a.withAgent(args[0], func(ag *loader.Agent) error {
				m, err := ag.Manifest(c.Context())
				if err != nil {
					return ioError(err)
				}
				if asJSON {
					return writeJSON(a.stdout, m)
				}
				fmt.Fprintf(a.stdout, "%s (model %s)\ntools: %s\n", m.Name, m.Model, strings.Join(m.Tools, ", "))
				if m.Persona != "" {
					fmt.Fprintf(a.stdout, "persona: %s\n", m.Persona)
				}
				fmt.Fprintf(a.stdout, "\n%s\n\n", m.Identity)
				return loader.WriteSkillList(a.stdout, m.Skills)
			})
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the manifest as JSON")
	a.addLimitFlags(c.Flags())
	return c
}
