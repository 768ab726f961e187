package mcp

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/agent3md/agent3md/internal/watch"
)

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
	// the caller's (Signals).
	reloads   <-chan struct{}
	watcher   *watch.Watcher
	watchMu   sync.Mutex
	watchStop func()
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
	for _, sess := range keysUnder(&s.sessMu, &s.sessions) {
		fn(sess)
	}
}

// loadedOK reports whether the agent has loaded without error.
func (s *server) loadedOK() bool {
	return s.cur.Load() != nil
}

// acquire takes the generation in force for one request; release gives it
// back.
func (s *server) acquire() *generation {
	for {
		v := s.cur.Load()
		if v == nil {
			return nil
		}
		v.refs.Add(1)
		if s.cur.Load() == v {
			return v
		}
		v.release()
	}
}

// call is one request as a method handler sees it.
type call struct {
	srv     *server
	sess    *session
	method  string
	params  map[string]json.RawMessage
	version string // negotiated (legacy) or requested (modern) revision
	modern  bool
	caps    json.RawMessage // a modern request's client capabilities
	// v is the agent generation the call uses, taken on first need
	// (generation) and released when the call ends (done).
	v *generation
}

// atLeast reports whether the call's revision is v or newer.
func (c *call) atLeast(v string) bool { return c.version >= v }

// generation returns the agent generation this call uses, waiting for the first
// load; every later use in the call returns the same one. A failed first
// load is an internal error that says what went wrong and what to do.
func (c *call) generation(ctx context.Context) (*generation, error) {
	if c.v != nil {
		return c.v, nil
	}
	if err := c.srv.awaitLoad(ctx); err != nil {
		return nil, err
	}
	c.v = c.srv.acquire()
	if c.v == nil {
		return nil, errorf(codeInternalError, "Internal error: the agent file is not loaded; fix it and the server picks it up")
	}
	return c.v, nil
}

// done releases what the call took.
func (c *call) done() {
	if c.v != nil {
		c.v.release()
		c.v = nil
	}
}

// handlerFunc serves one request method.
type handlerFunc func(s *server, ctx context.Context, c *call) (any, error)

// methodSpec is one request method a feature serves.
type methodSpec struct {
	handle handlerFunc
	legacy bool // served to legacy (handshake-era) requests
	modern bool // served to 2026-07-28 requests
	// cached results carry ttlMs/cacheScope in the modern era.
	cached bool
	// needs is the capability a legacy session must have been offered for
	// the method to exist ("" for always): resources/subscribe exists only
	// where resources.subscribe is declared.
	needs string
	// inline says when the reading goroutine answers the method as it
	// reads it (conn.tryInline), saving the hand-off to a handler
	// goroutine and back, which is most of a small answer's cost.
	inline inlineRule
	// cheap, with inlineLoaded, reports whether this call is cheap too
	// (tools/call asks the tool: toolsCallInline).
	cheap func(s *server, params map[string]json.RawMessage) bool
}

// inlineRule is when a method is answered on the reading goroutine.
type inlineRule uint8

const (
	// inlineNever (the zero value): a handler goroutine answers it.
	inlineNever inlineRule = iota
	// inlineAlways: the handshake (it must be in place before the
	// requests behind it) and ping.
	inlineAlways
	// inlineLoaded: once the agent has loaded, for a method that then
	// cannot wait on anything (a fixed list, one file of one skill).
	inlineLoaded
)

// feature is one part of the MCP surface: the methods it serves and what
// it adds to the capabilities a client is told of. Features register with
// the server (register); the method table and the capabilities are built
// from what is registered, so adding one touches no other.
type feature struct {
	name string
	// capability is the ServerCapabilities key the feature declares
	// ("tools", "resources", …), or "" for none; extension is its id
	// under capabilities.extensions, or "".
	capability string
	extension  string
	// settings is the capability's (or extension's) object; nil means {}.
	settings func(s *server) map[string]any
	methods  map[string]methodSpec
}

// testHooks, set only by this package's tests (hooks_test.go), see a
// server and a connection as they are built, keyed by the Options they
// were built from: tests add methods that block until told, and reach
// inside a connection. Nil in the binary.
var testHooks struct {
	server func(opts *Options, s *server)
	conn   func(opts *Options, c *conn)
}

// watching reports whether the agent is reloaded when its file changes.
func (s *server) watching() bool { return s.reloads != nil && s.opts.Source.Changes.reopen != nil }

// maxAnswerBytes is the bound on one tool answer.
func (s *server) maxAnswerBytes() int {
	return s.opts.MaxAnswerBytes
}

// session is one client connection's state, kept apart from the server's
// (the agent, its index, the registered features), which every connection
// shares: the legacy revision initialize negotiated, what the client said
// it can do, the resources it subscribed to, and the way back to it for
// notifications. stdio has one session; the HTTP transport makes one per
// request, since it is stateless. Modern (2026-07-28) requests never read
// or change the negotiated revision. Safe for concurrent use.
type session struct {
	// out sends a notification to this client; nil when the transport
	// cannot carry one (then notifications are dropped).
	out notifier
	// stateless marks the session of one message on a stateless transport
	// (Exchange): nothing reaches the client through it after its answer,
	// so it is offered no resource subscriptions, and list_changed only
	// when changeEvents says the transport carries them apart
	// (changestreams.go).
	stateless    bool
	changeEvents bool

	mu      sync.Mutex
	version string // "" until initialize is answered
	caps    json.RawMessage
	// subs are the URIs the client subscribed to with
	// resources/subscribe (legacy), each told of its changes.
	subs map[string]bool
	// listens are the open 2026-07-28 subscriptions/listen requests.
	listens map[*listen]bool
	// closed is set when the connection ends: nothing more is sent.
	closed bool
}

func newSession(out notifier) *session { return &session{out: out} }

// setVersion records the revision of the connection's one session; it
// reports false, changing nothing, when a session is already in place.
func (s *session) setVersion(v string, caps json.RawMessage) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.version != "" {
		return false
	}
	s.version, s.caps = v, caps
	return true
}

func (s *session) negotiated() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// batchesAllowed reports whether the connection negotiated 2025-03-26, the
// one revision with JSON-RPC batching.
func (s *session) batchesAllowed() bool { return s.negotiated() == version20250326 }

// subscribe and unsubscribe keep the legacy resource subscriptions.
// maxSubscriptions bounds the URIs one session (or one listen) watches:
// each is compared across generations at every reload.
const maxSubscriptions = 1024

// subscribe records uri; false when the session already watches
// maxSubscriptions others.
func (s *session) subscribe(uri string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.subs == nil {
		s.subs = map[string]bool{}
	}
	if !s.subs[uri] && len(s.subs) >= maxSubscriptions {
		return false
	}
	s.subs[uri] = true
	return true
}

func (s *session) unsubscribe(uri string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.subs, uri)
}

// subscribed returns the subscribed URIs among uris.
func (s *session) subscribed() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.subs))
	for u := range s.subs {
		out = append(out, u)
	}
	return out
}

// notify sends a notification to this client if the transport can carry
// one and the connection is open; failures are the transport's to report.
func (s *session) notify(method string, params any) {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if s.out == nil || closed {
		return
	}
	_ = s.out.Notify(context.Background(), method, params)
}

// close marks the session ended: its listens end, nothing more is sent.
func (s *session) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for l := range s.listens {
		l.stop()
	}
	s.listens = nil
}

// listenWants is what a listen request may ask for.
type listenWants struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
}

// listen is one open subscriptions/listen request.
type listen struct {
	sess  *session
	id    json.RawMessage // the listen request's id: the subscription id
	wants listenWants
	uris  map[string]bool
	done  chan struct{}
	once  sync.Once
}

func (l *listen) stop() { l.once.Do(func() { close(l.done) }) }

// eachListen calls fn for every open listen of the session.
func (s *session) eachListen(fn func(*listen)) {
	for _, l := range keysUnder(&s.mu, &s.listens) {
		fn(l)
	}
}

// maxListens bounds the subscriptions/listen requests one session holds
// open: each is a goroutine for as long as it lasts, outside the
// connection's in-flight bound (it would otherwise hold a handler slot
// for the whole session).
const maxListens = 16

func (s *session) addListen(l *listen) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false, nil
	}
	if len(s.listens) >= maxListens {
		return false, errorf(codeInvalidRequest, "Invalid Request: this session already holds %d open subscriptions/listen requests; cancel one (notifications/cancelled) before opening another", maxListens)
	}
	if s.listens == nil {
		s.listens = map[*listen]bool{}
	}
	s.listens[l] = true
	return true, nil
}

func (s *session) dropListen(l *listen) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.listens, l)
}

// keysUnder returns the keys of the map *m, read while mu is held (the
// map field itself too: close sets it to nil): a snapshot that callbacks
// made without the lock may walk while the map changes.
func keysUnder[K comparable, V any](mu *sync.Mutex, m *map[K]V) []K {
	mu.Lock()
	defer mu.Unlock()
	keys := make([]K, 0, len(*m))
	for k := range *m {
		keys = append(keys, k)
	}
	return keys
}
