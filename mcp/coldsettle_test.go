package mcp

import (
	"bytes"
	"fmt"
	"runtime"
	"time"

	"github.com/agent3md/agent3md/loader"
)

// collectedLive is the live heap after two collections. The first moves
// what sync.Pools cache to their victim caches, where it is still
// reachable, and only the second frees it: after one, TestColdStartHeap
// counted the buffers bleve's segment builder leaves in its pools as held
// (1.24 bytes per byte of the agent file instead of 1.08), and more or
// fewer of them by how many collections the build had just run.
func collectedLive() uint64 {
	runtime.GC()
	runtime.GC()
	return heapLive()
}

// settleStart waits, on the index build's goroutine as its first report
// calls IndexBuild, until the cold start's other work has ended, so that
// TestColdStartHeap measures what the server holds there rather than how
// far that work had got when the collection ran:
//
//   - the catalog cache entry Open writes in the background
//     (loader.FlushCatalogCache);
//   - the tools' schemas, derived off the request path (derived is a
//     sync.OnceValue: calling it waits for a derivation under way);
//   - the validation findings, which start once the index is ready or
//     findingsDefer after the load, whichever comes first. At 4,000 skills
//     the build's first report comes before findingsDefer on an idle
//     machine and after it on a loaded one, where the collection caught
//     the validation half done (1.30 and 1.37 bytes per byte where 1.24
//     was usual). Blocking the build here lets findingsDefer pass, so the
//     findings have always run to their end: what they leave held counts.
//
// The findings goroutine sends no signal, so the goroutines
// (*server).start made are read from the goroutine profile until the
// build's (the caller) is the only one left. deadline only bounds a real
// hang; missing it is an error.
func settleStart(deadline time.Duration) error {
	loader.FlushCatalogCache()
	for _, t := range toolTable {
		t.derived()
	}
	const starter = "github.com/agent3md/agent3md/mcp.(*server).start"
	var p goroutineProfile
	self := p.header()
	stop := time.Now().Add(deadline)
	for {
		others := p.createdBy(starter, self)
		if others == 0 {
			return nil
		}
		if time.Now().After(stop) {
			return fmt.Errorf("%d goroutines started by %s still ran %v after the index build's first report: the validation findings never ended?", others, starter, deadline)
		}
		time.Sleep(time.Millisecond)
	}
}

// goroutineProfile reads the stacks of goroutines into a buffer it keeps,
// so that waiting on one does not allocate a buffer a poll.
type goroutineProfile struct{ buf []byte }

// read returns the stacks of every goroutine (all) or of the caller's.
func (p *goroutineProfile) read(all bool) []byte {
	if p.buf == nil {
		p.buf = make([]byte, 1<<16)
	}
	for {
		if n := runtime.Stack(p.buf, all); n < len(p.buf) {
			return p.buf[:n]
		}
		p.buf = make([]byte, 2*len(p.buf))
	}
}

// header is the calling goroutine's "goroutine N " prefix, which starts
// its stack in a profile.
func (p *goroutineProfile) header() []byte {
	line, _, _ := bytes.Cut(p.read(false), []byte(" ["))
	return append(bytes.Clone(line), ' ')
}

// createdBy counts the goroutines other than self (a header) whose stack
// says fn created them.
func (p *goroutineProfile) createdBy(fn string, self []byte) int {
	created := []byte("\ncreated by " + fn + " in goroutine ")
	count := 0
	for g := range bytes.SplitSeq(p.read(true), []byte("\n\n")) {
		if !bytes.HasPrefix(g, self) && bytes.Contains(g, created) {
			count++
		}
	}
	return count
}
