package mcp

import (
	"context"
	"encoding/json"
	"sync"
)

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
	s.mu.Lock()
	list := make([]*listen, 0, len(s.listens))
	for l := range s.listens {
		list = append(list, l)
	}
	s.mu.Unlock()
	for _, l := range list {
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
