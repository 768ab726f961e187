package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/internal/filekind"
	"github.com/agent3md/agent3md/skillsdir"
)

// validateCmd is `agent3md validate`: check agent files and skill folders
// against every rule, with the lints unless --no-lint.
func (a *app) validateCmd() *cobra.Command {
	var asJSON, noLint bool
	c := &cobra.Command{
		Use:   "validate FILE|DIR...",
		Short: "Check agent files (every agent3md/1 rule) or Agent Skills folders",
		Long: `validate parses each FILE and checks it against the agent3md/1 rules
(frontmatter, identity, missing-label, unique-skill, dead-link, entry, cycle,
dup-input, input-type, tool-input, wrapped-directive, link-name as errors;
triggers, tool, unused-input, undeclared-tool as warnings; docs/format.md
§12 has them all). On an agent that passes, it then runs the routing lints,
warnings that route each skill's description and triggers as route_skill
does: competing-skills and shared-trigger name the skill it cannot be told
apart from, everyday-trigger a trigger made of everyday words, and
description-when an untriggered description that never says when to use
the skill (--no-lint skips them). Exit status: 0 when no file has errors, 1 when
any has, 2 when a file cannot be read. With --json it prints one object for
one file and an array for several.

An argument that is a directory is read as an Agent Skills folder: every
folder below it (4 levels deep) holding a SKILL.md is checked against the
Agent Skills rules (name and its folder, description, frontmatter keys and
types, metadata triggers, inputs and tool), with one report per skill and
each finding's file and line. Files and folders may be mixed; a folder's
reports always print as a JSON array.`,
		Example: `  agent3md validate agent.3md
  agent3md validate --json examples/*.3md
  agent3md validate ~/.claude/skills`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: func(c *cobra.Command, files []string) error {
			return a.validate(c.Context(), files, asJSON, noLint)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print findings as JSON")
	c.Flags().BoolVar(&noLint, "no-lint", false, "skip the routing lints (competing-skills, shared-trigger, everyday-trigger, description-when), which build the routing index")
	a.addLimitFlags(c.Flags())
	return c
}

func (a *app) validate(ctx context.Context, files []string, asJSON, noLint bool) error {
	var reports []agentfile.FileReport
	code, checked := exitOK, 0
	single := len(files) == 1
	var batch []agentfile.FileReport
	for _, path := range files {
		if isDir(path) {
			// A skills folder: one report per skill (docs/skill-folders.md §3).
			batch = a.validateDir(ctx, path)
			single = false
			if !noLint {
				a.lintDir(ctx, path, batch)
			}
		} else {
			batch = []agentfile.FileReport{a.validateOne(path)}
			if !noLint {
				a.lintFile(ctx, path, &batch[0])
			}
		}
		for _, fr := range batch {
			reports = append(reports, fr)
			if a.noteReport(fr, asJSON, &code) {
				checked++
			}
		}
		if isDir(path) && !asJSON {
			a.dirSummary(path, batch)
		}
	}
	if checked == 0 && code == exitOK {
		// Every argument was skipped: nothing was validated.
		code = exitUsage
	}
	if asJSON {
		var v any = reports
		if single {
			v = reports[0]
		}
		if err := writeJSON(a.stdout, v); err != nil {
			return ioError(err)
		}
	}
	if code != exitOK {
		return silent(code)
	}
	return nil
}

// noteReport prints one report (unless asJSON), raises the exit code it
// calls for, and says whether the report counts as checked.
func (a *app) noteReport(fr agentfile.FileReport, asJSON bool, code *int) bool {
	switch {
	case fr.Skipped:
		fmt.Fprintf(a.stderr, "agent3md: skipping %s\n", fr.Error)
		return false
	case fr.Error != "":
		fmt.Fprintf(a.stderr, "agent3md: %s\n", fr.Error)
		*code = exitUsage
		return false
	}
	if !fr.OK && *code == exitOK {
		*code = exitInvalid
	}
	if !asJSON {
		fr.WriteText(a.stdout)
	}
	return true
}

// validateOne checks one file argument. A file that is not a regular one
// (a FIFO matched by *.3md, a device) is skipped; one that cannot be read
// gets an error entry.
func (a *app) validateOne(path string) agentfile.FileReport {
	fr := agentfile.FileReport{File: path, Errors: []agentfile.Finding{}, Warnings: []agentfile.Finding{}}
	if path == stdinArg {
		fr.File = stdinName
	} else {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			fr.Error = missingArg(path)
			return fr
		}
		if st, err := os.Stat(path); err == nil && !st.IsDir() && !st.Mode().IsRegular() {
			fr.Error, fr.Skipped = fmt.Sprintf("%s: not a regular file (%s)", path, filekind.Of(st.Mode())), true
			return fr
		}
	}
	r, err := a.validateFile(path)
	if err != nil {
		fr.Error = err.Error()
		return fr
	}
	return r.For(fr.File)
}

func (a *app) validateFile(arg string) (*agentfile.Report, error) {
	f, name, err := a.openAgentFile(arg)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cat, err := agentfile.Parse(f, &agentfile.Options{File: name, Limits: a.limits})
	if err != nil {
		var pe *agentfile.ParseError
		if errors.As(err, &pe) && pe.Name == agentfile.ReadFailed {
			return nil, err
		}
		return agentfile.ParseFailure(err), nil
	}
	return agentfile.Validate(cat), nil
}

// isDir reports whether a validate argument names a directory (a skills
// folder) rather than an agent file.
func isDir(arg string) bool {
	if arg == stdinArg {
		return false
	}
	st, err := os.Stat(arg)
	return err == nil && st.IsDir()
}

// validateDir checks a skills folder with the Agent Skills rules
// (docs/skill-folders.md §3): one report per skill folder, broken ones
// included, and one of arg for a scan a rule stopped (skillsdir.Check); a
// folder that cannot be read is an I/O error.
func (a *app) validateDir(ctx context.Context, arg string) []agentfile.FileReport {
	reps, err := skillsdir.Check(ctx, arg)
	if err != nil {
		return []agentfile.FileReport{{File: arg, Error: err.Error(), Errors: []agentfile.Finding{}, Warnings: []agentfile.Finding{}}}
	}
	if len(reps) == 0 {
		return []agentfile.FileReport{{File: arg, Error: fmt.Sprintf("%s holds no skill folder (no SKILL.md within %d levels); pass an agent file or a folder of skill folders", arg, skillsdir.DefaultMaxDepth)}}
	}
	out := make([]agentfile.FileReport, len(reps))
	for i := range reps {
		out[i] = reps[i].FileReport()
	}
	return out
}
