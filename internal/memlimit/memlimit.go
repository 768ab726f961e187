package memlimit

import (
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agent3md/agent3md/internal/bytesize"
)

// The mcp command's memory limit. A long-running server holds its agent
// and index (about 140 MB of Go heap at 100,000 skills) and turns over a
// few tens of kilobytes per request. Go's default lets the heap grow to
// twice its live size between collections, so under sustained load a large
// agent's footprint approaches double what it needs.
//
// --memory-limit auto (the default) caps that headroom instead: once the
// server has loaded, after every collection it sets Go's soft memory limit
// to what the runtime then holds outside garbage plus a margin (a quarter
// of the live heap, at least memoryMarginMin). The limit follows the live
// heap, so a re-scan or a large answer raises it rather than fighting it,
// and nothing is forced: no collection is run to measure, and loading runs
// under Go's defaults. Small agents never reach the limit (twice their
// live heap is below it); large ones collect more often, which costs some
// CPU under sustained load (see the README's performance section).
//
// off leaves Go's defaults (or GOMEMLIMIT); a size sets a fixed limit.
// GOMEMLIMIT, when set, wins over auto; an explicit size wins over both.

// memoryMarginMin is the least headroom auto leaves above the live heap.
const memoryMarginMin = 32 << 20

// Limit is a parsed --memory-limit: auto (bytes 0, auto true), off (both
// zero), or a size.
type Limit struct {
	auto  bool
	bytes int64
}

// Auto is the default limit, which follows the live heap.
var Auto = Limit{auto: true}

// Parse reads auto, off, or a size as GOMEMLIMIT writes one: digits with
// an optional unit B, KiB, MiB, GiB or TiB.
func Parse(s string) (Limit, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "auto":
		return Auto, nil
	case "off":
		return Limit{}, nil
	}
	n, err := bytesize.ParseBinary(s)
	if err != nil || n <= 0 {
		return Limit{}, fmt.Errorf("--memory-limit %q: use auto, off, or a size such as 512MiB", s)
	}
	return Limit{bytes: n}, nil
}

// Apply sets the limit for a loaded server and logs what it did. The
// server never stops it; stop (for tests) ends auto's following.
func (m Limit) Apply(log *slog.Logger) (stop func()) {
	switch {
	case m.bytes > 0:
		debug.SetMemoryLimit(m.bytes)
		log.Info("memory limit set", "limit_mb", m.bytes>>20)
	case m.auto && os.Getenv("GOMEMLIMIT") == "":
		f := &limitFollower{set: debug.SetMemoryLimit}
		f.start()
		// Debug: the default, said on every start, is nothing to act on.
		log.Debug("memory limit follows the live heap", "margin_min_mb", memoryMarginMin>>20)
		return func() { f.stopped.Store(true) }
	}
	return func() {}
}

// ApplyUntilReturn is Apply for a command that returns while its process
// goes on (serve run in-process, as tests do): what it returns stops the
// following and puts back the limit in force before, so a limit fitted
// to a server that has stopped does not stay on the process.
func (m Limit) ApplyUntilReturn(log *slog.Logger) (restore func()) {
	prev := debug.SetMemoryLimit(-1) // reads the limit without changing it
	stop := m.Apply(log)
	return func() {
		stop()
		debug.SetMemoryLimit(prev)
	}
}

// A cold build of a large agent's routing index allocates gigabytes while
// the server holds the agent (about 110 MB of heap at 100,000 skills), and
// under Go's default target the heap grows to twice what it holds between
// collections: that, not what is kept, sets the cold start's peak RSS. So
// under auto, while a build of more than buildGCSkills skills runs, the GC
// target is buildGCPercent: the heap grows by half of what it holds, not
// all of it (measured peak RSS at 100,000 skills: ~215 MB, ~255 MB under
// the default target), for a few more collections, run concurrently on
// the other processor. Smaller agents
// keep Go's default (their builds may run beside routes, and their peak is
// small); GOGC, when set, is left alone.
const (
	buildGCSkills  = 25000
	buildGCPercent = 50
)

// buildGC is the GC target in force for index builds: builds can overlap
// (a reload while the first index builds), and the default comes back
// when the last one ends.
var buildGC struct {
	sync.Mutex
	depth int
	saved int
}

// IndexBuild is mcp.Options.IndexBuild for this limit: it lowers the GC
// target during a large build under auto, and returns what restores it.
func (m Limit) IndexBuild(skills int) (end func()) {
	if !m.auto || skills <= buildGCSkills || os.Getenv("GOGC") != "" {
		return func() {}
	}
	return lowerGC(debug.SetGCPercent)
}

// lowerGC sets buildGCPercent through set (debug.SetGCPercent; replaced in
// tests) unless a build already did, and returns what puts the previous
// target back once no build needs it.
func lowerGC(set func(int) int) (end func()) {
	buildGC.Lock()
	if buildGC.depth++; buildGC.depth == 1 {
		buildGC.saved = set(buildGCPercent)
	}
	buildGC.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			buildGC.Lock()
			if buildGC.depth--; buildGC.depth == 0 {
				set(buildGC.saved)
			}
			buildGC.Unlock()
		})
	}
}

// limitFollower resets the soft memory limit after every collection.
type limitFollower struct {
	set     func(int64) int64 // debug.SetMemoryLimit; replaced in tests
	last    atomic.Int64      // set by start, then by each cleanup in turn
	stopped atomic.Bool
}

// gcToken is allocated only to be collected: its cleanup runs once per
// collection cycle. It holds a pointer so that it is not a tiny allocation,
// which would share a block with other objects and outlive the cycle.
type gcToken struct{ _ *byte }

// start sets a first limit and follows the collections from then on.
// Until the next collection ends the live heap is not known: the first
// limit counts every heap object as live, so it starts no collection
// itself (the first route is not slowed) and the next one comes after at
// most a margin of allocation.
func (f *limitFollower) start() {
	m := readGoMemory()
	m.live = max(m.live, m.objects)
	limit := followLimit(m)
	f.last.Store(limit)
	f.set(limit)
	f.arm()
}

// arm schedules update after the next collection.
func (f *limitFollower) arm() {
	runtime.AddCleanup(&gcToken{}, func(f *limitFollower) { f.update() }, f)
}

// update sets the limit from the runtime's figures for the cycle that
// just ended, then re-arms.
func (f *limitFollower) update() {
	if f.stopped.Load() {
		return
	}
	limit := followLimit(readGoMemory())
	// No logging here: cleanups share runtime goroutines, and a write
	// blocked on a full stderr pipe would stall every later one.
	if f.last.Swap(limit) != limit {
		f.set(limit)
	}
	f.arm()
}

// goMemory is what followLimit needs from runtime/metrics.
type goMemory struct {
	live    uint64 // heap marked live by the last collection
	objects uint64 // heap objects now, live or not
	nonHeap uint64 // runtime memory other than heap spans: stacks, metadata
}

var memorySamples = []string{
	"/gc/heap/live:bytes",
	"/memory/classes/total:bytes",
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/heap/free:bytes",
	"/memory/classes/heap/released:bytes",
}

func readGoMemory() goMemory {
	s := make([]metrics.Sample, len(memorySamples))
	for i, name := range memorySamples {
		s[i].Name = name
	}
	metrics.Read(s)
	v := func(i int) uint64 {
		if s[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return s[i].Value.Uint64()
	}
	heap := v(2) + v(3) + v(4) + v(5)
	m := goMemory{live: v(0), objects: v(2)}
	if total := v(1); total > heap {
		m.nonHeap = total - heap
	}
	return m
}

// followLimit is the limit for a live heap: everything the runtime holds
// outside garbage, plus the margin.
func followLimit(m goMemory) int64 {
	margin := max(uint64(memoryMarginMin), m.live/4)
	return int64(min(m.live+m.nonHeap+margin, 1<<62))
}
