package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/internal/bytesize"
	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/mcp"
)

// mcpCmd is `agent3md mcp`: one agent served to one MCP client over
// stdio (docs/protocol.md).
func (a *app) mcpCmd() *cobra.Command {
	var (
		maxMessage  int
		maxInFlight int
		maxPending  int64
		sf          serverFlags
	)
	c := &cobra.Command{
		Use:   "mcp FILE | mcp DIR...",
		Short: "Serve the agent's skills over MCP on stdin/stdout (what an MCP client launches)",
		Long: `mcp serves FILE to one MCP client over stdio: newline-delimited JSON-RPC on
stdin and stdout, logs on stderr. It speaks the legacy handshake revisions
(2024-11-05 … 2025-11-25) and the stateless 2026-07-28 revision on the same
connection. It offers the tools list_skills, route_skill, get_skill,
resolve_skill and fill_skill; every skill as an Agent Skills directory of
skill:// resources (SKILL.md, references, _manifest) and through the skills
extension (skills/list, skills/get); a prompt per skill; and completion.
The file is watched: a saved change is reloaded whole and announced to the
client (--no-watch turns this off). It exits 0 when stdin closes.

Instead of a file, mcp serves Agent Skills folders: each DIR (and, with
--claude-skills, --cursor-skills, --codex-skills or --agents-skills, that
user folder if it exists) is searched for folders holding a SKILL.md, and
all of them are served as one agent, every file of a skill byte for byte
(docs/skill-folders.md §10). Skill names must be unique across the
folders. The folders are watched: a change re-scans them.

Point a client at it with the command "agent3md" and the arguments
["mcp", "/absolute/path/to/agent.3md"].`,
		Example: `  agent3md mcp examples/devtools.3md
  claude mcp add devtools -- agent3md mcp "$PWD/examples/devtools.3md"
  agent3md mcp --claude-skills ./skills`,
		Args: args(cobra.ArbitraryArgs),
		RunE: func(c *cobra.Command, args []string) error {
			// Each bound is checked against its stated range, so 0 or a
			// negative --max-in-flight is refused, never read silently as
			// the default.
			if err := checkDefaultRange("max-in-flight", int64(maxInFlight), 1, maxInFlightCeiling, fmt.Sprint(mcp.DefaultMaxInFlight)); err != nil {
				return err
			}
			if err := checkDefaultRange("max-pending-bytes", maxPending, 1, maxPendingCeiling, fmt.Sprint(mcp.DefaultMaxPendingBytes, ", 64 MiB")); err != nil {
				return err
			}
			logger, mem, err := sf.start(a)
			if err != nil {
				return err
			}
			src, err := a.mcpSources(args, &sf.folders)
			if err != nil {
				return err
			}
			hintTarget := src.file // the file or folder mcpWaitHint names
			if hintTarget == "" && len(src.folders) > 0 {
				hintTarget = src.folders[0]
			}
			if err := a.checkServeArgs(c, src.file, maxMessage); err != nil {
				return err
			}
			a.useCache = true
			var source mcp.Source
			if src.file == "" {
				source = a.mcpFolderSource(src.folders, &sf, logger)
			} else if source, err = a.mcpFileSource(src.file, &sf, logger); err != nil {
				return err
			}
			opts := a.serverOptions(&sf, source, logger, mem)
			opts.MaxLineBytes, opts.MaxInFlight, opts.MaxPendingBytes = maxMessage, maxInFlight, maxPending
			opts.Ready = func() { mem.Apply(logger); mcpWaitHint(a.stderr, a.stdin, hintTarget) }
			err = mcp.Serve(c.Context(), a.stdin, a.rawStdout, opts) // the protocol stream, never rewritten
			if err != nil && c.Context().Err() == nil {
				var ex *exitError
				if errors.As(err, &ex) {
					return err // a load error, already classified
				}
				return ioError(err)
			}
			return nil
		},
	}
	a.addServerFlags(c.Flags(), &sf, serverUsage{
		maxAnswer: fmt.Sprintf("largest tool answer, in bytes: list_skills pages under it, and a larger answer is a tool error saying what to ask for instead (%d to %d; units B, KiB, MiB, GiB)", minAnswerBytes, maxAnswerCeiling),
		noWatch:   "serve the file as loaded: do not watch it for changes (then the server declares no listChanged or subscribe)",
		memLimit:  "Go soft memory limit once loaded: auto (follows the live heap plus a margin, so the footprint stays near what the agent needs), off (Go's default, or GOMEMLIMIT), or a size such as 512MiB",
	})
	bytesize.IntVar(c.Flags(), &maxMessage, "max-message-bytes", mcp.DefaultMaxLineBytes, fmt.Sprintf("longest JSON-RPC message (one line) accepted on stdin, in bytes (1 to %d; units B, KiB, MiB, GiB)", maxMessageCeiling))
	c.Flags().IntVar(&maxInFlight, "max-in-flight", mcp.DefaultMaxInFlight, fmt.Sprintf("requests handled at once on their own goroutines; more wait in a queue while stdin is still read (1 to %d)", maxInFlightCeiling))
	bytesize.Int64Var(c.Flags(), &maxPending, "max-pending-bytes", mcp.DefaultMaxPendingBytes, fmt.Sprintf("bytes of requests read but not answered plus answers not yet written; past it the server stops reading stdin until the client reads (1 to %d; units B, KiB, MiB, GiB)", int64(maxPendingCeiling)))
	// --max-file-line-bytes is an alias of the agent file's line bound
	// (--max-line-bytes) that client configurations written for mcp's
	// older flag names pass; it is accepted, hidden, with a deprecation
	// notice, so they start.
	c.Flags().IntVar(&a.limits.MaxLineBytes, "max-file-line-bytes", agentfile.DefaultMaxLineBytes, "")
	// Hidden, and warned about by hand: pflag's deprecation notice goes to
	// the command's output, which for mcp is the protocol stream.
	c.Flags().MarkHidden("max-file-line-bytes")
	return c
}

// mcpFolderSource serves skill folders: the handshake is answered from
// their AGENT.md while they are scanned, and a change below a root
// re-scans them.
func (a *app) mcpFolderSource(roots []string, sf *serverFlags, logger *slog.Logger) mcp.Source {
	var head *loader.Head
	if h, err := loader.FolderHead(roots, &loader.FolderOptions{MaxFileBytes: sf.folders.maxFileBytes}); err == nil {
		head = h
	}
	src := mcp.Opener(func(ctx context.Context) (*loader.Agent, error) {
		ag, err := a.openFolders(ctx, roots, &sf.folders)
		if err != nil {
			return nil, err
		}
		a.maintainCache(ag)
		logger.Info("agent3md serving skill folders over stdio", "agent", ag.Info().Name, "skills", len(ag.Info().Skills), "folders", strings.Join(ag.Folders(), ", "), "version", buildVersion().Version)
		return ag, nil
	}, head)
	src.Changes = sf.watch(mcp.WatchFolders(roots, func(ctx context.Context) (*loader.Agent, error) {
		return a.openFolders(ctx, roots, &sf.folders)
	}))
	return src
}

// mcpFileSource serves an agent file: a large one answers the handshake
// from its head while it loads (serveHead), and each settled change
// reloads one whole version (openVersion).
func (a *app) mcpFileSource(file string, sf *serverFlags, logger *slog.Logger) (mcp.Source, error) {
	head, err := a.serveHead(file, logger)
	if err != nil {
		return mcp.Source{}, err
	}
	opener := a.openVersion
	if sf.noWatch {
		opener = a.open
	}
	src := mcp.Opener(func(context.Context) (*loader.Agent, error) {
		ag, err := opener(file)
		if err != nil {
			return nil, err
		}
		catalog := "scanned"
		if ag.CatalogCached() {
			catalog = "from cache"
		}
		a.maintainCache(ag)
		logger.Info("agent3md serving over stdio", "agent", ag.Info().Name, "skills", len(ag.Info().Skills), "file", file, "catalog", catalog, "version", buildVersion().Version)
		return ag, nil
	}, head)
	src.Changes = sf.watch(mcp.WatchFile(file, func(context.Context) (*loader.Agent, error) { return a.openVersion(file) }))
	return src, nil
}

// checkServeArgs refuses what mcp cannot serve from and warns about the
// old name of the file line bound.
func (a *app) checkServeArgs(c *cobra.Command, file string, maxMessage int) error {
	if err := noStdin("mcp", file, "it carries the protocol"); err != nil {
		return err
	}
	if file != "" {
		if st, err := os.Stat(file); err == nil && !st.IsDir() {
			if err := checkServedPath(file); err != nil {
				return err
			}
		}
	}
	if c.Flags().Changed("max-file-line-bytes") {
		fmt.Fprintln(a.stderr, "agent3md: warning: --max-file-line-bytes is deprecated: use --max-line-bytes (the agent file's line bound on every command); a JSON-RPC message is bounded by --max-message-bytes")
	}
	return checkRange("max-message-bytes", int64(maxMessage), 1, maxMessageCeiling)
}

// maxMessageCeiling is the largest --max-message-bytes: one message is
// held whole in memory.
const maxMessageCeiling = 1 << 30

// The ranges of mcp's other bounds: a handler goroutine per request in
// flight; pending bytes are held in memory, like a message.
const (
	maxInFlightCeiling = 1 << 16
	maxPendingCeiling  = 1 << 40
)

// headMinBytes is the size from which mcp answers the handshake from the
// head of the agent file while the rest loads. A smaller file loads in tens
// of milliseconds, so its handshake waits for the load and can answer a
// broken file with the reason, wherever in the file the error sits.
const headMinBytes = 8 << 20

// serveHead reads the head of a large agent file for an early handshake;
// nil for a small one. A head that is invalid is left to the load, which
// finds the same error and answers the handshake with it: the client hears
// why, instead of seeing the server exit. Path and I/O errors still stop
// the start.
func (a *app) serveHead(arg string, logger *slog.Logger) (*loader.Head, error) {
	path, _, err := a.agentPath(arg)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() < headMinBytes {
		return nil, nil // a stat error reaches the load, which reports it
	}
	head, err := a.head(arg)
	var ex *exitError
	if errors.As(err, &ex) && ex.code == exitInvalid {
		logger.Debug("the head of the agent file is invalid; the handshake will answer the load error", "err", err)
		return nil, nil
	}
	return head, err
}
