package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/agent3md/agent3md/agentfile"
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

	// testMethods adds request methods to the table; tests use it for
	// handlers that block until told to finish.
	testMethods map[string]methodSpec
	// onConn, when set (tests), sees the connection before it starts.
	onConn func(*conn)
}

// Serve speaks MCP over newline-delimited JSON-RPC on in and out until in
// reaches EOF (it returns once every in-flight response is written, and,
// with Options.Open, once the agent has loaded: nil, or the load error) or
// ctx is cancelled (it returns nil at once; a Read blocked on in is left to
// the process's exit). A read or write failure is returned. The agent
// (with Options.Open) and the routing index load in the background: the
// handshake is answered before they are ready, and requests that need them
// wait.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts *Options) error {
	if opts == nil || (opts.Agent == nil && opts.Open == nil) {
		return errors.New("mcp: Serve needs Options.Agent or Options.Open (open the agent file with loader.Open)")
	}
	outer := ctx // cancelled by the caller (a signal), not by Serve's own end
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := newServer(opts)
	if opts.Agent == nil {
		go s.open(ctx)
		defer s.closeOpened()
	}
	findingsDone := make(chan struct{})
	go func() {
		defer close(findingsDone)
		// outer, not ctx: Serve's own end must not skip the findings.
		if a, err := s.awaitAgent(outer); err == nil && outer.Err() == nil {
			s.logFindings(a)
		}
	}()
	go func() {
		// Ready runs before the index is published, so Serve (which
		// waits for the publication before it returns) never returns
		// while Ready is still running. It is quick: cmd sets a limit.
		ready := func() {
			if opts.Ready != nil && ctx.Err() == nil {
				opts.Ready()
			}
		}
		// With the content hash known from the head, the routing index
		// cache entry opens while the agent file loads; the router adopts
		// it only if it was built from exactly the loaded skills.
		prep := s.prepareRouter(ctx)
		a, err := s.awaitAgent(ctx)
		if err != nil {
			prep.Close()
			ready()
			s.routing.publish(nil, err)
			return
		}
		ro := s.routerOptions()
		ro.Progress = s.routing.reporter(ro.Progress)
		if prep != nil && ro.ContentHash == s.opts.Head.ContentHash {
			ro.Prepared = prep
		} else {
			prep.Close()
		}
		// Logged before it is published, so the line precedes any route
		// answered from the index.
		r, err := router.ForAgent(ctx, a, ro)
		if err == nil {
			info := r.Info()
			s.log.Info("routing index ready", "index", info.Index, "prepared", info.Prepared, "skills", info.Skills, "took", info.Took, "path", info.Path, "reason", info.Reason)
		} else if ctx.Err() == nil {
			s.log.Error("routing index unavailable; route_skill will fail", "err", err)
		}
		ready()
		s.routing.publish(r, err)
	}()
	defer func() {
		cancel() // stops a build still running
		s.routing.closeWhenBuilt()
		// The validation findings are logged before Serve returns, so an
		// operator sees them even when the client leaves at once; a
		// cancelled Serve does not wait for them long.
		select {
		case <-findingsDone:
		case <-time.After(findingsWait):
		}
	}()

	c := newConn(ctx, s, in, out, opts)
	if opts.onConn != nil {
		opts.onConn(c)
	}
	go c.writeLoop()
	go c.readLoop()
	select {
	case <-c.writerDone: // every answer written after EOF, or a write failed
	case <-ctx.Done():
	}
	c.shutdown()
	if err := c.err(); err != nil {
		return err
	}
	// An agent still loading at EOF is waited for, so a broken file is
	// reported (and the exit status says so) even when no request needed it.
	select {
	case <-s.ready:
		return s.loadErr
	case <-ctx.Done():
		return nil
	}
}

// findingsWait bounds how long Serve, returning, waits for the validation
// findings to be logged.
const findingsWait = time.Second

// logFindings logs each validation error of the served agent once, as
// validate prints it (file:line: [rule] message): a file with errors is
// still served, and its operator should hear why it may misbehave.
func (s *server) logFindings(a *loader.Agent) {
	cat := a.Catalog()
	if cat == nil {
		return
	}
	rep := agentfile.Validate(cat)
	for _, f := range rep.Errors {
		msg := fmt.Sprintf("%s:%d: [%s] %s", a.Path(), f.Line, f.Rule, f.Message)
		if f.Z != nil {
			msg = fmt.Sprintf("%s:%d: [%s] z=%v: %s", a.Path(), f.Line, f.Rule, *f.Z, f.Message)
		}
		s.log.Warn("validation error (served anyway; run agent3md validate)", "finding", msg)
	}
}

// loaded publishes the outcome of opening the agent.
func (s *server) loaded(a *loader.Agent, err error) {
	s.agent, s.loadErr = a, err
	if a != nil {
		s.skillCount = len(a.Skills())
	}
	close(s.ready)
}

// open runs Options.Open and publishes its outcome.
func (s *server) open(ctx context.Context) {
	a, err := s.opts.Open(ctx)
	if err != nil {
		s.log.Error("the agent file failed to load; requests that need it will fail until the server is restarted", "err", err)
		err = fmt.Errorf("loading the agent: %w", err)
	}
	s.loaded(a, err)
}

// closeOpened closes the agent Serve opened, once Open has returned.
func (s *server) closeOpened() {
	go func() {
		<-s.ready
		if s.agent != nil {
			s.agent.Close()
		}
	}()
}

// awaitAgent returns the agent once it is open. A failed load is an
// internal error that says what went wrong and what to do.
func (s *server) awaitAgent(ctx context.Context) (*loader.Agent, error) {
	select {
	case <-s.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if s.loadErr != nil {
		return nil, errorf(codeInternalError, "Internal error: the agent file could not be loaded (%v); fix it and restart the server", s.loadErr)
	}
	return s.agent, nil
}

// server holds what every request handler shares. Safe for concurrent use.
type server struct {
	opts *Options
	// agent and loadErr are written once, before ready closes; read them
	// only after <-ready (awaitAgent).
	agent   *loader.Agent
	loadErr error
	// skillCount is the loaded agent's size, set with agent.
	skillCount int
	ready      chan struct{}
	log        *slog.Logger
	sess       *session
	routing    *routerState
	methods    map[string]methodSpec
	cache      answerCache

	descs toolDescs // the tool descriptions' parts built from the catalog

	instrMu    sync.Mutex
	instr      string
	instrReady bool
}

func newServer(opts *Options) *server {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	table := methods
	if len(opts.testMethods) > 0 {
		table = make(map[string]methodSpec, len(methods)+len(opts.testMethods))
		for k, v := range methods {
			table[k] = v
		}
		for k, v := range opts.testMethods {
			table[k] = v
		}
	}
	s := &server{
		opts:    opts,
		ready:   make(chan struct{}),
		log:     log,
		sess:    &session{},
		routing: newRouterState(),
		methods: table,
	}
	if opts.Agent != nil {
		s.loaded(opts.Agent, nil)
	}
	return s
}

// prepareRouter opens the routing cache entry named by the head's content
// hash, if any; nil when there is none to open. A failure only costs the
// head start, so it is logged, not returned.
func (s *server) prepareRouter(ctx context.Context) *router.Prepared {
	h := s.opts.Head
	if h == nil || h.ContentHash == "" {
		return nil
	}
	var ro router.Options
	if s.opts.Router != nil {
		ro = *s.opts.Router
	}
	ro.ContentHash = h.ContentHash
	p, err := router.Prepare(ctx, &ro)
	if err != nil {
		s.log.Debug("routing cache not opened ahead of the agent", "err", err)
		return nil
	}
	return p
}

// routerOptions fills in the content hash the cache is keyed by.
func (s *server) routerOptions() *router.Options {
	var ro router.Options
	if s.opts.Router != nil {
		ro = *s.opts.Router
	}
	if ro.ContentHash == "" {
		if cat := s.agent.Catalog(); cat != nil {
			ro.ContentHash = cat.SHA256
		}
	}
	return &ro
}

// safeDispatch runs dispatch, turning a panic into -32603.
func (s *server) safeDispatch(ctx context.Context, method string, params map[string]json.RawMessage) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("handler panic", "method", method, "panic", p, "stack", string(debug.Stack()))
			result, err = nil, errorf(codeInternalError, "Internal error while serving %s", method)
		}
	}()
	return s.dispatch(ctx, method, params)
}

// dispatch decides the era of one request, checks it, and runs its method.
// A legacy request before any initialize is served as the newest legacy
// revision: clients that skip the handshake exist.
func (s *server) dispatch(ctx context.Context, method string, params map[string]json.RawMessage) (any, error) {
	meta := decodeMeta(params)
	if _, modern := meta[metaProtocolVersion]; modern {
		c, err := modernCall(method, params, meta)
		if err != nil {
			return nil, err
		}
		spec, ok := s.methods[method]
		if !ok || !spec.modern {
			if removedInModern[method] {
				return nil, errorf(codeMethodNotFound, "Method not found: %s (removed in protocol version %s)", method, version20260728)
			}
			return nil, errorf(codeMethodNotFound, "Method not found: %s", method)
		}
		res, err := spec.handle(s, ctx, c)
		if err != nil {
			return nil, err
		}
		return s.stampModern(res, spec.cached)
	}
	spec, ok := s.methods[method]
	if !ok || !spec.legacy {
		return nil, errorf(codeMethodNotFound, "Method not found: %s", method)
	}
	version := s.sess.negotiated()
	if version == "" && method != methodInitialize {
		version = legacyVersions[0]
		s.log.Debug("request before initialize; serving it as the newest legacy revision", "method", method, "version", version)
	}
	c := &call{method: method, params: params, version: version}
	return s.cachedHandle(func() (any, error) { return spec.handle(s, ctx, c) }, method, version, params)
}

// decodeParams reads params as an object; absent is {}. The values are
// slices of raw, which comes from a message decodeMessage has checked (so
// it is valid JSON: only its shape is checked here).
func decodeParams(raw json.RawMessage) (map[string]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return map[string]json.RawMessage{}, nil
	}
	if raw[0] != '{' {
		return nil, errorf(codeInvalidParams, "Invalid params: params must be a JSON object")
	}
	params := make(map[string]json.RawMessage, 4)
	eachMember(raw, func(key string, val []byte) { params[key] = val })
	return params, nil
}

// decodeMeta returns params._meta as an object, or nil.
func decodeMeta(params map[string]json.RawMessage) map[string]json.RawMessage {
	raw, ok := params["_meta"]
	if !ok {
		return nil
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(raw, &meta) != nil {
		return nil
	}
	return meta
}

// modernCall checks a 2026-07-28 request's required _meta keys and version,
// in that order (docs/protocol.md §1 and §3).
func modernCall(method string, params, meta map[string]json.RawMessage) (*call, error) {
	var version string
	if err := json.Unmarshal(meta[metaProtocolVersion], &version); err != nil {
		return nil, errorf(codeInvalidParams, "Invalid params: params._meta[%q] must be a string", metaProtocolVersion)
	}
	caps, ok := meta[metaClientCapabilities]
	if !ok {
		return nil, errorf(codeInvalidParams, "Invalid params: params._meta[%q] is required (use {} for none)", metaClientCapabilities)
	}
	var capsObj map[string]json.RawMessage
	if json.Unmarshal(caps, &capsObj) != nil || capsObj == nil {
		return nil, errorf(codeInvalidParams, "Invalid params: params._meta[%q] must be an object", metaClientCapabilities)
	}
	if version != version20260728 {
		return nil, errorData(codeUnsupportedProtocol, "Unsupported protocol version: "+version,
			map[string]any{"supported": supportedVersions, "requested": version})
	}
	return &call{method: method, params: params, version: version, modern: true}, nil
}

// notify handles a notification; none is ever answered.
// notifications/cancelled never gets here: the connection applies it as it
// reads it.
func (s *server) notify(method string) {
	switch method {
	case methodInitialized:
		s.log.Debug("client initialized", "version", s.sess.negotiated())
	default:
		s.log.Debug("ignoring notification", "method", method)
	}
}

// inlineSkills is the largest agent whose cheap tool calls are answered
// on the reading goroutine: past it list_skills and routing take long
// enough that they should not hold up reading (and cancellations).
const inlineSkills = 2000

// inlineArgsBytes bounds the arguments of a route_skill answered inline:
// the router's work grows with the request's text.
const inlineArgsBytes = 1024

// inlineMethod reports whether method is answered as it is read: the
// handshake always (it must be in place before the requests behind it),
// ping, and the lists and tool calls once the agent has loaded, when they
// cannot wait on anything.
func (s *server) inlineMethod(method string) bool {
	switch method {
	case methodInitialize, methodPing:
		return true
	case methodDiscover, methodToolsList, methodToolsCall:
		return s.loadedOK()
	}
	return false
}

// cheapCall reports whether a tools/call is quick enough to answer
// inline: every tool but route_skill reads the loaded catalog or one
// skill's body; route_skill once its index is ready and for a short
// request. Calls that will fail validation are cheap too.
func (s *server) cheapCall(params map[string]json.RawMessage) bool {
	if s.skillCount > inlineSkills {
		return false
	}
	name, _ := plainString(params["name"])
	if name != toolRouteSkill {
		return true
	}
	if len(params["arguments"]) > inlineArgsBytes {
		return false
	}
	select {
	case <-s.routing.ready:
		return true
	default:
		return false
	}
}
