package main

import (
	"bytes"
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/skillsdir/export"
	"github.com/agent3md/agent3md/skillsdir/folderwrite"
)

func (a *app) exportCmd() *cobra.Command {
	var (
		bodies    bool
		skillsDir string
		force     bool
	)
	c := &cobra.Command{
		Use:   "export FILE",
		Short: "Print the agent3md/1 JSON projection, or write Agent Skills folders",
		Long: `export prints the agent3md/1 JSON projection of FILE, field for field what
the reference implementation's exporter prints: the agent (name, model,
tools, persona) and every skill (name, z, triggers, input names, the typed
inputSchema, tool, cost, dependency z's); --bodies adds every skill's body.

With --skills-dir DIR it instead writes one Agent Skills folder per skill:
DIR/<name>/SKILL.md (YAML frontmatter with name, description and metadata),
DIR/<name>/references/<dep>.md for each skill in its dependency chain, and
DIR/<name>/references/AGENT.md with the agent's identity (name, model,
persona, tools and identity text), which SKILL.md points to, so the agent's
rules travel with its skills.

Export into a shared directory is safe: each folder gets a marker file
(.agent3md-export.json) listing the agent and the files it wrote. A folder
without a marker, or written for another agent, is refused unless --force;
a symbolic link anywhere below DIR is always refused, even one swapped in
while export runs; a changed folder is written whole beside its place and
renamed into it, keeping the files you added; only files a previous
export of the same agent wrote are removed when they are no longer needed
(including the folders of skills the agent no longer has). A file the
marker does not list, or one export wrote that you edited since, is yours:
an export that would write over it or remove it is refused, naming it,
unless --force (which still never deletes a file no marker lists). Every
file created, replaced or removed is listed.`,
		Example: `  agent3md export examples/data.3md | jq '.skills | length'
  agent3md export --bodies examples/devtools.3md > devtools.json
  agent3md export --skills-dir ~/.claude/skills examples/devtools.3md`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			return a.withAgent(args[0], func(ag *loader.Agent) error {
				if ag.Folders() != nil {
					return ioError(fmt.Errorf("%s is a skills folder: export writes an agent file's projection; turn the folder into one first with 'agent3md import %s -o agent.3md'", args[0], args[0]))
				}
				if skillsDir != "" {
					return a.writeSkillsDir(c.Context(), ag, skillsDir, force)
				}
				if force {
					return ioError(fmt.Errorf("--force only applies with --skills-dir"))
				}
				return a.exportJSON(ag, bodies)
			})
		},
	}
	c.Flags().BoolVar(&bodies, "bodies", false, "include every skill's body")
	c.Flags().StringVar(&skillsDir, "skills-dir", "", "write one Agent Skills folder per skill under this directory")
	c.Flags().BoolVar(&force, "force", false, "with --skills-dir: write into skill folders another agent (or no export) wrote, and over files of yours in them")
	a.addLimitFlags(c.Flags())
	return c
}

// projectionJSON renders ag's agent3md/1 projection (no bodies) as
// export prints it: the agent3md://manifest resource of mcp and serve.
func projectionJSON(_ context.Context, ag *loader.Agent) ([]byte, error) {
	p, err := ag.Projection(false)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	err = writeJSON(&b, p)
	return b.Bytes(), err
}

// exportJSON prints the projection of the agent's current scan.
func (a *app) exportJSON(ag *loader.Agent, bodies bool) error {
	p, err := ag.Projection(bodies)
	if err != nil {
		return ioError(err)
	}
	return writeJSON(a.stdout, p)
}

// writeSkillsDir exports ag into dir as Agent Skills folders and lists
// every file created, replaced and removed.
func (a *app) writeSkillsDir(ctx context.Context, ag *loader.Agent, dir string, force bool) error {
	folders, opts, err := export.Folders(ctx, ag)
	if err != nil {
		return ioError(err)
	}
	opts.Force = force
	// What an earlier export killed midway left is put right first.
	rec, err := folderwrite.RecoverStaged(dir, &opts)
	if rec != nil {
		rec.WriteText(a.stdout)
	}
	if err != nil {
		return ioError(err)
	}
	rep, err := folderwrite.WriteFolders(dir, folders, &opts)
	if rep != nil {
		rep.WriteText(a.stdout)
	}
	if err != nil {
		return ioError(err)
	}
	fmt.Fprintln(a.stdout, rep.Summary(len(ag.Info().Skills), dir))
	return nil
}
