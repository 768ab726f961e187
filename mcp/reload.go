package mcp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agent3md/agent3md/internal/watch"
	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/router"
)

// Live reload (docs/protocol.md §9, docs/reload.md): the server watches
// what Options.Watch names (internal/watch: an agent file's directory, or
// every directory of skill folders' trees), or takes its caller's signals
// on Options.Changes, once a change has settled; it then opens the new
// generation with Options.Reopen, off the request path, builds its routing
// index, and swaps the whole generation in at once. Requests already running
// finish on the generation they started with. A generation that fails to open
// leaves the last good one serving, and the reason is logged. Then every
// session is told what its revision defines: list_changed for tools,
// resources and prompts, resources/updated for subscribed URIs whose bytes
// changed, and the same through open 2026-07-28 subscriptions/listen
// requests; open change streams (HTTP GET) get the list_changed.

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

// openWatch starts the watcher Options.Watch names, whose signals feed
// the reload loop; without it the loop reads Options.Changes.
func (s *server) openWatch() error {
	w := s.opts.Watch
	if w == nil {
		return nil
	}
	switch {
	case s.opts.Changes != nil:
		return errors.New("mcp: Options.Watch and Options.Changes are both set; give one source of change signals")
	case s.opts.Reopen == nil:
		return errors.New("mcp: Options.Watch needs Options.Reopen to open each new version")
	}
	var (
		watcher *watch.Watcher
		err     error
	)
	wo := &watch.Options{Logger: s.log}
	switch {
	case len(w.Folders) > 0:
		watcher, err = watch.NewTree(w.Folders, wo)
	case w.File != "":
		watcher, err = watch.New(w.File, wo)
	default:
		return errors.New("mcp: Options.Watch names no file and no folder")
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

// watching reports whether the agent is reloaded when its file changes.
func (s *server) watching() bool { return s.reloads != nil && s.opts.Reopen != nil }

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
	a, err := s.opts.Reopen(ctx)
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

// listChangedMethod is the notification a list capability sends.
func listChangedMethod(capability string) string {
	return "notifications/" + capability + "/list_changed"
}

// String names a generation in logs and test failures.
func (v *generation) String() string { return fmt.Sprintf("v%d", v.gen) }

// logBuilt logs, once it ends, a routing index build that r left running
// in the background (router.Options.Background): the generation serves
// meanwhile, the relaxed tier waiting for the build.
func (s *server) logBuilt(ctx context.Context, r *router.Router) {
	if r.Info().Index != router.IndexBuilding {
		return
	}
	go func() {
		info, err := r.Wait(ctx)
		switch {
		case err == nil:
			s.log.Info("routing index built", "index", info.Index, "skills", info.Skills, "took", info.Took, "path", info.Path, "reason", info.Reason)
		case ctx.Err() == nil:
			s.log.Error("routing index build failed; route_skill answers only requests that hit a trigger phrase or name a skill", "err", err)
		}
	}()
}
