package main

import (
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

// The mcp command's memory limit. A long-running server holds its agent
// and index (about 140 MB of Go runtime memory at 100,000 skills) and
// turns over a few tens of kilobytes per request; by default Go lets the
// heap grow to twice its live size between collections, so under sustained
// load much of the footprint is garbage. --memory-limit auto sets Go's
// soft memory limit, once the server has loaded, to what it then uses plus
// a margin, so it collects sooner instead of growing; a size sets that
// limit outright. It is a soft limit: a server that needs more takes more,
// with the collector working harder meanwhile.
//
// It is off by default because it costs CPU: at 100,000 skills, 2,000
// pipelined routes peaked at ~215 MB instead of ~230 MB with auto, but
// ~15% fewer routes per second, and the collection that measures the
// loaded server delays a first route by a few tens of milliseconds.
// GOMEMLIMIT, when set, wins over auto; an explicit size wins over both.

// memoryMarginMin is the least headroom auto leaves above what the loaded
// server uses; it is a quarter of that when larger.
const memoryMarginMin = 48 << 20

// memoryLimit is a parsed --memory-limit: auto (bytes 0, auto true), off
// (both zero), or a size.
type memoryLimit struct {
	auto  bool
	bytes int64
}

// parseMemoryLimit reads auto, off, or a size written as GOMEMLIMIT is:
// digits with an optional unit B, KiB, MiB, GiB or TiB.
func parseMemoryLimit(s string) (memoryLimit, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "auto":
		return memoryLimit{auto: true}, nil
	case "off":
		return memoryLimit{}, nil
	}
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return memoryLimit{}, fmt.Errorf("--memory-limit %q: use auto, off, or a size such as 512MiB", s)
	}
	return memoryLimit{bytes: n * mult}, nil
}

// apply sets the limit for a loaded server and logs what it did.
func (m memoryLimit) apply(log *slog.Logger) {
	switch {
	case m.bytes > 0:
		debug.SetMemoryLimit(m.bytes)
		log.Info("memory limit set", "limit_mb", m.bytes>>20)
	case m.auto && os.Getenv("GOMEMLIMIT") == "":
		// Collect what loading left behind, then measure what the
		// server really holds.
		debug.FreeOSMemory()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		used := int64(ms.Sys - ms.HeapReleased)
		limit := used + max(memoryMarginMin, used/4)
		debug.SetMemoryLimit(limit)
		log.Info("memory limit set", "limit_mb", limit>>20, "in_use_mb", used>>20)
	}
}
