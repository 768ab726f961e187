package main

import (
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent3md/agent3md/internal/bytesize"
	"github.com/agent3md/agent3md/internal/httpd"
	"github.com/agent3md/agent3md/internal/termsafe"
	"github.com/agent3md/agent3md/mcpclient"
	"github.com/agent3md/agent3md/skillsync"
)

// syncFlags are sync's flags (docs/sync.md, docs/cli.md).
type syncFlags struct {
	server        string
	http          httpClientFlags // --token-file, --ca-file
	watch, dry    bool
	asJSON, force bool
	logFormat     string // with --watch
	interval      time.Duration
	timeout       time.Duration
	workers       int
	maxSkillFiles int
	maxSkills     int
	maxFileBytes  int64
	maxSkillBytes int64
	maxTotalBytes int64
	// listing bounds (docs/sync.md §5)
	maxPages            int
	maxCursorBytes      int
	maxListingBytes     int64
	maxFrontmatterBytes int
}

func (a *app) syncCmd() *cobra.Command {
	var f syncFlags
	c := &cobra.Command{
		Use:   "sync (URL | --server CMD) DIR",
		Short: "Copy a team's skills from any skills server into a folder a host loads (~/.claude/skills), verified by digest",
		Long: `sync copies every skill a skills server serves into DIR, one Agent Skills
folder per skill, the folder a host such as Claude Code loads natively. The
server is a Streamable HTTP endpoint (agent3md serve: https://host/mcp/team)
or a stdio server command (--server 'agent3md mcp team.3md', or any other
skills server).

Skills are found through the skills extension (skills/list with digests),
else skill://<name>/SKILL.md resources with their _manifest, else older
skill://<name> resources. Every file is checked against the SHA-256 digest
the server lists before its skill goes into place; a mismatch keeps the old
version and names the file. Each skill is written whole beside its folder
and renamed into it, so a host never reads half a skill. Unchanged skills
(same digests) are not fetched again.

DIR is safe to share: each folder sync writes holds a marker naming the
source. A folder it did not write, or one written from another source, is
never touched unless --force; nothing is written through a symbolic link,
nor a hidden path (.git/config) or one over 255 bytes an element. In a
folder sync wrote, a file its marker does not list, or one changed in DIR
since sync wrote it, is yours: never replaced or deleted without --force.
A skill the server no longer serves is removed only from this source's
folders, once the server confirms it is gone, and only when its folder
holds no file of yours.

--watch keeps DIR current: the server's change notifications start a new
pass at once (subscriptions/listen on 2026-07-28 servers, list_changed and
resources/updated on older stdio servers), and a pass runs every --interval
whatever it says. A lost server is dialed again, waiting up to 30s between
tries. SIGINT or SIGTERM stops it once the skill being written is in place.

Exit status: 0 every skill synced; 1 a skill was refused (a digest that does
not match, a bad name or path, a folder sync may not write, a file of yours
in the way); 2 a usage or I/O error
(the server cannot be reached or listed, DIR cannot be written, the sync was
interrupted). docs/sync.md has the details.`,
		Example: `  agent3md sync https://skills.example.com/mcp/team ~/.claude/skills --token-file ~/.config/agent3md/token
  agent3md sync https://skills.example.com/mcp/team ~/.claude/skills --watch --token-file ~/.config/agent3md/token
  agent3md sync --server 'agent3md mcp team.3md' ./skills --dry-run
  agent3md sync --json http://127.0.0.1:8765/mcp ./skills`,
		Args: args(cobra.RangeArgs(1, 2)),
		RunE: func(c *cobra.Command, args []string) error {
			return a.sync(c, &f, args)
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.server, "server", "", "sync from this stdio server command instead of a URL (quote it: --server 'agent3md mcp team.3md')")
	fl.StringVar(&f.http.tokenFile, "token-file", "", "send the first bearer token in FILE (one a line, # comments); default $"+httpd.TokenEnv)
	fl.StringVar(&f.http.caFile, "ca-file", "", "also trust the PEM CA certificates in FILE (an https server with a private certificate)")
	fl.BoolVar(&f.watch, "watch", false, "keep DIR current until interrupted")
	addLogFormat(fl, &f.logFormat)
	fl.DurationVar(&f.interval, "interval", skillsync.DefaultInterval, "with --watch: the longest time between two passes, whatever the server says")
	fl.BoolVar(&f.dry, "dry-run", false, "say what would change and write nothing")
	fl.BoolVar(&f.asJSON, "json", false, "print the summary as JSON (one object a pass with --watch)")
	fl.BoolVar(&f.force, "force", false, "write into folders sync did not write from this source, over files of yours (changed or added in DIR), and remove a dropped skill's files though its folder holds some")
	fl.IntVar(&f.workers, "max-in-flight", skillsync.DefaultWorkers, "requests in flight at once while files are read")
	fl.DurationVar(&f.timeout, "timeout", skillsync.DefaultTimeout, "longest wait for one answer")
	bytesize.Int64Var(fl, &f.maxFileBytes, "max-file-bytes", skillsync.DefaultMaxFileBytes, "largest file taken")
	bytesize.Int64Var(fl, &f.maxSkillBytes, "max-skill-bytes", skillsync.DefaultMaxSkillBytes, "largest skill taken, its files together")
	fl.IntVar(&f.maxSkillFiles, "max-skill-files", skillsync.DefaultMaxSkillFiles, "most files in one skill")
	fl.IntVar(&f.maxSkills, "max-skills", skillsync.DefaultMaxSkills, "most skills listed")
	bytesize.Int64Var(fl, &f.maxTotalBytes, "max-total-bytes", skillsync.DefaultMaxTotalBytes, "most bytes of files one pass reads")
	fl.IntVar(&f.maxPages, "max-pages", skillsync.DefaultMaxPages, "most listing pages one pass reads (skills/list, resources/list, resources/directory/read together)")
	bytesize.IntVar(fl, &f.maxCursorBytes, "max-cursor-bytes", skillsync.DefaultMaxCursorBytes, "longest cursor a listing page may give")
	bytesize.Int64Var(fl, &f.maxListingBytes, "max-listing-bytes", skillsync.DefaultMaxListingBytes, "most bytes of listing entries one pass takes (URIs, frontmatter, file lists)")
	bytesize.IntVar(fl, &f.maxFrontmatterBytes, "max-frontmatter-bytes", skillsync.DefaultMaxFrontmatterBytes, "largest frontmatter skills/list may give for one skill (a skill over it is refused)")
	return c
}

// sync runs the command.
func (a *app) sync(c *cobra.Command, f *syncFlags, args []string) error {
	src, dir, err := f.source(args)
	if err != nil {
		return err
	}
	opts, err := f.options(dir)
	if err != nil {
		return err
	}
	if f.watch {
		if f.dry {
			return ioError(fmt.Errorf("--watch and --dry-run: a dry run writes nothing to keep current; drop one"))
		}
		logger, err := newLogger(a.stderr, slog.LevelInfo, f.logFormat)
		if err != nil {
			return err
		}
		return a.syncWatch(c, f, src, opts, logger)
	}
	sum, err := skillsync.Sync(c.Context(), src, opts)
	if err != nil {
		// The error may quote the server: one line, escaped (termsafe.Show),
		// led by its fix where one is known (syncFix).
		fmt.Fprintf(a.stderr, "agent3md: %s\n", shownErr(syncFix(err, src, f.http.tokenFile)))
		return silent(exitUsage)
	}
	if err := a.printSummary(f, sum); err != nil {
		return ioError(err)
	}
	if !sum.OK() {
		return silent(exitInvalid)
	}
	return nil
}

// syncWatch keeps DIR current until the command's context ends (SIGINT,
// SIGTERM); each pass that changed or refused something is printed, and
// each event is logged once, with its time: watching, a failure (led by
// its fix) and the pass that follows it.
func (a *app) syncWatch(c *cobra.Command, f *syncFlags, src *skillsync.Source, opts *skillsync.Options, logger *slog.Logger) error {
	var printErr error
	// opts.Logger stays unset: skillsync's own line for a lost connection
	// would say again what OnPass logs here.
	w := &skillsync.WatchOptions{Interval: f.interval, OnPass: watchLog(logger, src, opts.Dir, f, func(sum *skillsync.Summary) {
		if perr := a.printSummary(f, sum); perr != nil && printErr == nil {
			printErr = perr
		}
	})}
	if err := skillsync.Watch(c.Context(), src, opts, w); err != nil {
		return ioError(err)
	}
	if printErr != nil {
		return ioError(printErr)
	}
	return nil
}

func (a *app) printSummary(f *syncFlags, sum *skillsync.Summary) error {
	if f.asJSON {
		return sum.WriteJSON(a.stdout)
	}
	return sum.WriteText(a.stdout)
}

// source reads the SOURCE and DIR arguments with --server, --token-file
// and --ca-file.
func (f *syncFlags) source(args []string) (*skillsync.Source, string, error) {
	if f.server != "" {
		if len(args) != 1 {
			return nil, "", ioError(fmt.Errorf("sync --server CMD takes one argument, DIR (got %d)", len(args)))
		}
		if f.http.tokenFile != "" || f.http.caFile != "" {
			return nil, "", ioError(fmt.Errorf("--token-file and --ca-file go with a URL, not --server"))
		}
		words, err := mcpclient.SplitCommand(f.server)
		if err != nil || len(words) == 0 {
			return nil, "", ioError(fmt.Errorf("--server: %v", orEmpty(err)))
		}
		return &skillsync.Source{Command: words}, args[0], nil
	}
	if len(args) != 2 {
		return nil, "", ioError(fmt.Errorf("sync takes SOURCE and DIR: a URL (https://host/mcp/team) and a folder, or --server CMD and a folder"))
	}
	u, err := url.Parse(args[0])
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, "", ioError(fmt.Errorf("SOURCE %q is not an http:// or https:// URL; to sync from a stdio server, pass --server 'CMD ARGS' and DIR alone", args[0]))
	}
	if u.User != nil {
		return nil, "", ioError(fmt.Errorf("SOURCE %q carries user info; pass a token with --token-file or $%s instead", u.Redacted(), httpd.TokenEnv))
	}
	token, err := f.http.token()
	if err != nil {
		return nil, "", err
	}
	hc, err := f.http.httpClient()
	if err != nil {
		return nil, "", err
	}
	return &skillsync.Source{URL: args[0], Token: token, HTTPClient: hc}, args[1], nil
}

func orEmpty(err error) string {
	if err == nil {
		return "the command is empty"
	}
	return err.Error()
}

// options checks the bounds and builds the sync's options.
func (f *syncFlags) options(dir string) (*skillsync.Options, error) {
	if strings.TrimSpace(dir) == "" {
		return nil, ioError(fmt.Errorf("DIR is empty"))
	}
	checks := []struct {
		name string
		v    int64
	}{
		{"--max-file-bytes", f.maxFileBytes}, {"--max-skill-bytes", f.maxSkillBytes},
		{"--max-total-bytes", f.maxTotalBytes}, {"--max-skill-files", int64(f.maxSkillFiles)},
		{"--max-skills", int64(f.maxSkills)}, {"--max-in-flight", int64(f.workers)},
		{"--interval", int64(f.interval)}, {"--timeout", int64(f.timeout)},
		{"--max-pages", int64(f.maxPages)}, {"--max-cursor-bytes", int64(f.maxCursorBytes)},
		{"--max-listing-bytes", f.maxListingBytes}, {"--max-frontmatter-bytes", int64(f.maxFrontmatterBytes)},
	}
	for _, c := range checks {
		if c.v <= 0 {
			return nil, ioError(fmt.Errorf("%s must be above 0", c.name))
		}
	}
	if f.workers > 1024 {
		return nil, ioError(fmt.Errorf("--max-in-flight %d is out of range: use a value from 1 to 1024", f.workers))
	}
	return &skillsync.Options{
		Dir: dir, Force: f.force, DryRun: f.dry, Workers: f.workers, Timeout: f.timeout,
		Limits: &skillsync.Limits{
			MaxFileBytes: f.maxFileBytes, MaxSkillBytes: f.maxSkillBytes, MaxSkillFiles: f.maxSkillFiles,
			MaxSkills: f.maxSkills, MaxTotalBytes: f.maxTotalBytes,
			MaxPages: f.maxPages, MaxCursorBytes: f.maxCursorBytes,
			MaxListingBytes: f.maxListingBytes, MaxFrontmatterBytes: f.maxFrontmatterBytes,
		},
	}, nil
}

// shownErr is a sync's error as one line a terminal shows as it is: the
// server's text in it (a URI, a message) cannot move the cursor, retitle
// the window or start a line of its own.
func shownErr(err error) string {
	s, _ := termsafe.Show(err.Error())
	return s
}
