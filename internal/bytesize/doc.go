// Package bytesize reads and writes byte counts as people type them:
// digits with an optional binary unit (512MiB, 2GiB; KB, MB, GB and TB read
// as their binary sizes too), for the command line's size flags, the cache
// size and the memory limit, and writes them back in the largest unit
// that keeps the number at least 1.
//
// It does not decide any bound: callers check the ranges and name their
// flags.
package bytesize
