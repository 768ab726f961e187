package router

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
)

// A cold router (Options.Background) routes while bleve builds: doc.go,
// "Where the work goes".

// backgroundMaxSkills is the most skills built in the background: past
// it a cold build is seconds long anyway, and the analyzer pass repeats a
// third of its work.
const backgroundMaxSkills = 25000

// IndexBuilding is Info.Index while the bleve index builds in the
// background (Options.Background); Wait returns the final kind.
const IndexBuilding = "building"

// deferBuild reports whether NewFrom builds the bleve index in the
// background: asked for, not too many skills, and no Prepared or cache
// entry to open (which takes milliseconds).
func (r *Router) deferBuild() bool {
	o := &r.opts
	n := r.src.Len()
	if !o.Background || n == 0 || n > backgroundMaxSkills || o.Prepared != nil {
		return false
	}
	if !r.large() || o.NoCache || o.ContentHash == "" {
		return true
	}
	_, entry, err := entryDir(o)
	if err == nil {
		_, err = os.Stat(entry)
	}
	return err != nil
}

// openEarly builds what routes need but bleve: the phrase index and z
// order beside the term statistics.
func (r *Router) openEarly(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.phrases = buildPhrases(r.src)
		r.zRank = zOrder(r.src)
	}()
	stats, err := buildTermStats(ctx, r.corpus())
	wg.Wait()
	if err != nil {
		return err
	}
	r.scorer = stats
	r.late = &pendingIndex{done: make(chan struct{}), kicked: make(chan struct{})}
	r.idx = r.late
	r.info.Index = IndexBuilding
	return nil
}

// startBuild builds the bleve index in the background as the foreground
// would; cancelling ctx stops it. started is when NewFrom began.
func (r *Router) startBuild(ctx context.Context, started time.Time) {
	p := r.late
	p.info = r.info
	p.hold = r.opts.holdBuild
	go func() {
		defer close(p.done)
		// The plain ranking's index (runner-ups) is built last, so that
		// routes answered once the build is done never wait for it.
		defer r.plainIndex()
		// The build waits for the first route: started at once it takes
		// every processor as the client's first request is served.
		t := time.NewTimer(buildGrace)
		select {
		case <-p.kicked:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
		if p.hold != nil {
			select {
			case <-p.hold:
			case <-ctx.Done():
			}
		}
		b, err := (*cached)(nil), ctx.Err() // cancelled while held
		if err == nil {
			b, err = r.buildBleve(ctx)
		}
		if err != nil {
			p.err = err
			p.info.Index = IndexNone
			p.info.Reason = fmt.Sprintf("background index build failed: %v", err)
			return
		}
		// The statistics gathered before are the index's (TestStatsFromBleve).
		p.built, p.cleanup = b.idx, b.cleanup
		r.bodies.Store(b.bodies)
		p.info.Index, p.info.Path, p.info.Reason = b.kind, b.path, b.reason
		p.info.Took = time.Since(started)
	}()
}

// pendingIndex is the bleve index while it builds in the background:
// every use but a search (which waits) comes after the build.
type pendingIndex struct {
	built    // the built index; set before done closes, nil on failure
	done     chan struct{}
	kicked   chan struct{} // closed to start the build before buildGrace
	kickOnce sync.Once
	err      error  // why the build failed; set before done closes
	info     Info   // the Router's Info once done
	cleanup  func() // removes a temp index after Close
	hold     chan struct{}
}

// buildGrace is the longest a background build waits for the first route.
const buildGrace = 30 * time.Millisecond

// pending reports whether p is a build still running (false for nil).
func (p *pendingIndex) pending() bool {
	if p == nil {
		return false
	}
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

func (p *pendingIndex) kick() {
	p.kickOnce.Do(func() { close(p.kicked) })
}

// wait waits for the build; it returns the build's error, or ctx's.
func (p *pendingIndex) wait(ctx context.Context) error {
	select {
	case <-p.done:
	case <-ctx.Done():
		select {
		case <-p.done: // both ready: a finished build wins
		default:
			return ctx.Err()
		}
	}
	if p.err != nil {
		return fmt.Errorf("router: the routing index could not be built: %w", p.err)
	}
	return nil
}

// built is bleve.Index under a name that keeps its Index method when embedded.
type built = bleve.Index

// Close waits for the build to end, then releases the index.
func (p *pendingIndex) Close() error {
	p.kick()
	<-p.done
	return closeIndex(p.built, p.cleanup)
}

// Wait waits until the Router's bleve index is built (Options.Background)
// and returns Info then. The error is ctx's, or what stopped the build:
// the phrase tier still answers, relaxed routes return that error.
func (r *Router) Wait(ctx context.Context) (Info, error) {
	if r.late == nil {
		return r.info, nil
	}
	err := r.late.wait(ctx)
	if err != nil && ctx.Err() != nil {
		return r.info, err
	}
	return r.late.info, err
}
