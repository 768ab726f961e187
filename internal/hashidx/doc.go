// Package hashidx maps keys to their positions in a growing list, in O(1),
// with one int32 per hash slot. It stands in for map[K]int where a catalog
// holds a position per skill: at 100,000 skills a Go map of names costs
// ~3.5 MB to build and holds a copy of every key, where an Index holds
// ~1 MB of slots beside keys its owner keeps anyway, and builds a little
// faster (fewer cache misses, no per-bucket allocations), which a server
// pays on every start.
package hashidx
