package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/mcp"
)

// projection is the agent3md/1 JSON projection (DESIGN §2).
type projection struct {
	Schema string            `json:"schema"`
	Agent  projectionAgent   `json:"agent"`
	Skills []projectionSkill `json:"skills"`
	Bodies map[string]string `json:"bodies,omitempty"`
}

type projectionAgent struct {
	Name    string   `json:"name"`
	Model   string   `json:"model"`
	Tools   []string `json:"tools"`
	Persona *string  `json:"persona"`
}

type projectionSkill struct {
	Name        string        `json:"name"`
	Z           float64       `json:"z"`
	Triggers    []string      `json:"triggers"`
	Inputs      []string      `json:"inputs"`
	InputSchema []inputSchema `json:"inputSchema"`
	Tool        *string       `json:"tool"`
	Cost        *string       `json:"cost"`
	Deps        []float64     `json:"deps"`
}

type inputSchema struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Required bool   `json:"required"`
}

func (a *app) exportCmd() *cobra.Command {
	var (
		bodies    bool
		skillsDir string
	)
	c := &cobra.Command{
		Use:   "export FILE",
		Short: "Print the agent3md/1 JSON projection, or write Agent Skills folders",
		Long: `export prints the agent3md/1 JSON projection of FILE: the agent (name,
model, tools, persona) and every skill (name, z, triggers, inputs with their
schema, tool, cost, dependency z's); --bodies adds every skill's body.

With --skills-dir DIR it instead writes one Agent Skills folder per skill:
DIR/<name>/SKILL.md (YAML frontmatter with name, description and metadata)
plus DIR/<name>/references/<dep>.md for each skill in its dependency chain.`,
		Example: `  agent3md export examples/data.3md | jq '.skills | length'
  agent3md export --skills-dir ~/.claude/skills examples/devtools.3md`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			return a.withAgent(args[0], func(ag *loader.Agent) error {
				if skillsDir != "" {
					return a.writeSkillsDir(c, ag, skillsDir)
				}
				p, err := project(c, ag, bodies)
				if err != nil {
					return err
				}
				return writeJSON(a.stdout, p)
			})
		},
	}
	c.Flags().BoolVar(&bodies, "bodies", false, "include every skill's body")
	c.Flags().StringVar(&skillsDir, "skills-dir", "", "write one Agent Skills folder per skill under this directory")
	a.addLimitFlags(c.Flags())
	return c
}

func project(c *cobra.Command, ag *loader.Agent, withBodies bool) (*projection, error) {
	info := ag.Info()
	p := &projection{Schema: "agent3md/1", Agent: projectionAgent{Name: info.Name, Model: info.Model, Tools: nonNil(info.Tools)}}
	if info.Persona != "" {
		persona := info.Persona
		p.Agent.Persona = &persona
	}
	p.Skills = []projectionSkill{}
	for _, s := range info.Skills {
		ps := projectionSkill{Name: s.Name, Z: s.Z, Triggers: nonNil(s.Triggers), Inputs: []string{}, InputSchema: []inputSchema{}, Deps: nonNil(s.Deps)}
		for _, in := range s.Inputs {
			decl := in.Name + ":" + in.Type
			if in.Optional {
				decl += "?"
			}
			ps.Inputs = append(ps.Inputs, decl)
			ps.InputSchema = append(ps.InputSchema, inputSchema{Name: in.Name, Type: in.Type, Required: !in.Optional})
		}
		if s.HasTool {
			tool := s.Tool
			ps.Tool = &tool
		}
		if s.Cost != "" {
			cost := s.Cost
			ps.Cost = &cost
		}
		p.Skills = append(p.Skills, ps)
	}
	if withBodies {
		p.Bodies = map[string]string{}
		for _, s := range info.Skills {
			body, err := ag.Body(c.Context(), s.Name)
			if err != nil {
				return nil, ioError(err)
			}
			p.Bodies[s.Name] = body
		}
	}
	return p, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func (a *app) writeSkillsDir(c *cobra.Command, ag *loader.Agent, dir string) error {
	n := 0
	for _, s := range ag.Skills() {
		// By slug: slugs are unique even when (invalid) files repeat a name.
		r, err := ag.SkillMDBySlug(c.Context(), s.Slug)
		if err != nil {
			return ioError(err)
		}
		root := filepath.Join(dir, r.Slug)
		if err := writeFile(filepath.Join(root, "SKILL.md"), r.Text); err != nil {
			return err
		}
		for _, ref := range r.References {
			if err := writeFile(filepath.Join(root, filepath.FromSlash(ref.Path)), ref.Text); err != nil {
				return err
			}
		}
		n++
	}
	fmt.Fprintf(a.stdout, "wrote %d skills under %s\n", n, dir)
	return nil
}

// writeFile writes b atomically (temp file + rename), creating parents.
func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return ioError(err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return ioError(err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return ioError(err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return ioError(err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return ioError(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return ioError(err)
	}
	return nil
}

func (a *app) indexCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "index FILE",
		Short: "Build or refresh the routing index cache for FILE",
		Long: `index builds the routing index for FILE into the cache (or confirms the
cached one is current), so that the next 'agent3md mcp' or 'route' starts
warm. Small agents are indexed in memory on every start and are not cached.
On a terminal it shows a progress bar for large files.`,
		Example: `  agent3md index big-agent.3md
  agent3md index --cache-dir /var/cache/agent3md big-agent.3md`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			a.useCache = true
			return a.withAgent(args[0], func(ag *loader.Agent) error {
				opts := a.routerOptions(ag)
				if f, ok := a.stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
					opts.Progress = progressBar(f)
				}
				start := time.Now()
				r, err := mcp.NewRouter(c.Context(), ag, opts)
				if err != nil {
					return ioError(err)
				}
				defer r.Close()
				info := r.Info()
				fmt.Fprintf(a.stdout, "%s: %d skills, index %s in %v", args[0], info.Skills, info.Index, time.Since(start).Round(time.Millisecond))
				if info.Path != "" {
					fmt.Fprintf(a.stdout, " at %s", info.Path)
				}
				if info.Reason != "" {
					fmt.Fprintf(a.stdout, " (%s)", info.Reason)
				}
				fmt.Fprintln(a.stdout)
				return nil
			})
		},
	}
	a.addLimitFlags(c.Flags())
	a.addCacheFlags(c.Flags())
	return c
}

// progressBar draws a one-line bar on a terminal, redrawn at most once per
// percent.
func progressBar(f *os.File) func(done, total int) {
	last := -1
	return func(done, total int) {
		if total <= 0 {
			return
		}
		pct := done * 100 / total
		if pct == last {
			return
		}
		last = pct
		const width = 40
		filled := pct * width / 100
		bar := make([]byte, width)
		for i := range bar {
			bar[i] = ' '
			if i < filled {
				bar[i] = '='
			}
		}
		fmt.Fprintf(f, "\rindexing [%s] %3d%% %d/%d", bar, pct, done, total)
		if done >= total {
			fmt.Fprintln(f)
		}
	}
}
