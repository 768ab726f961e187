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
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/loader"
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
links to. It never overwrites an existing file. NAME is the agent's title
and file name: at most 100 characters, without quotes, colons, backslashes
or control characters.

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

// maxNameChars bounds the agent name new accepts: a name is a title and a
// file name, and one longer than this is a mistake (a pasted paragraph),
// not a name.
const maxNameChars = 100

// checkNewName refuses a name the scaffold cannot carry as written: the
// name sits in the frontmatter (where a colon starts a value and a quoted
// value loses its quotes) and in a quoted label="…" (where a backslash
// escapes and a quote closes), and it names the file. Anything else would
// come out of the scaffold's own self-check as an "internal error", or
// silently as another name.
func checkNewName(name string) error {
	const rule = "use letters, digits, spaces, - or _; no quotes, colons, backslashes or control characters"
	switch {
	case name == "":
		return fmt.Errorf("agent name is empty; %s", rule)
	case !utf8.ValidString(name):
		return fmt.Errorf("agent name %q is not valid UTF-8; %s", name, rule)
	case utf8.RuneCountInString(name) > maxNameChars:
		return fmt.Errorf("agent name is %d characters long, over the limit of %d; choose a shorter one", utf8.RuneCountInString(name), maxNameChars)
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return fmt.Errorf("agent name %q holds the control character U+%04X; %s", name, r, rule)
		}
		if strings.ContainsRune("\"'\\:", r) {
			return fmt.Errorf("agent name %q holds the character %c; %s", name, r, rule)
		}
	}
	return nil
}

// titleOf is name with its first letter in upper case. It works on the
// first rune, not the first byte: upper-casing half of a multi-byte letter
// wrote a name that was not UTF-8.
func titleOf(name string) string {
	r, size := utf8.DecodeRuneInString(name)
	return string(unicode.ToUpper(r)) + name[size:]
}

func (a *app) scaffold(name, out string) error {
	name = strings.TrimSpace(name)
	if err := checkNewName(name); err != nil {
		return ioError(err)
	}
	var buf bytes.Buffer
	title := titleOf(name)
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
	if errors.Is(err, fs.ErrNotExist) {
		dir := filepath.Dir(out)
		return ioError(fmt.Errorf("cannot write %s: its directory %s does not exist; create it first (mkdir -p %s)", out, dir, shellWord(dir)))
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
	fmt.Fprintf(a.stdout, "wrote %s (agent %q, %d skills); try: agent3md route %s \"find usages of main\"\n", out, name, len(cat.Agent().Skills), shellWord(out))
	return nil
}

// shellWord is path as the user can paste it into a shell: as it is when
// it holds only characters no shell treats specially, else single-quoted.
func shellWord(path string) string {
	for _, r := range path {
		if r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			continue
		}
		if !(r < utf8.RuneSelf && (r == '-' || r == '_' || r == '.' || r == '/' || r == '+' || r == ',' || r == '@' || r == '%' || r == '=' || r == ':' ||
			(r|0x20 >= 'a' && r|0x20 <= 'z') || (r >= '0' && r <= '9'))) {
			return loader.Quote(path)
		}
	}
	return path
}
