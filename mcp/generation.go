package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/router"
)

// generation is one loaded agent and everything derived from it: the routing
// index, the answers encoded from its catalog, the tool descriptions and
// the rendered skill files with their digests. A request takes the generation
// in force when it first needs the agent (call.generation) and uses only it,
// so no answer mixes two generations of the file; a reload builds a whole new
// generation off the request path and swaps it in (server.swap). The old one
// is closed once the last request using it ends.
// In this package "version" is the protocol revision a session negotiated
// (call.version, session.version); an agent loaded and swapped in is a
// generation.
type generation struct {
	gen     uint64
	agent   *loader.Agent
	routing *routerState
	cache   answerCache
	descs   toolDescs
	files   skillFiles
	// instr is the identity body as instructions, read once.
	instrOnce sync.Once
	instr     string

	refs      atomic.Int64
	retired   atomic.Bool
	closeOnce sync.Once
	// closeFn releases the agent and the index (nil: nothing to release,
	// the caller owns the agent).
	closeFn func()
}

func (v *generation) release() {
	if v.refs.Add(-1) == 0 && v.retired.Load() {
		v.close()
	}
}

// retire marks v replaced: it closes once no request holds it.
func (v *generation) retire() {
	v.retired.Store(true)
	if v.refs.Load() == 0 {
		v.close()
	}
}

func (v *generation) close() {
	v.closeOnce.Do(func() {
		if v.closeFn != nil {
			v.closeFn()
		}
	})
}

// routerState is the index being built in the background. ready closes
// once r or err is set; neither changes afterwards. While it builds, the
// build's progress is kept so that requests waiting on it can report it.
type routerState struct {
	ready chan struct{}
	r     *router.Router
	err   error

	mu      sync.Mutex
	done    int           // skills indexed so far
	total   int           // skills to index; 0 until the build reports
	changed chan struct{} // closed and replaced at each report
}

func newRouterState() *routerState {
	return &routerState{ready: make(chan struct{}), changed: make(chan struct{})}
}

// publish sets the outcome; it is called once.
func (rs *routerState) publish(r *router.Router, err error) {
	rs.r, rs.err = r, err
	close(rs.ready)
}

// reporter returns a router.Options.Progress that records the build's
// progress for waiting requests, then calls next (when set).
func (rs *routerState) reporter(next func(done, total int)) func(done, total int) {
	return func(done, total int) {
		rs.mu.Lock()
		rs.done, rs.total = done, total
		close(rs.changed)
		rs.changed = make(chan struct{})
		rs.mu.Unlock()
		if next != nil {
			next(done, total)
		}
	}
}

// progress returns the build's progress and a channel closed at the next
// report.
func (rs *routerState) progress() (done, total int, changed <-chan struct{}) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.done, rs.total, rs.changed
}

// wait returns the router once it is built, or ctx's error first. A
// request that carried a progress token is sent the build's progress
// while it waits (a cold 100,000-skill index takes seconds).
func (rs *routerState) wait(ctx context.Context) (*router.Router, error) {
	select {
	case <-rs.ready:
		return rs.r, rs.err
	default:
	}
	sink := progressFor(ctx)
	for {
		done, total, changed := rs.progress()
		if total > 0 {
			sink.send(ctx, done, total, "building the routing index, skills indexed")
		}
		if sink == nil {
			changed = nil // nothing to report: wait for the outcome only
		}
		select {
		case <-rs.ready:
			return rs.r, rs.err
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-changed:
		}
	}
}

// buildStopWait bounds how long Serve waits, after cancelling it, for an
// index build still running at exit to stop and remove its scratch
// directory. The build checks for cancellation every thousand skills, so
// this is ample unless it is in its final merge.
const buildStopWait = 2 * time.Second

// closeWhenBuilt releases the index; if the build is still running it is
// released by a goroutine that ends when the build does. Call it after
// cancelling the build's context: it waits up to buildStopWait for the
// build to stop, so a process that exits next does not leave a half-built
// cache entry behind.
func (rs *routerState) closeWhenBuilt() {
	closeIt := func() {
		if rs.r != nil {
			rs.r.Close()
		}
	}
	select {
	case <-rs.ready:
		closeIt()
	case <-time.After(buildStopWait):
		go func() {
			<-rs.ready
			closeIt()
		}()
	}
}

// notifier sends a notification on the connection a request came in on;
// *conn is one.
type notifier interface {
	Notify(ctx context.Context, method string, params any) error
}

type notifierKey struct{}

type progressTokenKey struct{}

// withNotifier lets the request's handlers send notifications on conn.
func withNotifier(ctx context.Context, conn notifier) context.Context {
	return context.WithValue(ctx, notifierKey{}, conn)
}

// progressParams is a notifications/progress message.
type progressParams struct {
	Token    json.RawMessage `json:"progressToken"`
	Progress int             `json:"progress"`
	Total    int             `json:"total,omitempty"`
	Message  string          `json:"message,omitempty"`
}

// progressSink sends one request's progress, or nothing when the request
// carried no token.
type progressSink struct {
	n     notifier
	token json.RawMessage
	last  int
}

func progressFor(ctx context.Context) *progressSink {
	tok, _ := ctx.Value(progressTokenKey{}).(json.RawMessage)
	n, _ := ctx.Value(notifierKey{}).(notifier)
	if tok == nil || n == nil {
		return nil
	}
	return &progressSink{n: n, token: tok, last: -1}
}

// send reports done of total once per new value of done (progress must
// increase); nothing once the request is cancelled, which must see no
// more messages.
func (p *progressSink) send(ctx context.Context, done, total int, what string) {
	if p == nil || done <= p.last || ctx.Err() != nil {
		return
	}
	p.last = done
	msg := fmt.Sprintf("%s: %d of %d", what, done, total)
	// A failed write ends the connection, which the reader sees; a
	// progress message is not worth more.
	_ = p.n.Notify(ctx, methodProgress, progressParams{Token: p.token, Progress: done, Total: total, Message: msg})
}

// Answers that depend only on the agent generation, the request and the
// revision (tools/list, list_skills, get_skill, resolve_skill,
// resources/read) are encoded once per
// generation and reused: the lists are the largest answers a small agent
// gives, and a file read is what skill-provider clients repeat; rebuilding
// them cost several times a ping (a folder file is opened through its
// skill's root, about ten system calls). A generation's bytes never change
// (a reload makes a new generation), so a cached read serves exactly what the
// generation read. Bounded in count and bytes so a huge agent is never
// pinned: past the bounds answers are built each time.
const (
	maxCachedAnswer      = 256 << 10
	maxCachedAnswers     = 4096
	maxCachedAnswerBytes = 8 << 20
	maxCacheKeyArgs      = 256
)

// answerCache holds the encoded answers for one catalog; a re-scan (a new
// catalog) empties it. Safe for concurrent use.
type answerCache struct {
	mu      sync.Mutex
	cat     *agentfile.Catalog
	entries map[string]preEncoded
	bytes   int // the cached answers' total size
	// seen admits an answer on its second request: a key's hash sits in
	// its slot after the first. A client walking many skills once each
	// (a first read of every skill of a large agent) then costs no copy
	// of each answer and no growth of entries, and does not fill the
	// bounds with answers nobody asks for again. A slot two keys share
	// only delays one of them.
	seen *[seenSlots]uint64
}

// seenSlots sizes answerCache.seen: 32 KB per catalog in use.
const seenSlots = 4096

// cacheSeed hashes the cache keys for answerCache.seen.
var cacheSeed = maphash.MakeSeed()

// get returns the answer cached for key under catalog cat, or nil.
func (c *answerCache) get(cat *agentfile.Catalog, key string) preEncoded {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cat != cat {
		return nil
	}
	return c.entries[key]
}

// admit reports whether key's answer should be kept now: true from its
// second request under catalog cat, within the bounds.
func (c *answerCache) admit(cat *agentfile.Catalog, key string) bool {
	h := maphash.String(cacheSeed, key)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cat != cat || c.entries == nil {
		c.cat, c.entries, c.bytes, c.seen = cat, map[string]preEncoded{}, 0, nil
	}
	if len(c.entries) >= maxCachedAnswers {
		return false
	}
	if c.seen == nil {
		c.seen = new([seenSlots]uint64)
	}
	slot := &c.seen[h%seenSlots]
	if *slot != h {
		*slot = h
		return false
	}
	return true
}

// put caches enc under key for catalog cat, within the bounds.
func (c *answerCache) put(cat *agentfile.Catalog, key string, enc preEncoded) {
	if len(enc) > maxCachedAnswer {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cat != cat || c.entries == nil {
		c.cat, c.entries, c.bytes, c.seen = cat, map[string]preEncoded{}, 0, nil
	}
	if len(c.entries) >= maxCachedAnswers || c.bytes+len(enc) > maxCachedAnswerBytes {
		return
	}
	if _, dup := c.entries[key]; !dup {
		c.bytes += len(enc)
	}
	c.entries[key] = enc
}
