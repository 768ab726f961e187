package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agent3md/agent3md/loader"
)

// getCmd is `agent3md get`: one skill's body, or one file of its folder.
func (a *app) getCmd() *cobra.Command {
	var file string
	c := &cobra.Command{
		Use:   "get FILE SKILL",
		Short: "Print one skill's body, read lazily from the file",
		Long: `get prints the skill's body. With --file it prints one file of the skill's
Agent Skills directory instead, as the get_skill tool's file argument and
resources/read serve it: a skills folder's own files (reference.md,
scripts/fill.py, SKILL.md), or for an agent file its rendered SKILL.md and
references/<dep>.md.`,
		Example: `  agent3md get examples/devtools.3md run-tests
  agent3md get ~/.claude/skills pdf --file reference.md`,
		Args: args(cobra.ExactArgs(2)),
		RunE: func(c *cobra.Command, args []string) error {
			return a.withAgent(args[0], func(ag *loader.Agent) error {
				if file != "" {
					return a.printSkillFile(c.Context(), ag, args[0], args[1], file)
				}
				body, err := ag.Body(c.Context(), args[1])
				if err != nil {
					return skillError(ag, args[0], err)
				}
				fmt.Fprintln(a.stdout, body)
				return nil
			})
		},
	}
	c.Flags().StringVar(&file, "file", "", "print this file of the skill's folder (a path relative to the skill, e.g. reference.md) instead of its body")
	a.addLimitFlags(c.Flags())
	return c
}

// printSkillFile writes one file of a skill's Agent Skills directory to
// stdout as it is; a path the skill does not serve is an error listing the
// ones it does.
func (a *app) printSkillFile(ctx context.Context, ag *loader.Agent, src, name, file string) error {
	slug, err := ag.Slug(name)
	if err != nil {
		return skillError(ag, src, err)
	}
	data, _, err := ag.ReadSkillFile(ctx, slug, strings.TrimPrefix(file, "./"))
	if errors.Is(err, loader.ErrNoSkillFile) {
		files, lerr := ag.SkillFiles(ctx, slug)
		if lerr != nil {
			return lerr
		}
		paths := make([]string, len(files))
		for i, f := range files {
			paths[i] = f.Path
		}
		return invalid(fmt.Errorf("skill %s serves no file %q; its files: %s", name, file, strings.Join(paths, ", ")))
	}
	if err != nil {
		return skillError(ag, src, err)
	}
	_, err = a.stdout.Write(data)
	return err
}
