// Package hashidx maps keys to their positions in a growing list, in O(1),
// with one int32 per hash slot. It stands in for map[K]int where a catalog
// holds a position per skill: at 100,000 skills a Go map of names costs
// ~2.6 MB and a cache miss or two per insert, an Index ~1 MB of slots plus
// the keys, and builds several times faster, which a server pays on every
// start.
package hashidx
