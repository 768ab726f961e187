package mcp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/router"
)

// NewRouter builds (or reopens from cache) the routing index over the
// agent's skills. cmd's route command uses it too.
func NewRouter(ctx context.Context, a *loader.Agent, opts *router.Options) (*router.Router, error) {
	if a == nil {
		return nil, errors.New("mcp: NewRouter needs an agent")
	}
	r, err := router.NewFrom(ctx, newRouterSkills(a), opts)
	if err != nil {
		return nil, fmt.Errorf("building the routing index: %w", err)
	}
	return r, nil
}

// routerSkills is the agent's skills as a router.Source, read in place
// from the scan (not a.Skills(), which is built on first use and copied
// per call): only the input names, which the scan keeps as
// agentfile.Inputs, are gathered into one array of their own.
type routerSkills struct {
	skills []agentfile.Skill
	planes []agentfile.Plane
	inputs []string // every skill's input names, in skill order
	starts []int32  // skill i's names are inputs[starts[i]:starts[i+1]]
}

func newRouterSkills(a *loader.Agent) *routerSkills {
	cat, info := a.Scanned()
	n := 0
	for i := range info.Skills {
		n += len(info.Skills[i].Inputs)
	}
	rs := &routerSkills{skills: info.Skills, planes: cat.Planes, inputs: make([]string, 0, n), starts: make([]int32, len(info.Skills)+1)}
	for i := range info.Skills {
		for _, in := range info.Skills[i].Inputs {
			rs.inputs = append(rs.inputs, in.Name)
		}
		rs.starts[i+1] = int32(len(rs.inputs))
	}
	return rs
}

func (rs *routerSkills) Len() int { return len(rs.skills) }

func (rs *routerSkills) Phrases(i int) (string, float64, []string) {
	s := &rs.skills[i]
	return s.Name, s.Z, s.Triggers
}

func (rs *routerSkills) Skill(i int) router.Skill {
	s := &rs.skills[i]
	tool := ""
	if s.HasTool {
		tool = s.Tool
	}
	lo, hi := rs.starts[i], rs.starts[i+1]
	return router.Skill{
		Name:        s.Name,
		Z:           s.Z,
		Triggers:    s.Triggers,
		Description: rs.planes[s.Plane].Description,
		Tool:        tool,
		Inputs:      rs.inputs[lo:hi:hi],
	}
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
