package main

import (
	"fmt"
	"log/slog"

	"github.com/spf13/pflag"

	"github.com/agent3md/agent3md/internal/bytesize"
	"github.com/agent3md/agent3md/internal/memlimit"
	"github.com/agent3md/agent3md/mcp"
	"github.com/agent3md/agent3md/router"
)

// serverFlags are the flags the two serving commands, mcp (stdio) and
// serve (HTTP), share: the stderr logger, the memory limit, the bound on
// one tool answer, whether the agent is watched, and the skill folders
// served. Each command adds its own transport's flags beside them.
type serverFlags struct {
	logLevel, logFormat string
	memLimit            string
	maxAnswer           int
	noWatch             bool
	folders             folderFlags
}

// serverUsage is the help of the shared flags whose wording names the
// command's own transport.
type serverUsage struct {
	maxAnswer, noWatch, memLimit string
}

// add registers the shared flags, with the agent-file limits and the
// cache flags every serving command takes.
func (a *app) addServerFlags(fs *pflag.FlagSet, f *serverFlags, u serverUsage) {
	bytesize.IntVar(fs, &f.maxAnswer, "max-answer-bytes", mcp.DefaultMaxAnswerBytes, u.maxAnswer)
	fs.BoolVar(&f.noWatch, "no-watch", false, u.noWatch)
	fs.StringVar(&f.logLevel, "log-level", "info", "stderr log level: debug, info, warn or error")
	addLogFormat(fs, &f.logFormat)
	fs.StringVar(&f.memLimit, "memory-limit", "auto", u.memLimit)
	a.addLimitFlags(fs)
	a.addCacheFlags(fs)
	f.folders.add(fs)
}

// start checks the shared flags and builds what they configure: the
// stderr logger and the memory limit applied once the agents are loaded.
func (f *serverFlags) start(a *app) (*slog.Logger, memlimit.Limit, error) {
	level, err := parseLevel(f.logLevel)
	if err != nil {
		return nil, memlimit.Limit{}, err
	}
	if err := checkDefaultRange("max-answer-bytes", int64(f.maxAnswer), minAnswerBytes, maxAnswerCeiling, fmt.Sprint(mcp.DefaultMaxAnswerBytes, ", 4 MiB")); err != nil {
		return nil, memlimit.Limit{}, err
	}
	logger, err := newLogger(a.stderr, level, f.logFormat)
	if err != nil {
		return nil, memlimit.Limit{}, err
	}
	mem, err := memlimit.Parse(f.memLimit)
	if err != nil {
		return nil, memlimit.Limit{}, ioError(err)
	}
	return logger, mem, nil
}

// options are the mcp.Options both commands serve src with: the binary's
// version, the routing cache, the answer bound, the JSON projection, the
// logger and the lower GC target a large index build runs at (internal/memlimit).
func (a *app) serverOptions(f *serverFlags, src mcp.Source, logger *slog.Logger, mem memlimit.Limit) *mcp.Options {
	return &mcp.Options{
		Source: src, Router: a.serveRouterOptions(), Version: buildVersion().Version,
		MaxAnswerBytes: f.maxAnswer, Logger: logger, Projection: projectionJSON,
		IndexBuild: mem.IndexBuild,
	}
}

// watch is c, unless --no-watch serves the agent as loaded.
func (f *serverFlags) watch(c mcp.Changes) mcp.Changes {
	if f.noWatch {
		return mcp.Changes{}
	}
	return c
}

// The range of --max-answer-bytes: an answer is held in memory, like a
// message, and a bound under 1 KiB would leave room for no answer but the
// error saying it is too small.
const (
	minAnswerBytes   = 1 << 10
	maxAnswerCeiling = 1 << 30
)

// serveRouterOptions are the index cache options of a served agent; the
// server fills in the content hash once the agent is loaded.
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
