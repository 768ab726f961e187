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
