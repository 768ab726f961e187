package memlimit

import (
	"io"
	"log/slog"
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestParseMemoryLimit(t *testing.T) {
	tests := []struct {
		in   string
		want Limit
		ok   bool
	}{
		{"auto", Limit{auto: true}, true},
		{"AUTO", Limit{auto: true}, true},
		{"off", Limit{}, true},
		{"512MiB", Limit{bytes: 512 << 20}, true},
		{"2GiB", Limit{bytes: 2 << 30}, true},
		{"1048576", Limit{bytes: 1 << 20}, true},
		{"64 KiB", Limit{bytes: 64 << 10}, true},
		{"100B", Limit{bytes: 100}, true},
		{"", Limit{}, false},
		{"0", Limit{}, false},
		{"-5MiB", Limit{}, false},
		{"12MB", Limit{}, false}, // GOMEMLIMIT has no MB
		{"lots", Limit{}, false},
		{"99999999999TiB", Limit{}, false},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if (err == nil) != tt.ok || (tt.ok && got != tt.want) {
			t.Errorf("Parse(%q) = %+v, %v; want %+v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestFollowLimit(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name string
		m    goMemory
		want int64
	}{
		{"small heap takes the least margin", goMemory{live: 20 * mib, nonHeap: 5 * mib}, (20 + 5 + 32) * mib},
		{"large heap takes a quarter", goMemory{live: 400 * mib, nonHeap: 10 * mib}, (400 + 10 + 100) * mib},
		{"nothing measured", goMemory{}, 32 * mib},
	}
	for _, tt := range tests {
		if got := followLimit(tt.m); got != tt.want {
			t.Errorf("%s: followLimit(%+v) = %d MiB, want %d MiB", tt.name, tt.m, got/mib, tt.want/mib)
		}
	}
}

// TestLimitFollowerTracksCollections: armed once, the follower sets a
// limit after a collection and again after later ones (it re-arms), and
// the limit covers the live heap.
func TestLimitFollowerTracksCollections(t *testing.T) {
	sets := make(chan int64, 64)
	// The fake never blocks: a blocked cleanup would stall every other
	// cleanup in the test process.
	set := func(v int64) int64 {
		select {
		case sets <- v:
		default:
		}
		return 0
	}
	f := &limitFollower{set: set}
	t.Cleanup(func() { f.stopped.Store(true) })
	f.start()
	if first := <-sets; first < int64(readGoMemory().live) {
		t.Errorf("first limit %d MiB is below the live heap", first>>20)
	}
	keep := make([]byte, 48<<20) // moves the live heap so the limit changes
	seen := 0
	deadline := time.Now().Add(10 * time.Second)
	for seen < 2 && time.Now().Before(deadline) {
		runtime.GC()
		select {
		case v := <-sets:
			seen++
			if live := readGoMemory().live; v < int64(live) {
				t.Errorf("limit %d MiB is below the live heap %d MiB", v>>20, live>>20)
			}
			keep = nil // the next limit is lower
		case <-time.After(50 * time.Millisecond):
		}
	}
	runtime.KeepAlive(keep)
	if seen < 2 {
		t.Fatalf("the limit was set %d times across collections, want at least 2", seen)
	}
}

// TestApplyMemoryLimit: each setting reaches the Go runtime as documented.
// The limit is process-wide: every case restores it.
func TestApplyMemoryLimit(t *testing.T) {
	const unset = math.MaxInt64 // Go's default: no limit
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	current := func() int64 { return debug.SetMemoryLimit(-1) }
	orig := current()
	t.Cleanup(func() { debug.SetMemoryLimit(orig) })
	restore := func(stop func()) {
		stop()
		debug.SetMemoryLimit(orig)
	}

	stop := Limit{bytes: 300 << 20}.Apply(log)
	if got := current(); got != 300<<20 {
		t.Errorf("a size: limit %d, want %d", got, 300<<20)
	}
	restore(stop)

	debug.SetMemoryLimit(unset)
	stop = Limit{}.Apply(log)
	if got := current(); got != unset {
		t.Errorf("off changed the limit to %d", got)
	}
	restore(stop)

	debug.SetMemoryLimit(unset)
	stop = Limit{auto: true}.Apply(log)
	if got := current(); got == unset || got < int64(readGoMemory().live) {
		t.Errorf("auto: limit %d, want one above the live heap", got)
	}
	restore(stop)

	t.Setenv("GOMEMLIMIT", "1GiB")
	debug.SetMemoryLimit(unset)
	stop = Limit{auto: true}.Apply(log)
	if got := current(); got != unset {
		t.Errorf("auto with GOMEMLIMIT set changed the limit to %d", got)
	}
	restore(stop)
}

// TestIndexBuildGC: under auto a build of more than buildGCSkills skills
// runs at buildGCPercent, overlapping builds restore the target only when
// the last ends (each end counts once), and small agents, off, a size or
// GOGC in the environment leave the target alone.
func TestIndexBuildGC(t *testing.T) {
	percent := func() int { p := debug.SetGCPercent(100); debug.SetGCPercent(p); return p }
	orig := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(orig) })
	t.Setenv("GOGC", "") // the test's own environment must not turn it off
	big := buildGCSkills + 1

	for _, m := range []Limit{{}, {bytes: 300 << 20}} {
		m.IndexBuild(big)()
		if got := percent(); got != 100 {
			t.Errorf("%+v changed the GC target to %d", m, got)
		}
	}
	auto := Limit{auto: true}
	end := auto.IndexBuild(buildGCSkills)
	if got := percent(); got != 100 {
		t.Errorf("a build of %d skills set the GC target to %d", buildGCSkills, got)
	}
	end()

	first := auto.IndexBuild(big)
	if got := percent(); got != buildGCPercent {
		t.Fatalf("a large build: GC target %d, want %d", got, buildGCPercent)
	}
	second := auto.IndexBuild(big)
	first()
	first() // a second call must not end the other build's setting
	if got := percent(); got != buildGCPercent {
		t.Errorf("one of two builds ended: GC target %d, want %d", got, buildGCPercent)
	}
	second()
	if got := percent(); got != 100 {
		t.Errorf("both builds ended: GC target %d, want 100 back", got)
	}

	t.Setenv("GOGC", "200")
	auto.IndexBuild(big)()
	if got := percent(); got != 100 {
		t.Errorf("GOGC set: the GC target changed to %d", got)
	}
}
