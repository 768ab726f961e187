package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/router"
)

// completions adds to the shell completion cobra generates (commands and
// flags) what a person types most: skill names after the agent file (get
// and resolve's SKILL, run's --skill), and the fixed values of --mode and
// --log-format. Skill names come from the agent file already typed, read
// as the command would read it; a file that does not open completes
// nothing rather than printing an error into the shell.
func (a *app) completions(root *cobra.Command) {
	for _, c := range root.Commands() {
		switch c.Name() {
		case "get", "resolve":
			c.ValidArgsFunction = a.completeSkillArg
		}
		fixed := map[string][]string{
			"mode":       {string(router.Ranked), string(router.Spec)},
			"log-format": {"text", "json"},
		}
		for flag, values := range fixed {
			if c.Flags().Lookup(flag) != nil {
				vs := values
				c.RegisterFlagCompletionFunc(flag, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
					return vs, cobra.ShellCompDirectiveNoFileComp
				})
			}
		}
		if c.Flags().Lookup("skill") != nil {
			c.RegisterFlagCompletionFunc("skill", func(_ *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
				if len(args) == 0 {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
				return a.skillNames(args[0], prefix), cobra.ShellCompDirectiveNoFileComp
			})
		}
	}
}

// completeSkillArg completes FILE with file names, then SKILL with the
// file's skill names.
func (a *app) completeSkillArg(_ *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
	switch len(args) {
	case 0:
		return nil, cobra.ShellCompDirectiveDefault
	case 1:
		return a.skillNames(args[0], prefix), cobra.ShellCompDirectiveNoFileComp
	}
	return nil, cobra.ShellCompDirectiveNoFileComp
}

// skillNames is the names of file's skills that start with prefix
// (case-insensitively), nil when the file does not open.
func (a *app) skillNames(file, prefix string) []string {
	var out []string
	err := a.withAgent(file, func(ag *loader.Agent) error {
		for _, s := range ag.Skills() {
			if strings.HasPrefix(strings.ToLower(s.Name), strings.ToLower(prefix)) {
				out = append(out, s.Name)
			}
		}
		return nil
	})
	if err != nil {
		return nil
	}
	return out
}
