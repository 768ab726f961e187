package main

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/internal/filekind"
	"github.com/agent3md/agent3md/loader"
)

func (a *app) newCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "new NAME [OUT]",
		Short: "Write a new, valid agent file to start from",
		Long: `new writes a small agent named NAME to OUT (default NAME.3md, or the
endpoint's slug for a NAME a shell would need quoted: "Release Helper"
writes release-helper.3md): an identity
plane, a command-backed skill with typed inputs and a guidance-only skill it
links to; and beside it, OUT with .cases.tsv for .3md, a starter file of
routing cases for 'agent3md eval' to grow as the skills do. It never
overwrites an existing file. NAME is the agent's title
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
// write. A lone argument naming a path is the file, not the name, so
// "new my.3md" writes my.3md, not my.3md.3md for an agent called
// "my.3md".
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
		return arg, defaultNewFile(arg), nil
	}
	base := filepath.Base(arg)
	if strings.EqualFold(ext, ".3md") {
		return strings.TrimSuffix(base, ext), arg, nil
	}
	return base, arg + ".3md", nil
}

// scaffold writes the starter agent (agentfile.Starter) named name to out,
// never over an existing file.
func (a *app) scaffold(name, out string) error {
	name = strings.TrimSpace(name)
	text, cat, err := agentfile.Starter(name)
	if err != nil {
		return ioError(err)
	}
	switch err := filekind.WriteNew(out, text); {
	case errors.Is(err, fs.ErrExist):
		return ioError(fmt.Errorf("%s already exists; choose another OUT or remove it first", out))
	case errors.Is(err, fs.ErrNotExist):
		dir := filepath.Dir(out)
		return ioError(fmt.Errorf("cannot write %s: its directory %s does not exist; create it first (mkdir -p %s)", out, dir, shellWord(dir)))
	case err != nil:
		return ioError(err)
	}
	fmt.Fprintf(a.stdout, "wrote %s (agent %q, %d skills); try: agent3md route %s \"find usages of main\"\n", out, name, len(cat.Agent().Skills), shellWord(out))
	cases := casesPathFor(out)
	switch err := filekind.WriteNew(cases, []byte(starterCases)); {
	case errors.Is(err, fs.ErrExist):
		fmt.Fprintf(a.stderr, "agent3md: %s already exists; left as it is\n", cases)
	case err != nil:
		return ioError(fmt.Errorf("writing the starter cases: %w", err))
	default:
		fmt.Fprintf(a.stdout, "wrote %s (routing cases); test them: agent3md eval %s %s\n", cases, shellWord(out), shellWord(cases))
	}
	return nil
}

// casesPathFor is the cases file beside an agent file: agent.3md ->
// agent.cases.tsv.
func casesPathFor(agentFile string) string {
	base := agentFile
	if ext := filepath.Ext(base); strings.EqualFold(ext, ".3md") {
		base = strings.TrimSuffix(base, ext)
	}
	return base + ".cases.tsv"
}

// starterCases are the routing cases of the starter agent (agentfile.
// Starter), in the TSV grammar eval reads (docs/writing-skills.md §4):
// every one passes, so a failing one after an edit is the edit's doing.
const starterCases = `# Routing cases for agent3md eval: one a line, the request a user would
# type, a tab, then the skill it should reach (- when no skill should).
# Lines starting with # are comments. Run:
#   agent3md eval AGENT.3md THIS-FILE
# Add a case for each way people ask for each skill, and a few requests
# no skill should take.
find usages of parseConfig	search-code
where is the retry limit defined	search-code
grep for TODO in the api folder	search-code
explain what these results mean	explain-results
summarise results of the last search	explain-results
book a table for two tonight	-
`

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
