package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"

	"github.com/sourcegraph/jsonrpc2"

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
	// finishes. Nil means those wait for the agent.
	Head *loader.Head
	// Router configures the routing index (cache directory, no-cache, the
	// content hash); nil means router defaults with ContentHash taken from
	// Agent.Catalog().SHA256.
	Router *router.Options
	// Version is the binary's version, reported as serverInfo.version
	// (default "dev").
	Version string
	// MaxLineBytes bounds one incoming line, terminator excluded (default
	// DefaultMaxLineBytes, 4 MiB; flag --max-line-bytes).
	MaxLineBytes int
	// MaxInFlight bounds the requests being handled at once (default
	// DefaultMaxInFlight; flag --max-in-flight). When it is reached the
	// server stops reading stdin until a response is written, so a client
	// that pipelines thousands of requests gets back-pressure instead of
	// thousands of goroutines and their answers held in memory.
	MaxInFlight int
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
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := newServer(opts)
	if opts.Agent == nil {
		go s.open(ctx)
		defer s.closeOpened()
	}
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
		r, err := NewRouter(ctx, a, ro)
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
	}()

	st := newLineStream(in, out, opts.MaxLineBytes, s.sess, s.log)
	st.maxInFlight = opts.MaxInFlight
	if st.maxInFlight <= 0 {
		st.maxInFlight = DefaultMaxInFlight
	}
	s.tr = st.tr
	conn := jsonrpc2.NewConn(ctx, st, jsonrpc2.AsyncHandler(s), jsonrpc2.SetLogger(printfLogger{s.log}))
	select {
	case <-conn.DisconnectNotify():
	case <-ctx.Done():
		conn.Close()
	}
	if err := st.err(); err != nil {
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

// loaded publishes the outcome of opening the agent.
func (s *server) loaded(a *loader.Agent, err error) {
	s.agent, s.loadErr = a, err
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
	ready   chan struct{}
	log     *slog.Logger
	sess    *session
	tr      *tracker
	routing *routerState
	methods map[string]methodSpec

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

// Handle is the jsonrpc2.Handler; jsonrpc2.AsyncHandler runs it in its own
// goroutine per message. Every request gets exactly one response unless it
// is cancelled (PROTOCOL §2).
func (s *server) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if req.Notif {
		s.notify(req)
		return
	}
	if req.Method == methodInitialize {
		defer s.sess.initServed()
	}
	ctx, cancel := context.WithCancel(withNotifier(ctx, conn))
	defer cancel()
	id := req.ID.Num
	if !s.tr.attach(id, cancel) {
		return // cancelled before it started
	}
	result, err := s.safeDispatch(ctx, req)
	if err == nil {
		err = conn.Reply(ctx, req.ID, result)
		if err != nil && !errors.Is(err, jsonrpc2.ErrClosed) {
			s.log.Error("encoding a result", "method", req.Method, "err", err)
			err = fmt.Errorf("encoding the result of %s: %w", req.Method, err)
		} else {
			err = nil
		}
	}
	if err != nil {
		if rerr := conn.ReplyWithError(ctx, req.ID, toWire(err)); rerr != nil && !errors.Is(rerr, jsonrpc2.ErrClosed) {
			s.log.Error("sending an error response", "method", req.Method, "err", rerr)
		}
	}
	// Whatever happened, the request no longer holds EOF back.
	s.tr.release(id)
}

// safeDispatch runs dispatch, turning a panic into -32603.
func (s *server) safeDispatch(ctx context.Context, req *jsonrpc2.Request) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("handler panic", "method", req.Method, "panic", p, "stack", string(debug.Stack()))
			result, err = nil, errorf(codeInternalError, "Internal error while serving %s", req.Method)
		}
	}()
	return s.dispatch(ctx, req)
}

// dispatch decides the era of one request (PROTOCOL §1.3), checks it, and
// runs its method.
func (s *server) dispatch(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	params, err := decodeParams(req.Params)
	if err != nil {
		return nil, err
	}
	meta := decodeMeta(params)
	if _, modern := meta[metaProtocolVersion]; modern {
		c, err := modernCall(req.Method, params, meta)
		if err != nil {
			return nil, err
		}
		spec, ok := s.methods[req.Method]
		if !ok || !spec.modern {
			if removedInModern[req.Method] {
				return nil, errorf(codeMethodNotFound, "Method not found: %s (removed in protocol version %s)", req.Method, version20260728)
			}
			return nil, errorf(codeMethodNotFound, "Method not found: %s", req.Method)
		}
		res, err := spec.handle(s, ctx, c)
		if err != nil {
			return nil, err
		}
		return s.stampModern(res, spec.cached)
	}
	spec, ok := s.methods[req.Method]
	if !ok || !spec.legacy {
		return nil, errorf(codeMethodNotFound, "Method not found: %s", req.Method)
	}
	version := s.sess.negotiated()
	if version == "" && req.Method != methodInitialize {
		version = s.sess.awaitVersion(ctx)
	}
	c := &call{method: req.Method, params: params, version: version}
	if c.version == "" && req.Method != methodInitialize && req.Method != methodPing {
		return nil, errorf(codeInvalidParams,
			"%s before initialize: send initialize first, or put %q in params._meta for a stateless %s request",
			req.Method, metaProtocolVersion, version20260728)
	}
	return spec.handle(s, ctx, c)
}

// decodeParams reads params as an object; absent or null is {}.
func decodeParams(raw *json.RawMessage) (map[string]json.RawMessage, error) {
	params := map[string]json.RawMessage{}
	if raw == nil || string(*raw) == "null" {
		return params, nil
	}
	if err := json.Unmarshal(*raw, &params); err != nil {
		return nil, errorf(codeInvalidParams, "Invalid params: params must be a JSON object")
	}
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
// in that order (PROTOCOL §1.2, §7).
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
		return nil, &wireError{
			Code:    codeUnsupportedProtocol,
			Message: "Unsupported protocol version: " + version,
			Data:    map[string]any{"supported": supportedVersions, "requested": version},
		}
	}
	return &call{method: method, params: params, version: version, modern: true}, nil
}

// notify handles a notification; none is ever answered (PROTOCOL §2).
// notifications/cancelled never gets here: the stream applies it as it
// reads it.
func (s *server) notify(req *jsonrpc2.Request) {
	switch req.Method {
	case methodInitialized:
		s.log.Debug("client initialized", "version", s.sess.negotiated())
	default:
		s.log.Debug("ignoring notification", "method", req.Method)
	}
}

// printfLogger adapts slog to jsonrpc2.Logger.
type printfLogger struct{ log *slog.Logger }

func (l printfLogger) Printf(format string, v ...any) {
	l.log.Warn(fmt.Sprintf(format, v...))
}
