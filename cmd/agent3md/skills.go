package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/skillsdir"
)

// withAgent opens FILE for a command and closes it afterwards. A
// directory is read as an Agent Skills folder (docs/skill-folders.md), so
// skills, get, resolve, route, run and the rest work on ~/.claude/skills
// as on an agent file.
func (a *app) withAgent(path string, fn func(ag *loader.Agent) error) error {
	var ag *loader.Agent
	var err error
	if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
		ff := folderFlags{maxDepth: skillsdir.DefaultMaxDepth, maxFileBytes: skillsdir.DefaultMaxFileBytes}
		ag, err = a.openFolders(context.Background(), []string{path}, &ff)
	} else {
		ag, err = a.open(path)
	}
	if err != nil {
		return err
	}
	defer ag.Close()
	return fn(ag)
}

// skillError turns an unknown-skill error into an invalid-input error that
// suggests the closest names.
func skillError(ag *loader.Agent, file string, err error) error {
	var ue *loader.UnknownSkillError
	if errors.As(err, &ue) {
		msg := fmt.Sprintf("no skill named %q", ue.Name)
		// The identity plane has a label too, and it is the first name
		// a newcomer tries: say what it is and where its text is.
		if info, cat := ag.Info(), ag.Catalog(); info.Identity >= 0 && info.Identity < len(cat.Planes) {
			if id := &cat.Planes[info.Identity]; id.HasLabel && id.Label == ue.Name {
				return invalid(fmt.Errorf("%s: %q is the agent's identity plane (line %d), not a skill; print it with 'agent3md manifest %s', list the skills with 'agent3md skills %s'",
					msg, ue.Name, id.Line, shellWord(file), shellWord(file)))
			}
		}
		if len(ue.Closest) > 0 {
			msg += fmt.Sprintf("; did you mean %s?", strings.Join(quoteAll(ue.Closest), ", "))
		}
		return invalid(fmt.Errorf("%s (list them with 'agent3md skills %s')", msg, shellWord(file)))
	}
	return ioError(err)
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// skillsCmd is `agent3md skills`: the skill catalog, one line a skill.
func (a *app) skillsCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:     "skills FILE",
		Short:   "List the agent's skills with their triggers, inputs and commands",
		Example: `  agent3md skills examples/support.3md`,
		Args:    args(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			return a.withAgent(args[0], func(ag *loader.Agent) error {
				if asJSON {
					return writeJSON(a.stdout, ag.Skills())
				}
				return loader.WriteSkillList(a.stdout, ag.Skills())
			})
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the skills as JSON")
	a.addLimitFlags(c.Flags())
	return c
}
