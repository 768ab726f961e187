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
	"sync/atomic"
	"time"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/internal/watch"
	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/router"
)

// Serve speaks MCP over newline-delimited JSON-RPC on in and out until in
// reaches EOF (it returns once every in-flight response is written, and,
// with Options.Open, once the agent has loaded: nil, or the load error) or
// ctx is cancelled (it returns nil at once; a Read blocked on in is left to
// the process's exit). A read or write failure is returned. The agent
// (with Options.Open) and the routing index load in the background: the
// handshake is answered before they are ready, and requests that need them
// wait. It is the stdio transport over the shared server: one connection,
// one session.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts *Options) error {
	if opts == nil || (opts.Agent == nil && opts.Open == nil) {
		return errors.New("mcp: Serve needs Options.Agent or Options.Open (open the agent file with loader.Open)")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := newServer(opts)
	if err := s.openWatch(); err != nil {
		return err
	}
	stop := s.start(ctx)
	defer stop()

	c := newConn(ctx, s, in, out, opts)
	if opts.onConn != nil {
		opts.onConn(c)
	}
	s.attach(c.sess)
	defer s.detach(c.sess)
	go c.writeLoop()
	go c.readLoop()
	select {
	case <-c.writerDone: // every answer written after EOF, or a write failed
	case <-c.abandoned: // after EOF, nothing moved for a grace period
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
		if s.cur.Load() != nil {
			return nil // a failed first load fixed since by a reload
		}
		return s.loadErr
	case <-ctx.Done():
		return nil
	}
}

// start loads the agent (with Options.Open) and builds its routing index
// in the background, and logs the file's validation findings. The
// returned stop cancels what still runs and releases the agent generation in
// force; it waits a bounded time for the findings to be logged and for an
// index build to stop.
func (s *server) start(parent context.Context) (stop func()) {
	outer := parent // cancelled by the caller (a signal), not by stop
	ctx, cancel := context.WithCancel(parent)
	if s.opts.Agent == nil {
		go s.open(ctx)
	}
	findingsDone := make(chan struct{})
	go func() {
		defer close(findingsDone)
		// outer, not ctx: the server's own end must not skip the findings.
		if err := s.awaitLoad(outer); err == nil && outer.Err() == nil {
			// Validating a large agent takes a processor for tens of
			// milliseconds: not while the first routing index, which the
			// first route waits for, is being built.
			select {
			case <-s.firstRouting.ready:
			case <-time.After(findingsDefer):
			case <-outer.Done():
			}
			if v := s.acquire(); v != nil {
				s.logFindings(v.agent)
				v.release()
			}
		}
	}()
	go s.buildFirstIndex(ctx)
	s.startWatch(ctx)
	return func() {
		// Open subscriptions/listen requests end gracefully: answered, not
		// dropped.
		s.eachSession(func(sess *session) { sess.eachListen(func(l *listen) { l.stop() }) })
		s.changes.stop()
		cancel() // stops a build still running
		if s.firstRouting != nil {
			s.firstRouting.closeWhenBuilt()
		}
		s.stopWatch()
		// The validation findings are logged before the server returns,
		// so an operator sees them even when the client leaves at once; a
		// cancelled server does not wait for them long. They are waited
		// for before the generation is retired: findings still waiting for
		// the first index (findingsDefer) would find no generation to read.
		select {
		case <-findingsDone:
		case <-time.After(findingsWait):
		}
		select {
		case <-s.ready:
			if v := s.cur.Swap(nil); v != nil {
				v.retire()
			}
		default:
			// Still opening: the opener closes what it opens once it sees
			// the cancelled context (closeLate).
			go func() {
				<-s.ready
				if v := s.cur.Swap(nil); v != nil {
					v.retire()
				}
			}()
		}
	}
}

// buildFirstIndex builds the first generation's routing index once the agent
// has loaded. With the content hash known from the head, the routing index
// cache entry opens while the agent file loads; the router adopts it only
// if it was built from exactly the loaded skills.
func (s *server) buildFirstIndex(ctx context.Context) {
	rs := s.firstRouting
	// Ready runs before the index is published, so the server (which
	// waits for the publication before it returns) never returns while
	// Ready is still running. It is quick: cmd sets a limit.
	ready := func() {
		if s.opts.Ready != nil && ctx.Err() == nil {
			s.opts.Ready()
		}
	}
	prep := s.prepareRouter(ctx)
	if err := s.awaitLoad(ctx); err != nil {
		prep.Close()
		ready()
		rs.publish(nil, err)
		return
	}
	v := s.acquire()
	if v == nil {
		prep.Close()
		ready()
		rs.publish(nil, errorf(codeInternalError, "Internal error: the agent closed before its index was built"))
		return
	}
	defer v.release()
	ro := s.routerOptions(v.agent)
	progress, built := s.indexBuild(ro.Progress)
	ro.Progress = rs.reporter(progress)
	if prep != nil && ro.ContentHash == s.opts.Head.ContentHash {
		ro.Prepared = prep
	} else {
		prep.Close()
	}
	// Logged before it is published, so the line precedes any route
	// answered from the index.
	r, err := router.ForAgent(ctx, v.agent, ro)
	built()
	if err == nil {
		info := r.Info()
		s.log.Info("routing index ready", "index", info.Index, "prepared", info.Prepared, "skills", info.Skills, "took", info.Took, "path", info.Path, "reason", info.Reason)
		s.logBuilt(ctx, r)
	} else if ctx.Err() == nil {
		s.log.Error("routing index unavailable; route_skill will fail", "err", err)
	}
	ready()
	rs.publish(r, err)
}

// indexBuild wraps a router Progress callback (next, which may be nil) so
// that Options.IndexBuild hears of a build at its first report; done ends
// it: call it once the router has returned, since opening the index just
// built allocates as much as the build's last stretch. A cache hit
// reports nothing and calls neither.
func (s *server) indexBuild(next func(done, total int)) (progress func(done, total int), done func()) {
	if s.opts.IndexBuild == nil {
		return next, func() {}
	}
	var (
		mu      sync.Mutex
		started bool
		end     func()
	)
	finish := func() {
		mu.Lock()
		defer mu.Unlock()
		if end != nil {
			end()
		}
		end = nil
		started = true // a report after the end starts nothing
	}
	progress = func(d, total int) {
		mu.Lock()
		if !started {
			started = true
			end = s.opts.IndexBuild(total)
		}
		mu.Unlock()
		if next != nil {
			next(d, total)
		}
	}
	return progress, finish
}

// findingsWait bounds how long Serve, returning, waits for the validation
// findings to be logged.
const findingsWait = time.Second

// findingsDefer bounds how long the validation findings wait for the
// first routing index to be usable.
const findingsDefer = 200 * time.Millisecond

// logFindings logs each validation error of the served agent once, as
// validate prints it (file:line: [rule] message): a file with errors is
// still served, and its operator should hear why it may misbehave.
func (s *server) logFindings(a *loader.Agent) {
	for _, msg := range validationErrors(a) {
		s.log.Warn(findingsNote(a), "finding", msg)
	}
}

// findingsNote is the log message validation findings go under: a file
// with errors is served whole; a skill folder's problems are served with
// the skill, except those that break it, which say the skill is left out.
func findingsNote(a *loader.Agent) string {
	if a.Folders() != nil {
		return "skill folder finding (run agent3md validate on the folder; docs/skill-folders.md §3)"
	}
	return "validation error (served anyway; run agent3md validate)"
}

// validationErrors are the agent's validation errors as validate prints
// them.
func validationErrors(a *loader.Agent) []string {
	if a.Folders() != nil {
		// Skill folders: the scan's findings (skills left out and why,
		// and served skills' problems); the catalog is synthesized from
		// valid skills, so the 3md rules have nothing to say.
		return a.Findings()
	}
	// The loader's own reading of the catalog, not a second one: this
	// runs while the first routing index may still be building.
	cat, info := a.Scanned()
	if cat == nil || info == nil {
		return nil
	}
	var out []string
	for _, f := range agentfile.ValidateAgent(cat, info).Errors {
		msg := fmt.Sprintf("%s:%d: [%s] %s", a.Path(), f.Line, f.Rule, f.Message)
		if f.Z != nil {
			msg = fmt.Sprintf("%s:%d: [%s] z=%v: %s", a.Path(), f.Line, f.Rule, *f.Z, f.Message)
		}
		out = append(out, msg)
	}
	return out
}

// loaded publishes the outcome of the first load: the first generation, or
// the error every request that needs the agent is answered with.
func (s *server) loaded(a *loader.Agent, owned bool, err error) {
	if err != nil {
		s.loadErr = err
	} else {
		v := &generation{gen: s.gen.Add(1), agent: a, routing: s.firstRouting}
		rs := s.firstRouting
		v.closeFn = func() {
			rs.closeWhenBuilt()
			if owned {
				a.Close()
			}
		}
		s.skillCount.Store(int64(a.SkillCount()))
		s.rememberName(a)
		s.cur.Store(v)
	}
	close(s.ready)
}

// open runs Options.Open and publishes its outcome.
func (s *server) open(ctx context.Context) {
	a, err := s.opts.Open(ctx)
	if err != nil {
		s.log.Error("the agent file failed to load; requests that need it will fail until it is fixed", "err", err)
		err = fmt.Errorf("loading the agent: %w", err)
	}
	// A failed first load is not retried here: the reload loop (when the
	// file is watched) tries the next change as the first generation.
	s.loaded(a, true, err)
}

// awaitLoad waits for the first load. A failed load is an internal error
// that says what went wrong and what to do.
func (s *server) awaitLoad(ctx context.Context) error {
	select {
	case <-s.ready:
	case <-ctx.Done():
		return ctx.Err()
	}
	if s.loadErr != nil && s.cur.Load() == nil {
		return errorf(codeInternalError, "Internal error: the agent file could not be loaded (%v); fix it (the server picks the fix up when it watches the file, else restart it)", s.loadErr)
	}
	return nil
}

// server is what every connection shares: the agent generations, the
// registered features and their method table. Per-connection state is in
// session. Safe for concurrent use.
type server struct {
	opts     *Options
	log      *slog.Logger
	methods  map[string]methodSpec
	features []*feature

	// ready closes once the first load ends; loadErr (written before) is
	// its failure. A later reload may still bring a generation in.
	ready   chan struct{}
	loadErr error
	// cur is the agent generation in force (nil before the first load, after
	// a failed one and after the server stops); gen numbers generations.
	cur atomic.Pointer[generation]
	gen atomic.Uint64
	// skillCount is the size of the generation in force.
	skillCount atomic.Int64
	// lastName is the name of the last generation put in force: what the
	// server still calls itself in answers written after it stopped (a
	// subscriptions/listen ended by the shutdown).
	lastName atomic.Pointer[string]
	// firstRouting is the first generation's index, built in the background
	// while requests are already served.
	firstRouting *routerState

	sessMu   sync.Mutex
	sessions map[*session]bool
	// changes are the open change streams (HTTP GET, changestreams.go).
	changes changeStreams

	// reloads are the signals the reload loop reads: the watcher's, or
	// Options.Changes.
	reloads   <-chan struct{}
	watcher   *watch.Watcher
	watchMu   sync.Mutex
	watchStop func()
}

func newServer(opts *Options) *server {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &server{
		opts:         opts,
		ready:        make(chan struct{}),
		log:          log,
		methods:      map[string]methodSpec{},
		firstRouting: newRouterState(),
		sessions:     map[*session]bool{},
		reloads:      opts.Changes, // or the watcher's, once openWatch starts it
	}
	s.register(servedFeatures...)
	if len(opts.testMethods) > 0 {
		s.register(&feature{name: "test", methods: opts.testMethods})
	}
	if opts.Agent != nil {
		s.loaded(opts.Agent, false, nil)
	}
	return s
}

// attach and detach keep the set of live sessions, which reloads notify.
func (s *server) attach(sess *session) {
	s.sessMu.Lock()
	defer s.sessMu.Unlock()
	s.sessions[sess] = true
}

func (s *server) detach(sess *session) {
	s.sessMu.Lock()
	delete(s.sessions, sess)
	s.sessMu.Unlock()
	sess.close()
}

// eachSession calls fn for every live session.
func (s *server) eachSession(fn func(*session)) {
	s.sessMu.Lock()
	list := make([]*session, 0, len(s.sessions))
	for sess := range s.sessions {
		list = append(list, sess)
	}
	s.sessMu.Unlock()
	for _, sess := range list {
		fn(sess)
	}
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
func (s *server) routerOptions(a *loader.Agent) *router.Options {
	var ro router.Options
	if s.opts.Router != nil {
		ro = *s.opts.Router
	}
	if ro.ContentHash == "" || s.gen.Load() > 1 {
		if cat := a.Catalog(); cat != nil {
			ro.ContentHash = cat.SHA256
		}
	}
	return &ro
}

// safeDispatch runs dispatch, turning a panic into -32603.
func (s *server) safeDispatch(ctx context.Context, sess *session, method string, params map[string]json.RawMessage) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("handler panic", "method", method, "panic", p, "stack", string(debug.Stack()))
			result, err = nil, errorf(codeInternalError, "Internal error while serving %s", method)
		}
	}()
	return s.dispatch(ctx, sess, method, params)
}

// dispatch decides the era of one request, checks it, and runs its method.
// A legacy request before any initialize is served as the newest legacy
// revision: clients that skip the handshake exist.
func (s *server) dispatch(ctx context.Context, sess *session, method string, params map[string]json.RawMessage) (any, error) {
	if err := checkMeta(params); err != nil {
		return nil, err
	}
	meta := decodeMeta(params)
	if _, modern := meta[metaProtocolVersion]; modern {
		c, err := modernCall(method, params, meta)
		if err != nil {
			return nil, err
		}
		c.srv, c.sess = s, sess
		defer c.done()
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
	if !ok || !spec.legacy || !s.offered(sess, spec.needs) {
		return nil, errorf(codeMethodNotFound, "Method not found: %s", method)
	}
	version := sess.negotiated()
	if (version == "" || readBeforeHandshake(ctx)) && method != methodInitialize {
		version = legacyVersions[0]
		s.log.Debug("request before initialize; serving it as the newest legacy revision", "method", method, "version", version)
	}
	c := &call{srv: s, sess: sess, method: method, params: params, version: version}
	defer c.done()
	return s.cachedHandle(ctx, c, func() (any, error) { return spec.handle(s, ctx, c) })
}

type beforeHandshakeKey struct{}

// withBeforeHandshake marks a request read before the connection's
// initialize was read. A request waiting in the queue may run after that
// initialize has been handled: the mark keeps it served as what it was
// when it arrived, the newest legacy revision (docs/protocol.md §1).
func withBeforeHandshake(ctx context.Context) context.Context {
	return context.WithValue(ctx, beforeHandshakeKey{}, true)
}

func readBeforeHandshake(ctx context.Context) bool {
	b, _ := ctx.Value(beforeHandshakeKey{}).(bool)
	return b
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

// checkMeta refuses a params._meta that is not an object (null counts as
// absent). Read as absent, "_meta": "x" or ["…"] was served as a
// handshake-era request with no progress token, whatever revision and
// token the client meant to send: the mistake went unseen.
func checkMeta(params map[string]json.RawMessage) error {
	raw, ok := params["_meta"]
	if !ok {
		return nil
	}
	switch k := jsonKind(bytes.TrimSpace(raw)); k {
	case "object", "null":
		return nil
	default:
		return errorf(codeInvalidParams, "Invalid params: params._meta must be an object, got %s", k)
	}
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
	return &call{method: method, params: params, version: version, modern: true, caps: caps}, nil
}

// notify handles a notification; none is ever answered.
// notifications/cancelled never gets here: the connection applies it as it
// reads it.
func (s *server) notify(sess *session, method string) {
	switch method {
	case methodInitialized:
		s.log.Debug("client initialized", "version", sess.negotiated())
	default:
		s.log.Debug("ignoring notification", "method", method)
	}
}
