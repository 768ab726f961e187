//go:build race

package router

// The race detector's sync.Pool drops pooled memory at random, so a
// route's allocations are not counted under it (TestRouteAllocs).
func init() { raceEnabled = true }
