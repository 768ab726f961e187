package mcp

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/router"
)

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
	if prep != nil && ro.ContentHash == s.opts.Source.head.ContentHash {
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

// open runs the Opener source's open function and publishes its outcome.
func (s *server) open(ctx context.Context) {
	a, err := s.opts.Source.open(ctx)
	if err != nil {
		s.log.Error("the agent file failed to load; requests that need it will fail until it is fixed", "err", err)
		err = fmt.Errorf("loading the agent: %w", err)
	}
	// A failed first load is not retried here: the reload loop (when the
	// file is watched) tries the next change as the first generation.
	s.loaded(a, true, err)
}

// prepareRouter opens the routing cache entry named by the head's content
// hash, if any; nil when there is none to open. A failure only costs the
// head start, so it is logged, not returned.
func (s *server) prepareRouter(ctx context.Context) *router.Prepared {
	h := s.opts.Source.head
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
