package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/skillsdir"
	"github.com/agent3md/agent3md/skillsdir/importer"
)

func (a *app) importCmd() *cobra.Command {
	var (
		out   string
		force bool
		title string
	)
	c := &cobra.Command{
		Use:   "import DIR...",
		Short: "Convert Agent Skills folders into one agent.3md",
		Long: `import reads each DIR as an Agent Skills folder (every folder below it, 4
levels deep, holding a SKILL.md) and writes one agent file: an identity
plane, then one skill plane per skill, labelled with the skill's name.
Several folders make one agent, as mcp serves them; a skill name found in
two of them stops the import with both paths.

The identity comes from the first DIR's AGENT.md when there is one (its
first "# " heading names the agent; "- model:", "- persona:" and "- tools:"
lines right after an opening heading, as export writes them, set those
fields), else from the AGENT.md an export left in the skills' references/,
else a short generated one named after the first DIR. Each plane takes the
skill's metadata triggers, inputs, tool (or command) and cost, as export
--skills-dir writes them; a skill without triggers is given its name as
one. The plane body is the SKILL.md body: its description is kept as the
first paragraph (added when the body does not start with it), relative
links to other imported skills become [[z=N|text]] links (except one that
would close a dependency cycle), and the skill's other files are listed at
the end by path — never inlined, never run. Broken skills are skipped with
their findings on stderr.

The result always validates without errors; an existing OUT is never
replaced without --force. Import, then export --skills-dir, gives back each
skill's frontmatter and body; export, import, export writes the same
folders (docs/skill-folders.md §12 says where it cannot).`,
		Example: `  agent3md import ~/.claude/skills -o claude.3md
  agent3md import skills/ -o - | agent3md validate -`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			return a.importDir(c.Context(), args, out, force, title)
		},
	}
	c.Flags().StringVarP(&out, "output", "o", "agent.3md", `the agent file to write ("-" for standard output)`)
	c.Flags().BoolVar(&force, "force", false, "replace OUT when it exists")
	c.Flags().StringVar(&title, "title", "", "the agent's name (default: AGENT.md's first heading, else DIR's name)")
	a.addLimitFlags(c.Flags())
	return c
}

// importDir runs importer.Import and writes the agent file to out ("-":
// standard output), with its warnings and a summary line.
func (a *app) importDir(ctx context.Context, dirs []string, out string, force bool, title string) error {
	if out != "-" && !force {
		if _, err := os.Lstat(out); err == nil {
			return ioError(fmt.Errorf("%s already exists; pass --force to replace it, or choose another -o", out))
		}
	}
	r, err := importer.Import(ctx, dirs, &importer.Options{Title: title, Limits: a.limits})
	if err != nil {
		var le *agentfile.LimitError
		if errors.Is(err, skillsdir.ErrNameClash) || errors.As(err, &le) {
			return invalid(err)
		}
		return ioError(err)
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(a.stderr, "agent3md: import: %s\n", w)
	}
	summary := r.Summary()
	if out == "-" {
		if _, err := a.stdout.Write(r.Data); err != nil {
			return ioError(err)
		}
		fmt.Fprintf(a.stderr, "agent3md: import: %s\n", summary)
		return nil
	}
	if err := r.WriteFile(out, force); err != nil {
		return ioError(err)
	}
	fmt.Fprintf(a.stdout, "wrote %s: %s\n", out, summary)
	return nil
}
