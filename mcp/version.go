package mcp

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/agent3md/agent3md/loader"
)

// version is one loaded agent and everything derived from it: the routing
// index, the answers encoded from its catalog, the tool descriptions and
// the rendered skill files with their digests. A request takes the version
// in force when it first needs the agent (call.version) and uses only it,
// so no answer mixes two versions of the file; a reload builds a whole new
// version off the request path and swaps it in (server.swap). The old one
// is closed once the last request using it ends.
type version struct {
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

// acquire takes the version in force for one request; release gives it
// back.
func (s *server) acquire() *version {
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

func (v *version) release() {
	if v.refs.Add(-1) == 0 && v.retired.Load() {
		v.close()
	}
}

// retire marks v replaced: it closes once no request holds it.
func (v *version) retire() {
	v.retired.Store(true)
	if v.refs.Load() == 0 {
		v.close()
	}
}

func (v *version) close() {
	v.closeOnce.Do(func() {
		if v.closeFn != nil {
			v.closeFn()
		}
	})
}

// version returns the agent version this call uses, waiting for the first
// load; every later use in the call returns the same one. A failed first
// load is an internal error that says what went wrong and what to do.
func (c *call) agentVersion(ctx context.Context) (*version, error) {
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

// bindAgent decodes the call's params into dst (bind) and takes its agent
// version: the start of every handler that reads the agent.
func (c *call) bindAgent(ctx context.Context, dst any) (*version, error) {
	if err := bind(c, dst); err != nil {
		return nil, err
	}
	return c.agentVersion(ctx)
}

// done releases what the call took.
func (c *call) done() {
	if c.v != nil {
		c.v.release()
		c.v = nil
	}
}
