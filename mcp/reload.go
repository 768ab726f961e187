package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"

	"github.com/agent3md/agent3md/internal/watch"
	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/router"
)

// Live reload (docs/protocol.md §9, docs/reload.md): the server watches
// what Options.Source.Changes names (internal/watch: an agent file's
// directory, or every directory of skill folders' trees), or takes its
// caller's signals, once a change has settled; it then opens the new
// generation with the Changes' reopen function, off the request path, builds its routing
// index, and swaps the whole generation in at once. Requests already running
// finish on the generation they started with. A generation that fails to open
// leaves the last good one serving, and the reason is logged. Then every
// session is told what its revision defines: list_changed for tools,
// resources and prompts, resources/updated for subscribed URIs whose bytes
// changed, and the same through open 2026-07-28 subscriptions/listen
// requests; open change streams (HTTP GET) get the list_changed.

// openWatch starts the watcher Options.Source.Changes names (WatchFile,
// WatchFolders), whose signals feed the reload loop; with Signals the loop
// reads the caller's channel instead.
func (s *server) openWatch() error {
	w := &s.opts.Source.Changes
	if w.signals != nil || w.reopen == nil {
		return nil
	}
	var (
		watcher *watch.Watcher
		err     error
	)
	wo := &watch.Options{Logger: s.log}
	switch {
	case len(w.folders) > 0:
		watcher, err = watch.NewTree(w.folders, wo)
	default:
		watcher, err = watch.New(w.file, wo)
	}
	if err != nil {
		return err
	}
	s.watcher, s.reloads = watcher, watcher.Changes()
	return nil
}

// watch consumes change signals until ctx ends.
func (s *server) watch(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-s.reloads:
			if !ok {
				return
			}
			s.reload(ctx)
		}
	}
}

// startWatch starts the reload loop when there are change signals.
func (s *server) startWatch(ctx context.Context) {
	if !s.watching() {
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.watch(ctx)
	}()
	s.watchMu.Lock()
	s.watchStop = func() { cancel(); <-done }
	s.watchMu.Unlock()
}

// stopWatch ends the reload loop, then the watcher it started, each
// before it returns: no watcher logs after the server has stopped.
func (s *server) stopWatch() {
	s.watchMu.Lock()
	stop := s.watchStop
	s.watchStop = nil
	s.watchMu.Unlock()
	if stop != nil {
		stop()
	}
	if s.watcher != nil {
		s.watcher.Close()
	}
}

// reload opens the file's new generation and swaps it in, unless its bytes
// are those of the generation in force (a touch, or an editor's no-op save).
func (s *server) reload(ctx context.Context) {
	started := time.Now()
	a, err := s.opts.Source.Changes.reopen(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Error("the agent file changed but its new version cannot be served; the last good version keeps serving", "err", err)
			s.reloaded(err)
		}
		return
	}
	old := s.acquire()
	if old != nil {
		defer old.release()
		if sameContent(old.agent, a) {
			a.Close()
			s.log.Debug("agent file touched; its content is unchanged")
			return
		}
	}
	for _, f := range validationErrors(a) {
		s.log.Warn(findingsNote(a), "finding", f)
	}
	rs := newRouterState()
	ro := s.routerOptions(a)
	if cat := a.Catalog(); cat != nil {
		ro.ContentHash = cat.SHA256
	}
	ro.Prepared = nil
	var built func()
	ro.Progress, built = s.indexBuild(ro.Progress)
	r, err := router.ForAgent(ctx, a, ro)
	built()
	if err != nil {
		a.Close()
		if ctx.Err() == nil {
			s.log.Error("the agent file changed but its routing index could not be built; the last good version keeps serving", "err", err)
			s.reloaded(err)
		}
		return
	}
	rs.publish(r, nil)
	s.logBuilt(ctx, r)
	v := &generation{gen: s.gen.Add(1), agent: a, routing: rs}
	v.closeFn = func() { r.Close(); a.Close() }
	s.skillCount.Store(int64(a.SkillCount()))
	s.rememberName(a)
	// A server whose first load failed serves this as its first generation.
	prev := s.cur.Swap(v)
	s.log.Info("agent reloaded", "skills", a.SkillCount(), "version", v.gen, "took", time.Since(started))
	s.reloaded(nil)
	s.announce(ctx, prev, v)
	if prev != nil {
		prev.retire()
	}
}

// reloaded reports a reload's outcome to Options.OnReload.
func (s *server) reloaded(err error) {
	if s.opts.OnReload != nil {
		s.opts.OnReload(err)
	}
}

// sameContent reports whether two opened agents are the same bytes.
func sameContent(a, b *loader.Agent) bool {
	ca, cb := a.Catalog(), b.Catalog()
	return ca != nil && cb != nil && ca.SHA256 != "" && ca.SHA256 == cb.SHA256
}

// announce tells every session what changed between generations prev (nil:
// none served) and next.
func (s *server) announce(ctx context.Context, prev, next *generation) {
	changed := s.changedURIs(ctx, prev, next)
	s.eachSession(func(sess *session) {
		s.tell(sess, changed)
	})
	s.changes.pokeAll()
}

// tell sends one session the notifications its revision defines for a
// reload: legacy sessions the list_changed notifications of the
// capabilities offered to them with listChanged and resources/updated for
// their subscriptions; open listen streams what they opted into. A
// stateless session (one HTTP request, streamed while it runs) hears no
// list_changed in its answer's stream: its client hears them on a change
// stream (changestreams.go), if at all.
func (s *server) tell(sess *session, changed map[string]bool) {
	if v := sess.negotiated(); v != "" && !sess.stateless {
		for _, f := range s.features {
			if f.capability == "" || !s.offered(sess, f.capability+".listChanged") {
				continue
			}
			sess.notify(listChangedMethod(f.capability), nil)
		}
		if s.offered(sess, "resources.subscribe") {
			for _, uri := range sess.subscribed() {
				if changed[uri] {
					sess.notify(methodResourceUpdated, map[string]any{"uri": uri})
				}
			}
		}
	}
	sess.eachListen(func(l *listen) { l.send(s, changed) })
}

// String names a generation in logs and test failures.
func (v *generation) String() string { return fmt.Sprintf("v%d", v.gen) }

// digestOf returns a served resource's digest ("" when it serves none),
// for telling subscribers which URIs changed across a reload.
func (s *server) digestOf(ctx context.Context, v *generation, uri string) string {
	rb, err := s.readResourceBytes(ctx, v, uri)
	if err != nil {
		return ""
	}
	h := sha256.Sum256(rb.data)
	return hex.EncodeToString(h[:])
}

// changedURIs compares, between two generations, the bytes of every URI some
// session subscribed to (legacy subscriptions and listen streams).
func (s *server) changedURIs(ctx context.Context, prev, next *generation) map[string]bool {
	uris := map[string]bool{}
	s.eachSession(func(sess *session) {
		for _, u := range sess.subscribed() {
			uris[u] = true
		}
		sess.eachListen(func(l *listen) {
			for u := range l.uris {
				uris[u] = true
			}
		})
	})
	changed := map[string]bool{}
	for u := range uris {
		if prev == nil || s.digestOf(ctx, prev, u) != s.digestOf(ctx, next, u) {
			changed[u] = true
		}
	}
	return changed
}

// listChangedMethods are the notifications a reload sends on a change
// stream: one per list capability that declares listChanged (none when
// the agent is not watched), in the order the features are registered.
func (s *server) listChangedMethods() []string {
	var out []string
	for _, f := range s.features {
		if f.capability != "" && s.declared(f.capability+".listChanged") {
			out = append(out, listChangedMethod(f.capability))
		}
	}
	return out
}

// versionTag names the agent generation in force in a change stream's event
// ids, so a client that reconnects with Last-Event-ID can be told of a
// reload it missed while it was away (httpevents.go). The content hash
// names the same generation on every replica serving the same files; without
// one, the generation names it on this process only (a mismatch there
// costs a needless list_changed, which is harmless). "" before the first
// load.
func (s *server) versionTag() string {
	v := s.acquire()
	if v == nil {
		return ""
	}
	defer v.release()
	if cat := v.agent.Catalog(); cat != nil && len(cat.SHA256) >= versionTagLen {
		return cat.SHA256[:versionTagLen]
	}
	return "g" + strconv.FormatUint(v.gen, 10)
}
