package mcp

import (
	"context"
	"log/slog"

	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/router"
)

// Options configures Serve. Agent or Open is required; every other field
// has a default.
type Options struct {
	// Agent is the opened agent file whose skills are served.
	Agent *loader.Agent
	// Open, used when Agent is nil, opens the agent in the background so
	// the handshake is answered (from Head) while a large file loads;
	// requests that need the skills wait for it. Serve closes the agent it
	// opened. If Open fails, the error is logged at once, every request
	// that needs the agent gets it as an internal error, and Serve returns
	// it when the input ends.
	Open func(context.Context) (*loader.Agent, error)
	// Head is the start of the agent file (loader.ReadHead): the agent's
	// name and identity for initialize and server/discover before Open
	// finishes. Nil means those wait for the agent, and answer its load
	// error when it fails; with a head they answer at once and report only
	// a load that has already failed.
	Head *loader.Head
	// Router configures the routing index (cache directory, no-cache, the
	// content hash); nil means router defaults with ContentHash taken from
	// Agent.Catalog().SHA256.
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

	// Watch, when set with Reopen, names the agent file or skill folders
	// the agent is read from: the server watches them (internal/watch)
	// and, each time they have changed and settled, opens the new version
	// with Reopen off the request path, swaps it in whole, and tells
	// clients (docs/protocol.md §9). Serve and Server.Close stop the
	// watcher before they return. Nil, with Changes nil: the agent is
	// served as loaded.
	Watch *Watch
	// Changes, when set with Reopen, carries the caller's own signal
	// each time the agent has changed and settled, instead of Watch.
	Changes <-chan struct{}
	// Reopen opens the agent file's current version for a reload. It
	// should refuse a file being written (loader.OpenStable).
	Reopen func(context.Context) (*loader.Agent, error)
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

	// testMethods adds request methods to the table; tests use it for
	// handlers that block until told to finish.
	testMethods map[string]methodSpec
	// onConn, when set (tests), sees the connection before it starts.
	onConn func(*conn)
}

// Watch names what the served agent is read from, for Options.Watch: one
// agent file, or the roots of skill folders.
type Watch struct {
	// File is an agent file. Its directory is watched, so a save by
	// rename or by unlink and re-create is seen.
	File string
	// Folders are the roots of skill folders; every directory below them
	// is watched. When set, File is not read.
	Folders []string
}
