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
	"github.com/agent3md/agent3md/internal/memlimit"
	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/mcp"
	"github.com/agent3md/agent3md/router"
)

// mcpCmd is `agent3md mcp`: one agent served to one MCP client over
// stdio (docs/protocol.md).
func (a *app) mcpCmd() *cobra.Command {
	var (
		maxMessage  int
		maxInFlight int
		maxPending  int64
		maxAnswer   int
		logLevel    string
		logFormat   string
		memLimit    string
		noWatch     bool
		folders     folderFlags
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
			level, err := parseLevel(logLevel)
			if err != nil {
				return err
			}
			// Each bound is checked against its stated range: 0 or a
			// negative --max-in-flight or --max-answer-bytes was taken
			// silently as the default.
			for _, b := range []struct {
				name           string
				v, lo, hi, def int64
				unit           string
			}{
				{"max-in-flight", int64(maxInFlight), 1, maxInFlightCeiling, mcp.DefaultMaxInFlight, ""},
				{"max-pending-bytes", maxPending, 1, maxPendingCeiling, mcp.DefaultMaxPendingBytes, "64 MiB"},
				{"max-answer-bytes", int64(maxAnswer), minAnswerBytes, maxAnswerCeiling, mcp.DefaultMaxAnswerBytes, "4 MiB"},
			} {
				if err := checkRange(b.name, b.v, b.lo, b.hi); err != nil {
					def := fmt.Sprint(b.def)
					if b.unit != "" {
						def += ", " + b.unit
					}
					return ioError(fmt.Errorf("%w (default %s)", err, def))
				}
			}
			logger, err := newLogger(a.stderr, level, logFormat)
			if err != nil {
				return err
			}
			mem, err := memlimit.Parse(memLimit)
			if err != nil {
				return ioError(err)
			}
			hintTarget := "" // the file or folder mcpWaitHint names
			// serve runs the server with what both sources share.
			serve := func(opts *mcp.Options) error {
				opts.Router, opts.Version = a.serveRouterOptions(), buildVersion().Version
				opts.MaxLineBytes, opts.MaxInFlight, opts.MaxPendingBytes, opts.MaxAnswerBytes = maxMessage, maxInFlight, maxPending, maxAnswer
				opts.Logger, opts.Projection = logger, projectionJSON
				opts.Ready = func() { mem.Apply(logger); mcpWaitHint(a.stderr, a.stdin, hintTarget) }
				opts.IndexBuild = mem.IndexBuild
				err := mcp.Serve(c.Context(), a.stdin, a.rawStdout, opts) // the protocol stream, never rewritten
				if err != nil && c.Context().Err() == nil {
					var ex *exitError
					if errors.As(err, &ex) {
						return err // a load error, already classified
					}
					return ioError(err)
				}
				return nil
			}
			src, err := a.mcpSources(args, &folders)
			if err != nil {
				return err
			}
			if hintTarget = src.file; hintTarget == "" && len(src.folders) > 0 {
				hintTarget = src.folders[0]
			}
			if src.file == "" {
				if err := a.checkServeArgs(c, "", maxMessage); err != nil {
					return err
				}
				a.useCache = true
				opts := &mcp.Options{}
				// The handshake is answered from AGENT.md while the
				// folders are scanned.
				if head, err := loader.FolderHead(src.folders, &loader.FolderOptions{MaxFileBytes: folders.maxFileBytes}); err == nil {
					opts.Head = head
				}
				opts.Open = func(ctx context.Context) (*loader.Agent, error) {
					ag, err := a.openFolders(ctx, src.folders, &folders)
					if err != nil {
						return nil, err
					}
					a.maintainCache(ag)
					logger.Info("agent3md serving skill folders over stdio", "agent", ag.Info().Name, "skills", len(ag.Info().Skills), "folders", strings.Join(ag.Folders(), ", "), "version", buildVersion().Version)
					return ag, nil
				}
				if !noWatch {
					opts.Watch = &mcp.Watch{Folders: src.folders}
					opts.Reopen = func(ctx context.Context) (*loader.Agent, error) {
						return a.openFolders(ctx, src.folders, &folders)
					}
				}
				return serve(opts)
			}
			args = []string{src.file}
			if err := a.checkServeArgs(c, args[0], maxMessage); err != nil {
				return err
			}
			a.useCache = true
			head, err := a.serveHead(args[0], logger)
			if err != nil {
				return err
			}
			opener := a.open
			opts := &mcp.Options{}
			if !noWatch {
				// Each settled change reloads one whole version.
				opener = a.openVersion
				opts.Watch = &mcp.Watch{File: args[0]}
				opts.Reopen = func(context.Context) (*loader.Agent, error) { return a.openVersion(args[0]) }
			}
			open := func(context.Context) (*loader.Agent, error) {
				ag, err := opener(args[0])
				if err != nil {
					return nil, err
				}
				catalog := "scanned"
				if ag.CatalogCached() {
					catalog = "from cache"
				}
				a.maintainCache(ag)
				logger.Info("agent3md serving over stdio", "agent", ag.Info().Name, "skills", len(ag.Info().Skills), "file", args[0], "catalog", catalog, "version", buildVersion().Version)
				return ag, nil
			}
			opts.Open, opts.Head = open, head
			return serve(opts)
		},
	}
	bytesize.IntVar(c.Flags(), &maxMessage, "max-message-bytes", mcp.DefaultMaxLineBytes, fmt.Sprintf("longest JSON-RPC message (one line) accepted on stdin, in bytes (1 to %d; units B, KiB, MiB, GiB)", maxMessageCeiling))
	c.Flags().IntVar(&maxInFlight, "max-in-flight", mcp.DefaultMaxInFlight, fmt.Sprintf("requests handled at once on their own goroutines; more wait in a queue while stdin is still read (1 to %d)", maxInFlightCeiling))
	bytesize.Int64Var(c.Flags(), &maxPending, "max-pending-bytes", mcp.DefaultMaxPendingBytes, fmt.Sprintf("bytes of requests read but not answered plus answers not yet written; past it the server stops reading stdin until the client reads (1 to %d; units B, KiB, MiB, GiB)", int64(maxPendingCeiling)))
	bytesize.IntVar(c.Flags(), &maxAnswer, "max-answer-bytes", mcp.DefaultMaxAnswerBytes, fmt.Sprintf("largest tool answer, in bytes: list_skills pages under it, and a larger answer is a tool error saying what to ask for instead (%d to %d; units B, KiB, MiB, GiB)", minAnswerBytes, maxAnswerCeiling))
	c.Flags().BoolVar(&noWatch, "no-watch", false, "serve the file as loaded: do not watch it for changes (then the server declares no listChanged or subscribe)")
	c.Flags().StringVar(&logLevel, "log-level", "info", "stderr log level: debug, info, warn or error")
	addLogFormat(c.Flags(), &logFormat)
	c.Flags().StringVar(&memLimit, "memory-limit", "auto", "Go soft memory limit once loaded: auto (follows the live heap plus a margin, so the footprint stays near what the agent needs), off (Go's default, or GOMEMLIMIT), or a size such as 512MiB")
	a.addLimitFlags(c.Flags())
	// --max-file-line-bytes was mcp's name for the agent file's line bound
	// while its --max-line-bytes bounded a JSON-RPC message; kept so old
	// client configurations still start, with a deprecation notice.
	c.Flags().IntVar(&a.limits.MaxLineBytes, "max-file-line-bytes", agentfile.DefaultMaxLineBytes, "")
	// Hidden, and warned about by hand: pflag's deprecation notice goes to
	// the command's output, which for mcp is the protocol stream.
	c.Flags().MarkHidden("max-file-line-bytes")
	a.addCacheFlags(c.Flags())
	folders.add(c.Flags())
	return c
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

// The ranges of mcp's other bounds. A handler goroutine per request in
// flight; pending bytes and one answer are held in memory, like a message.
// An answer bound under 1 KiB would leave room for no answer but the
// error saying it is too small.
const (
	maxInFlightCeiling = 1 << 16
	maxPendingCeiling  = 1 << 40
	minAnswerBytes     = 1 << 10
	maxAnswerCeiling   = 1 << 30
)

// serveRouterOptions are the index cache options for mcp; the server fills
// in the content hash once the agent is loaded.
func (a *app) serveRouterOptions() *router.Options {
	// A cold index answers routes while bleve builds behind it
	// (docs/architecture.md §5): a server's first route should not wait
	// for a build its answer does not need.
	o := &router.Options{NoCache: a.cache.noCache, Background: true}
	if dir, err := a.cacheDir(); err == nil {
		o.CacheDir = dir
	} else {
		o.NoCache = true
	}
	return o
}

func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return 0, ioError(fmt.Errorf("--log-level %q: use debug, info, warn or error", s))
	}
	return l, nil
}

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
