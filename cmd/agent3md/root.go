package main

import (
	"errors"
	"fmt"
	"github.com/agent3md/agent3md/internal/bytesize"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/internal/editdist"
	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/router"
)

// app holds what every command shares: its streams and common flags. There
// are no package-level flag variables, so tests run commands in parallel.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// rawStdout and rawStderr are the streams as given: stdout and stderr
	// are these behind termSafe when they are terminals. The MCP stream,
	// the progress line and a run command's own output use these.
	rawStdout, rawStderr io.Writer

	limits agentfile.Limits
	cache  cacheFlags
	// stdinPath is the temporary copy of standard input when the agent
	// file argument is "-"; cleanups run when the command ends.
	stdinPath  string
	cleanups   []func()
	warnedName bool // warnName has spoken
	// useCache is set by the commands that take the cache flags (mcp,
	// route, run, index): they also keep the scanned catalog in the cache,
	// so their next start skips the scan.
	useCache bool
	// argv is the command line as given, for hints that quote what was
	// typed where the flag parser's error drops it (valueHint).
	argv []string
}

func newRoot(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "agent3md",
		Short: "Serve an agent3md/1 agent's skills to AI clients over MCP",
		Long: `agent3md loads one agent.3md file — an identity plane plus skill planes with
triggers, typed inputs, command templates and [[z=N]] dependency links — and
serves its skills: over the Model Context Protocol for AI clients, or from
the command line for people and scripts.

The loop it supports is route -> fill -> run: route a request to a skill,
fill the skill's typed inputs, run (or hand back) its command.`,
		Example: `  agent3md mcp examples/devtools.3md        # what an MCP client launches
  agent3md validate examples/*.3md
  agent3md route examples/devtools.3md "why are the tests failing on main"   # → run-tests
  agent3md selftest examples/devtools.3md   # drive the MCP server end to end`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildVersion().Version,
		// No command at all: the help, on stderr, as a usage error.
		RunE: func(c *cobra.Command, _ []string) error {
			c.SetOut(a.stderr)
			c.Help()
			return silent(exitUsage)
		},
		PersistentPreRunE: func(c *cobra.Command, _ []string) error {
			if err := a.checkLimits(c.Flags()); err != nil {
				return err
			}
			return a.checkCacheFlags(c.Flags())
		},
	}
	root.SetUsageFunc(a.usage)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetIn(a.stdin)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return ioError(fmt.Errorf("%w%s (see '%s --help')", err, flagHint(c, err, a.argv), c.CommandPath()))
	})
	root.AddCommand(
		a.parseCmd(), a.validateCmd(), a.newCmd(), a.importCmd(),
		a.manifestCmd(), a.skillsCmd(), a.routeCmd(), a.evalCmd(), a.getCmd(), a.resolveCmd(),
		a.runCmd(), a.exportCmd(), a.indexCmd(),
		a.mcpCmd(), a.serveCmd(), a.selftestCmd(), a.syncCmd(), a.versionCmd(), a.cacheCmd(),
		a.limitsHelp(),
	)
	a.strictGroups(root)
	a.completions(root)
	return root
}

// strictGroups makes a mistyped subcommand an error: a command that only
// groups others (cache, completion), and help given an unknown topic, say
// which word they did not know, suggest the nearest, and exit 2; given no
// subcommand they print their help on stderr and exit 2, as agent3md
// alone does. Left to cobra, they would print their help and exit 0 for
// any arguments, so a script's "agent3md cache prun" would pass as
// success and nobody would hear of the typo.
func (a *app) strictGroups(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	completionExamples(root)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if c == root || !c.HasSubCommands() || c.Runnable() {
			return
		}
		c.Args = func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommand(c, args[0])
			}
			return nil
		}
		c.RunE = func(c *cobra.Command, _ []string) error {
			c.SetOut(a.stderr)
			c.Help()
			return silent(exitUsage)
		}
	}
	walk(root)
	for _, c := range root.Commands() {
		if c.Name() != "help" || c.Run == nil {
			continue
		}
		show := c.Run
		c.Run = nil
		c.RunE = func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				cmd, rest, err := root.Find(args)
				if err != nil || cmd == nil || cmd == root {
					return ioError(fmt.Errorf("no help topic %q; 'agent3md help' lists the commands and topics", strings.Join(args, " ")))
				}
				if len(rest) > 0 && cmd.HasSubCommands() {
					return unknownCommand(cmd, rest[0])
				}
			}
			show(c, args)
			return nil
		}
	}
}

// flagHint adds to an unknown-flag error what the user most likely meant:
// the command's flag one or two letters away ("--skil"), or, for a word
// that is plainly not a flag (it holds a space: "-rf stuff" as the request
// text, a value), how to pass an argument that starts with "-".
func flagHint(c *cobra.Command, err error, argv []string) string {
	msg := err.Error()
	var word string
	switch {
	case strings.HasPrefix(msg, "unknown flag: --"):
		word = strings.TrimPrefix(msg, "unknown flag: ")
	case strings.HasPrefix(msg, "unknown shorthand flag: "):
		if _, arg, ok := strings.Cut(msg, " in "); ok {
			word = arg
		}
	default:
		return ""
	}
	if strings.ContainsAny(word, " \t") || !strings.HasPrefix(word, "--") {
		return "; an argument that starts with - is read as flags: to pass it as text or a value, put -- before it (agent3md " + c.Name() + " … -- '" + word + "')"
	}
	name, _, _ := strings.Cut(strings.TrimPrefix(word, "--"), "=")
	best, bestD := "", 3
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		if d := editdist.Slips(name, f.Name); d < bestD {
			best, bestD = f.Name, d
		}
	})
	if best == "" {
		return valueHint(c, word, argv)
	}
	return "; did you mean --" + best + "?"
}

// unknownCommand is the usage error for a word that names no subcommand
// of c, with cobra's suggestions.
func unknownCommand(c *cobra.Command, word string) error {
	msg := fmt.Sprintf("unknown command %q for %q", word, c.CommandPath())
	if s := c.SuggestionsFor(word); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	names := []string{}
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	return ioError(fmt.Errorf("%s (its commands: %s; see '%s --help')", msg, strings.Join(names, ", "), c.CommandPath()))
}

// args wraps a cobra positional-argument check so that a wrong count is a
// usage error (exit 2) with the command's usage line.
func args(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(c *cobra.Command, a []string) error {
		if err := check(c, a); err != nil {
			return ioError(fmt.Errorf("%s: %w\nusage: %s", c.Name(), err, c.UseLine()))
		}
		return swappedFile(c, a)
	}
}

// routerOptions returns the index options for an opened agent: its cache
// entry (the cache kept under its size cap first), and a progress bar when
// stderr is a terminal, since a cold build on a big agent takes seconds.
func (a *app) routerOptions(ag *loader.Agent) *router.Options {
	hash := ag.Catalog().SHA256
	opts := &router.Options{ContentHash: hash, NoCache: a.cache.noCache}
	if dir, err := a.cacheDir(); err == nil {
		opts.CacheDir = dir
	} else {
		opts.NoCache = true
	}
	a.maintainCache(ag)
	if f, ok := a.rawStderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		opts.Progress = progressBar(f)
	}
	return opts
}

// open loads an agent for the commands that serve it.
func (a *app) open(arg string) (*loader.Agent, error) {
	path, name, err := a.agentPath(arg)
	if err != nil {
		return nil, err
	}
	done := a.scanNote(path, name)
	ag, err := loader.Open(path, a.loaderOptions(path, name))
	done()
	if err != nil {
		return nil, a.loadError(err)
	}
	return ag, nil
}

// openVersion opens one settled version of the agent file for a server
// that watches it: no read ever re-scans it (a reload replaces the whole
// version), and a file being written is waited for, not served half-done
// (loader.OpenStable).
func (a *app) openVersion(arg string) (*loader.Agent, error) {
	path, name, err := a.agentPath(arg)
	if err != nil {
		return nil, err
	}
	opts := a.loaderOptions(path, name)
	opts.NoRescan = true
	done := a.scanNote(path, name)
	ag, err := loader.OpenStable(path, opts)
	done()
	if err != nil {
		return nil, a.loadError(err)
	}
	return ag, nil
}

// scanNoteBytes is the file size from which a terminal is told that the
// scan is under way: about a second of scanning.
const scanNoteBytes = 64 << 20

// scanNote says on a terminal that a large file is being read, and clears
// the line when done is called: a cold start on a big agent is otherwise
// silent for seconds before the index progress bar appears.
func (a *app) scanNote(path, name string) (done func()) {
	f, ok := a.rawStderr.(*os.File)
	st, err := os.Stat(path)
	if !ok || err != nil || st.Size() < scanNoteBytes || !term.IsTerminal(int(f.Fd())) {
		return func() {}
	}
	fmt.Fprintf(f, "reading %s (%s)…", name, bytesize.Human(st.Size()))
	return func() { fmt.Fprint(f, "\r\033[K") }
}

// head reads the start of an agent file for the mcp command's handshake,
// with open's checks and exit codes.
func (a *app) head(arg string) (*loader.Head, error) {
	path, name, err := a.agentPath(arg)
	if err != nil {
		return nil, err
	}
	h, err := loader.ReadHead(path, a.loaderOptions(path, name))
	if err != nil {
		return nil, a.loadError(err)
	}
	return h, nil
}

// loaderOptions are the options for reading path, called name in messages.
func (a *app) loaderOptions(path, name string) *loader.Options {
	opts := &loader.Options{Parse: agentfile.Options{File: name, Limits: a.limits}}
	// A copy of standard input is gone after this run: caching its
	// catalog would only fill the cache.
	if a.useCache && !a.cache.noCache && path != a.stdinPath {
		if dir, err := a.cacheDir(); err == nil {
			opts.CatalogCache = dir
		}
	}
	return opts
}

// loadError names standard input in a parse error and sets the exit code.
func (a *app) loadError(err error) error {
	var pe *agentfile.ParseError
	if a.stdinPath != "" && errors.As(err, &pe) && pe.File == a.stdinPath {
		pe.File = stdinName
	}
	return classify(err)
}

// classify maps a load error to an exit code: a file that does not parse
// is invalid input (1); anything else is I/O (2).
func classify(err error) error {
	var pe *agentfile.ParseError
	if errors.As(err, &pe) && pe.Name != agentfile.ReadFailed {
		return invalid(err)
	}
	return ioError(err)
}

// completionExamples gives cobra's generated completion command and its
// shells an Example, as every other command has: the README promises each
// command's --help shows one, and docs/install.md has the lines to copy.
func completionExamples(root *cobra.Command) {
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		if c.Example == "" {
			c.Example = "  source <(agent3md completion bash)   # this shell only; docs/install.md has every shell"
		}
		for _, sh := range c.Commands() {
			if sh.Example != "" {
				continue
			}
			switch sh.Name() {
			case "bash", "zsh":
				sh.Example = "  source <(agent3md completion " + sh.Name() + ")"
			case "fish":
				sh.Example = "  agent3md completion fish | source"
			case "powershell":
				sh.Example = "  agent3md completion powershell | Out-String | Invoke-Expression"
			}
		}
	}
}
