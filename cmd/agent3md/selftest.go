package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/mcpclient"
	"github.com/agent3md/agent3md/selftest"
)

// selftestCmd is `agent3md selftest`: drive an MCP server, spawned or at a
// URL, end to end (docs/selftest.md).
func (a *app) selftestCmd() *cobra.Command {
	var (
		server  string
		asJSON  bool
		timeout time.Duration
		sample  int
		remote  httpClientFlags
	)
	c := &cobra.Command{
		Use:   "selftest [FILE | DIR]",
		Short: "Drive an MCP server end to end and check every answer",
		Long: `selftest spawns an MCP server — by default this binary's own
'agent3md mcp FILE' (or a skills folder DIR), or any command given with --server — and drives it as a
client: the legacy handshake and the 2026-07-28 discover, tools/list, every
skill tool on every skill, error cases, robustness probes (malformed and
oversized lines, bad ids, unknown methods) and a clean exit on EOF. It prints
one line per check and exits 1 if any fails.

With --url it drives a Streamable HTTP endpoint the same way instead of
spawning anything, skips the stdio-only checks and adds the HTTP ones (405
on GET, 202 for notifications, no session id, 403 for a foreign Origin,
401 without the token). A FILE given with --url is the agent the endpoint
serves: bodies are then compared with the library's.`,
		Example: `  agent3md selftest examples/devtools.3md
  agent3md selftest --server 'node ./reference-server.js agent.3md'
  agent3md selftest --url http://127.0.0.1:8765/mcp
  AGENT3MD_TOKEN=... agent3md selftest --url https://skills.example/mcp --ca-file ca.pem`,
		Args: args(cobra.MaximumNArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			if sample < 1 {
				return ioError(fmt.Errorf("--sample %d: use a positive number of skills (default %d)", sample, selftest.DefaultSample))
			}
			opts := &selftest.Options{Timeout: timeout, Sample: sample}
			if err := remote.apply(opts, server); err != nil {
				return err
			}
			return a.selftest(c.Context(), args, server, asJSON, opts)
		},
	}
	c.Flags().StringVar(&server, "server", "", "server command line to test instead of 'agent3md mcp FILE' (words split on spaces; quote a word with ' or \")")
	c.Flags().DurationVar(&timeout, "timeout", selftest.DefaultTimeout, "how long each request may take (raise it for very large agents)")
	c.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	c.Flags().IntVar(&sample, "sample", selftest.DefaultSample, "how many skills the per-skill checks visit, spread evenly over the catalog (bounds the run on very large agents)")
	remote.addFlags(c)
	a.addLimitFlags(c.Flags())
	return c
}

func (a *app) selftest(ctx context.Context, args []string, server string, asJSON bool, opts *selftest.Options) error {
	switch {
	case opts.URL != "" && len(args) == 1:
		closeAgent, err := a.selftestExpect(ctx, args[0], opts)
		if err != nil {
			return err
		}
		defer closeAgent()
	case opts.URL != "":
	case server != "":
		words, err := mcpclient.SplitCommand(server)
		if err != nil {
			return ioError(fmt.Errorf("--server: %w", err))
		}
		opts.Command = words
	case len(args) == 1:
		if err := noStdin("selftest", args[0], "the server it starts reads the agent file by path"); err != nil {
			return err
		}
		var open func() (*loader.Agent, error)
		if fi, err := os.Stat(args[0]); err == nil && fi.IsDir() {
			// A skills folder: the server serves it as skill folders.
			open = func() (*loader.Agent, error) {
				ag, err := loader.OpenFolders(ctx, args[:1], nil)
				if err != nil {
					return nil, ioError(err)
				}
				return ag, nil
			}
		} else {
			if err := checkServedPath(args[0]); err != nil {
				return err
			}
			open = func() (*loader.Agent, error) { return a.open(args[0]) }
		}
		self, err := os.Executable()
		if err != nil {
			return ioError(fmt.Errorf("cannot find this binary to spawn it: %w", err))
		}
		opts.Command = []string{self, "mcp", args[0]}
		// Our own server: hold its answers to what the library says.
		ag, err := open()
		if err != nil {
			return err
		}
		defer ag.Close()
		expectFrom(ctx, ag, opts)
	default:
		return ioError(fmt.Errorf("selftest needs an agent FILE, --server 'CMD ARGS...' or --url URL"))
	}
	report, err := selftest.Run(ctx, opts)
	if err != nil {
		return ioError(err)
	}
	if asJSON {
		err = report.WriteJSON(a.stdout)
	} else {
		err = report.WriteText(a.stdout)
	}
	if err != nil {
		return ioError(err)
	}
	if !report.OK() {
		return silent(exitInvalid)
	}
	return nil
}
