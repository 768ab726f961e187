package allocs

import "runtime"

// Bytes returns the heap bytes f allocates: the least of three
// measurements, since other goroutines (a test's background work, the
// runtime's own) can only add to the process-wide count.
func Bytes(f func()) uint64 {
	least := ^uint64(0)
	for range 3 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	return least
}
