package mcp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/router"
)

// NewRouter maps the agent's skills to router.Skill and builds (or reopens
// from cache) the routing index. cmd's route command uses it too.
func NewRouter(ctx context.Context, a *loader.Agent, opts *router.Options) (*router.Router, error) {
	if a == nil {
		return nil, errors.New("mcp: NewRouter needs an agent")
	}
	// From the scan itself rather than a.Skills(): that list is built on
	// first use and copied per call, and the router needs none of what it
	// adds.
	cat, info := a.Scanned()
	skills := make([]router.Skill, len(info.Skills))
	inputs := 0
	for i := range info.Skills {
		inputs += len(info.Skills[i].Inputs)
	}
	names := make([]string, 0, inputs) // one backing array for every skill's input names
	for i := range info.Skills {
		in := &info.Skills[i]
		start := len(names)
		for _, input := range in.Inputs {
			names = append(names, input.Name)
		}
		tool := ""
		if in.HasTool {
			tool = in.Tool
		}
		skills[i] = router.Skill{
			Name:        in.Name,
			Z:           in.Z,
			Triggers:    in.Triggers,
			Description: cat.Planes[in.Plane].Description,
			Tool:        tool,
			Inputs:      names[start:len(names):len(names)],
		}
	}
	r, err := router.New(ctx, skills, opts)
	if err != nil {
		return nil, fmt.Errorf("building the routing index: %w", err)
	}
	return r, nil
}

// routerState is the index being built in the background. ready closes
// once r or err is set; neither changes afterwards.
type routerState struct {
	ready chan struct{}
	r     *router.Router
	err   error
}

func newRouterState() *routerState { return &routerState{ready: make(chan struct{})} }

// publish sets the outcome; it is called once.
func (rs *routerState) publish(r *router.Router, err error) {
	rs.r, rs.err = r, err
	close(rs.ready)
}

// wait returns the router once it is built, or ctx's error first.
func (rs *routerState) wait(ctx context.Context) (*router.Router, error) {
	select {
	case <-rs.ready:
		return rs.r, rs.err
	case <-ctx.Done():
		return nil, ctx.Err()
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
