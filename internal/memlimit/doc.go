// Package memlimit keeps a long-running server's memory near what it
// holds (docs/architecture.md §5): --memory-limit auto sets Go's soft
// memory limit, after every collection, to the live heap plus a margin, and
// lowers the GC target while a large routing index builds; a size sets a
// fixed limit; off leaves Go's defaults. GOMEMLIMIT and GOGC, when set,
// win over auto.
//
// It does not parse flags beyond the limit's own value, or measure
// anything: the numbers behind it are in the README's performance notes
// and mcp's ColdStartHeap test.
package memlimit
