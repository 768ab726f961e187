package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/router"
)

// app holds what every command shares: its streams and common flags. There
// are no package-level flag variables, so tests run commands in parallel.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	limits   agentfile.Limits
	lineFlag string // the flag that sets limits.MaxLineBytes on this command
	cache    cacheFlags
	// useCache is set by the commands that take the cache flags (mcp,
	// route, run, index): they also keep the scanned catalog in the cache,
	// so their next start skips the scan.
	useCache bool
}

type cacheFlags struct {
	dir     string
	noCache bool
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
  agent3md route examples/devtools.3md "why is the build failing"
  agent3md selftest examples/devtools.3md   # drive the MCP server end to end`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version,
	}
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetIn(a.stdin)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return ioError(fmt.Errorf("%w (see '%s --help')", err, c.CommandPath()))
	})
	root.AddCommand(
		a.parseCmd(), a.validateCmd(), a.newCmd(),
		a.manifestCmd(), a.skillsCmd(), a.routeCmd(), a.getCmd(), a.resolveCmd(),
		a.runCmd(), a.exportCmd(), a.indexCmd(),
		a.mcpCmd(), a.selftestCmd(), a.versionCmd(),
	)
	return root
}

// args wraps a cobra positional-argument check so that a wrong count is a
// usage error (exit 2) with the command's usage line.
func args(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(c *cobra.Command, a []string) error {
		if err := check(c, a); err != nil {
			return ioError(fmt.Errorf("%s: %w\nusage: %s", c.Name(), err, c.UseLine()))
		}
		return nil
	}
}

// addLimitFlags registers the scanner's bounds (DESIGN §3) on fs.
func (a *app) addLimitFlags(fs *pflag.FlagSet) {
	a.addLimitFlagsNamed(fs, "max-line-bytes")
}

// addLimitFlagsNamed is addLimitFlags for a command whose --max-line-bytes
// means something else: the agent file's line bound takes lineFlag instead.
func (a *app) addLimitFlagsNamed(fs *pflag.FlagSet, lineFlag string) {
	l := &a.limits
	fs.Int64Var(&l.MaxBytes, "max-bytes", agentfile.DefaultMaxBytes, "largest agent file accepted, in bytes")
	fs.IntVar(&l.MaxLineBytes, lineFlag, agentfile.DefaultMaxLineBytes, "longest line accepted in the agent file, in bytes")
	fs.IntVar(&l.MaxFrontmatterLines, "max-frontmatter-lines", agentfile.DefaultMaxFrontmatterLines, "most frontmatter lines accepted")
	fs.IntVar(&l.MaxPlanes, "max-planes", agentfile.DefaultMaxPlanes, "most planes (identity + skills) accepted")
	fs.IntVar(&l.MaxAttributes, "max-attributes", agentfile.DefaultMaxAttributes, "most key=value attributes on one @plane line")
	fs.IntVar(&l.MaxAttributeBytes, "max-attribute-bytes", agentfile.DefaultMaxAttributeBytes, "longest attribute value accepted, in bytes")
	fs.IntVar(&l.MaxLinks, "max-links", agentfile.DefaultMaxLinks, "most [[z=…]] links accepted in the whole file")
	fs.IntVar(&l.MaxDescriptionBytes, "max-description-bytes", agentfile.DefaultMaxDescriptionBytes, "body prefix read to build a skill's description, in bytes")
}

// addCacheFlags registers the routing index cache flags (DESIGN §5).
func (a *app) addCacheFlags(fs *pflag.FlagSet) {
	fs.StringVar(&a.cache.dir, "cache-dir", "", "routing index cache directory (default $XDG_CACHE_HOME/agent3md)")
	fs.BoolVar(&a.cache.noCache, "no-cache", false, "never read or write the routing index cache")
}

// routerOptions returns the index options for an opened agent.
func (a *app) routerOptions(ag *loader.Agent) *router.Options {
	return &router.Options{ContentHash: ag.Catalog().SHA256, CacheDir: a.cache.dir, NoCache: a.cache.noCache}
}

// checkAgentPath refuses what is not a regular, readable .3md file before
// anything tries to scan it.
func checkAgentPath(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return ioError(fmt.Errorf("cannot read agent file: %w", err))
	}
	if !st.Mode().IsRegular() {
		return ioError(fmt.Errorf("%s is not a regular file; pass the path of an agent .3md file", path))
	}
	if !strings.EqualFold(filepath.Ext(path), ".3md") {
		return ioError(fmt.Errorf("%s does not end in .3md; agent files are named like agent.3md", path))
	}
	return nil
}

// open loads an agent for the commands that serve it.
func (a *app) open(path string) (*loader.Agent, error) {
	if err := checkAgentPath(path); err != nil {
		return nil, err
	}
	ag, err := loader.Open(path, a.loaderOptions(path))
	if err != nil {
		return nil, a.loadError(err)
	}
	return ag, nil
}

// head reads the start of an agent file for the mcp command's handshake,
// with open's checks and exit codes.
func (a *app) head(path string) (*loader.Head, error) {
	if err := checkAgentPath(path); err != nil {
		return nil, err
	}
	h, err := loader.ReadHead(path, a.loaderOptions(path))
	if err != nil {
		return nil, a.loadError(err)
	}
	return h, nil
}

func (a *app) loaderOptions(path string) *loader.Options {
	opts := &loader.Options{Parse: agentfile.Options{File: path, Limits: a.limits}}
	if a.useCache && !a.cache.noCache {
		if dir, err := router.CacheRoot(a.cache.dir); err == nil {
			opts.CatalogCache = dir
		}
	}
	return opts
}

// loadError names the flag this command really has for a line limit and
// sets the exit code.
func (a *app) loadError(err error) error {
	var le *agentfile.LimitError
	if errors.As(err, &le) && le.Flag == "--max-line-bytes" && a.lineFlag != "" {
		le.Flag = a.lineFlag
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
