package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/template"

	"github.com/spf13/cobra"

	"github.com/agent3md/agent3md/agentfile"
)

// scaffold is the agent `new` writes: valid under every agent3md/1 rule with
// no warnings, and showing each feature once (typed inputs, a command
// template, a guidance-only skill, a dependency link).
var scaffold = template.Must(template.New("agent").Parse(`---
3md: 1.0
title: {{.Title}}
agent: {{.Name}}
model: unknown
persona: careful and brief; confirms before anything destructive
version: 0.1.0
tools: rg
---
@plane z=0 label="{{.Name}}" kind=identity
# {{.Title}}

You are {{.Title}}. Route each request to the one skill whose triggers fit,
load only that skill (and the skills it links to), fill its inputs, and show
the command before running it. Ask when a required input is missing.

@plane z=1 label="search-code" kind=skill triggers="search code, find usages, grep for, where is" inputs="pattern:string, path:string?" tool="rg --line-number --regexp={pattern} -- {path}"
# Search code

Find where a pattern occurs in the repository and show each hit with its line
number.

1. Start narrow: search the directory the user named, else the repository root.
2. Show at most twenty hits; say how many more there were.
3. Summarise with [[z=2|explain-results]] when the user asked a question.

@plane z=2 label="explain-results" kind=skill triggers="explain, summarise results, what does this mean"
# Explain results

Turn raw search hits into a short answer: which files matter, what the code
there does, and what to read next.
`))

func (a *app) newCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "new NAME [OUT]",
		Short: "Write a new, valid agent file to start from",
		Long: `new writes a small agent named NAME to OUT (default NAME.3md): an identity
plane, a command-backed skill with typed inputs and a guidance-only skill it
links to. It never overwrites an existing file.

A lone argument that is a path (it ends in .3md or has a directory) is
where the file goes, and the agent is named after its base name:
"new agents/triage.3md" writes agents/triage.3md for an agent "triage".`,
		Example: `  agent3md new release-helper
  agent3md new agents/triage.3md
  agent3md new triage agents/triage.3md`,
		Args: args(cobra.RangeArgs(1, 2)),
		RunE: func(c *cobra.Command, args []string) error {
			name, out, err := newTarget(args)
			if err != nil {
				return err
			}
			return a.scaffold(name, out)
		},
	}
}

// newTarget reads new's arguments as the agent's name and the file to
// write. A lone argument naming a path is the file, not the name: "new
// my.3md" writing "my.3md.3md" for an agent called "my.3md" was what a
// first try of the command gave.
func newTarget(args []string) (name, out string, err error) {
	if len(args) == 2 {
		return args[0], args[1], nil
	}
	arg := args[0]
	if strings.HasSuffix(arg, "/") || strings.HasSuffix(arg, string(filepath.Separator)) {
		return "", "", ioError(fmt.Errorf("%q is a directory; name the file to write, e.g. agent3md new %s", arg, filepath.Join(arg, "my-agent.3md")))
	}
	ext := filepath.Ext(arg)
	isPath := strings.EqualFold(ext, ".3md") || strings.ContainsRune(arg, '/') || strings.ContainsRune(arg, filepath.Separator)
	if !isPath {
		return arg, arg + ".3md", nil
	}
	base := filepath.Base(arg)
	if strings.EqualFold(ext, ".3md") {
		return strings.TrimSuffix(base, ext), arg, nil
	}
	return base, arg + ".3md", nil
}

func (a *app) scaffold(name, out string) error {
	name = strings.TrimSpace(name)
	if name == "" || strings.ContainsAny(name, "\"\n\r:") {
		return ioError(fmt.Errorf("agent name %q must be non-empty and free of quotes, colons and newlines", name))
	}
	var buf bytes.Buffer
	title := strings.ToUpper(name[:1]) + name[1:]
	if err := scaffold.Execute(&buf, map[string]string{"Name": name, "Title": title}); err != nil {
		return ioError(err)
	}
	// Check our own output: a scaffold that does not validate is a bug.
	cat, err := agentfile.Parse(bytes.NewReader(buf.Bytes()), &agentfile.Options{File: out})
	if err != nil {
		return fmt.Errorf("internal error: scaffold does not parse: %w", err)
	}
	if r := agentfile.Validate(cat); !r.OK() || len(r.Warnings) > 0 {
		return fmt.Errorf("internal error: scaffold is not valid: %+v", r)
	}
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return ioError(fmt.Errorf("%s already exists; choose another OUT or remove it first", out))
	}
	if err != nil {
		return ioError(err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return ioError(err)
	}
	if err := f.Close(); err != nil {
		return ioError(err)
	}
	fmt.Fprintf(a.stdout, "wrote %s (agent %q, %d skills); try: agent3md route %s \"find usages of main\"\n", out, name, len(cat.Agent().Skills), out)
	return nil
}
