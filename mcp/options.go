package mcp

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/router"
)

// Options configures Serve and NewServer. Source is required; every other
// field has a default, applied once when the server is built
// (withDefaults).
type Options struct {
	// Source is where the served agent comes from (Loaded or Opener) and,
	// in its Changes, what tells the server it changed.
	Source Source
	// Router configures the routing index (cache directory, no-cache, the
	// content hash); nil means router defaults with ContentHash taken from
	// the agent's Catalog().SHA256.
	Router *router.Options
	// Version is the binary's version, reported as serverInfo.version
	// (default "dev").
	Version string
	// MaxLineBytes bounds one incoming line, terminator excluded (default
	// DefaultMaxLineBytes, 4 MiB; flag --max-message-bytes).
	MaxLineBytes int
	// MaxInFlight bounds the requests handled at once on their own
	// goroutines (default DefaultMaxInFlight; flag --max-in-flight). More
	// wait in a queue while stdin is still read, so a client that writes
	// thousands of requests before reading any answer is served.
	MaxInFlight int
	// MaxPendingBytes bounds the bytes of requests read and not yet
	// answered plus answers not yet written (default
	// DefaultMaxPendingBytes, 64 MiB; flag --max-pending-bytes). Past it
	// the server stops reading stdin until the client reads answers, so a
	// client that never reads cannot grow the server's memory without
	// bound.
	MaxPendingBytes int64
	// MaxAnswerBytes bounds one tool answer (default
	// DefaultMaxAnswerBytes, 4 MiB): list_skills pages under it, and any
	// other answer that would pass it is a tool error saying what to ask
	// for instead.
	MaxAnswerBytes int
	// Logger receives diagnostics; it must not write to the protocol
	// stream (default: discard).
	Logger *slog.Logger
	// Ready, when set, is called once, from a background goroutine, when
	// the agent and its routing index have loaded (or failed to), just
	// before routes can use the index: the point from which the server's
	// memory is mostly steady, so cmd tunes the process's memory limit
	// there. It must be quick; Serve does not return while it runs.
	// Default nil.
	Ready func()
	// IndexBuild, when set, is called when a routing index starts being
	// built rather than opened from the cache (at the build's first
	// progress report), with the agent's skill count; the function it
	// returns is called once the router is ready (or failed), before
	// Ready. cmd lowers Go's GC target there for large agents: a cold
	// 100,000-skill build turns over gigabytes on top of the ~110 MB it
	// holds, and the default target lets the heap reach twice that. Both
	// run on the build's goroutine and must be quick. Default nil.
	IndexBuild func(skills int) (end func())

	// OnReload, when set, is told the outcome of each reload that found
	// new content: nil once the new version serves, or why it could not
	// (it did not open, or its routing index did not build) and the last
	// good version keeps serving. A save that left the bytes as they
	// were, and a reload cut short by the server's end, are not reported.
	// serve counts them (its metrics); it must be quick.
	OnReload func(err error)
	// Projection, when set, renders the agent3md/1 JSON projection served
	// as agent3md://manifest (loader.Agent.Projection, encoded as cmd's
	// export prints it).
	Projection func(context.Context, *loader.Agent) ([]byte, error)
}

// OpenFunc opens a version of the agent.
type OpenFunc func(context.Context) (*loader.Agent, error)

// Source is where the served agent comes from: an agent already open
// (Loaded) or one the server opens in the background (Opener). Changes,
// when set, tells the server the agent changed; the zero Changes serves it
// as loaded. A zero Source serves nothing: Serve and NewServer refuse it.
type Source struct {
	// Changes says when the agent has changed and settled, and opens each
	// new version: the server watches what WatchFile or WatchFolders
	// names, or reads the caller's Signals; it then opens the new
	// generation off the request path, swaps it in whole and tells
	// clients (docs/protocol.md §9). Serve and Server.Close stop the
	// watcher before they return.
	Changes Changes

	agent *loader.Agent
	open  OpenFunc
	head  *loader.Head
}

// Loaded serves a, opened already: it serves from the start, and the
// caller closes it after the server.
func Loaded(a *loader.Agent) Source { return Source{agent: a} }

// Opener serves the agent open opens, in the background, so the handshake
// is answered (from head) while a large file loads; requests that need the
// skills wait for it. The server calls open once and closes what it
// returns. If open fails, the error is logged at once, every request that
// needs the agent gets it as an internal error, and Serve returns it when
// the input ends.
//
// head is the start of the agent file (loader.ReadHead): the agent's name
// and identity for initialize and server/discover before open finishes.
// Nil means those wait for the agent, and answer its load error when it
// fails; with a head they answer at once and report only a load that has
// already failed.
func Opener(open OpenFunc, head *loader.Head) Source {
	return Source{open: open, head: head}
}

// empty reports a Source built by neither Loaded nor Opener.
func (s *Source) empty() bool { return s.agent == nil && s.open == nil }

// Changes is what tells the server its agent changed, and how to open the
// new version (Source.Changes). Build it with WatchFile, WatchFolders or
// Signals; reopen should refuse a file being written (loader.OpenStable).
type Changes struct {
	file    string
	folders []string
	signals <-chan struct{}
	reopen  OpenFunc
}

// WatchFile watches the agent file at path: its directory, so a save by
// rename or by unlink and re-create is seen.
func WatchFile(path string, reopen OpenFunc) Changes {
	return Changes{file: path, reopen: reopen}
}

// WatchFolders watches the roots of skill folders and every directory
// below them.
func WatchFolders(roots []string, reopen OpenFunc) Changes {
	return Changes{folders: roots, reopen: reopen}
}

// Signals takes the caller's own signal on ch each time the agent has
// changed and settled.
func Signals(ch <-chan struct{}, reopen OpenFunc) Changes {
	return Changes{signals: ch, reopen: reopen}
}

// set reports Changes built by one of its constructors.
func (c *Changes) set() bool {
	return c.reopen != nil || c.signals != nil || c.file != "" || len(c.folders) > 0
}

// check refuses a Source that cannot be served, naming what is missing.
func (s *Source) check() error {
	if s.empty() {
		return errors.New("mcp: Options.Source is empty: build it with mcp.Loaded (an open agent) or mcp.Opener (open the agent file with loader.Open)")
	}
	c := &s.Changes
	if c.set() && c.reopen == nil {
		return errors.New("mcp: Options.Source.Changes has no reopen function to open each new version")
	}
	if c.reopen != nil && c.signals == nil && c.file == "" && len(c.folders) == 0 {
		return errors.New("mcp: Options.Source.Changes names no file, no folder and no signals")
	}
	return nil
}

// The defaults of Options' bounds, which withDefaults applies.
const (
	// DefaultMaxLineBytes bounds one incoming stdio line, terminator
	// excluded.
	DefaultMaxLineBytes = 4 << 20
	// DefaultMaxInFlight is how many handler goroutines one connection
	// runs at once; requests past it wait in the connection's queue, stdin
	// is still read.
	DefaultMaxInFlight = 64
	// DefaultMaxPendingBytes bounds what one connection holds for a client
	// that writes faster than it reads: the bytes of requests read and not
	// yet answered plus the bytes of answers not yet written to stdout.
	// Past it the server stops reading stdin until the client reads some
	// answers.
	DefaultMaxPendingBytes = 64 << 20
	// DefaultMaxAnswerBytes bounds one tool answer: 4 MiB, well under the
	// 10 MB a TypeScript SDK client reads in one line. list_skills pages to
	// stay under it; any other tool answer that would pass it becomes a
	// tool error saying what to ask for instead.
	DefaultMaxAnswerBytes = 4 << 20
)

// withDefaults is opts with every unset field at its default: the one
// place defaults are applied.
func (opts *Options) withDefaults() *Options {
	o := *opts
	if o.Version == "" {
		o.Version = "dev"
	}
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = DefaultMaxLineBytes
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = DefaultMaxInFlight
	}
	if o.MaxPendingBytes <= 0 {
		o.MaxPendingBytes = DefaultMaxPendingBytes
	}
	if o.MaxAnswerBytes <= 0 {
		o.MaxAnswerBytes = DefaultMaxAnswerBytes
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &o
}
