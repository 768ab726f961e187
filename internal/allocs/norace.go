//go:build !race

package allocs

// RaceEnabled reports whether the race detector is built in.
const RaceEnabled = false
