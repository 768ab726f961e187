package mcp

import (
	"context"
	"sync"
	"time"

	"github.com/agent3md/agent3md/router"
)

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

// routeText is route_skill's whole answer: one line per match in the
// reference's format (router.AppendLine: a relaxed or name match says its
// tier after the reference's fields, so a model knows which ones to
// confirm), or "no skill matched". It is text alone: a host that sees
// structured content hands the model that instead (docs/protocol.md §4).
func routeText(matches []router.Match) string {
	if len(matches) == 0 {
		return "no skill matched"
	}
	n := 0
	for i := range matches {
		n += len(matches[i].Name) + 64
		for _, h := range matches[i].Hits {
			n += len(h) + 2
		}
	}
	b := make([]byte, 0, n)
	for i := range matches {
		if i > 0 {
			b = append(b, '\n')
		}
		b = router.AppendLine(b, &matches[i])
	}
	return string(b)
}
