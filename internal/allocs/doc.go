// Package allocs measures what a function allocates, for tests that hold
// code to an allocation budget or compare two ways of doing one thing.
//
// Allocation figures mean little under the race detector: its
// instrumentation moves values to the heap that a normal build keeps on
// the stack (a 2,000-skill validation allocates 1 MB normally and about
// 40 MB under -race), so tests that compare allocations skip when
// RaceEnabled is true.
package allocs
