package mcp

import (
	"sync"
	"sync/atomic"

	"github.com/agent3md/agent3md/loader"
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
