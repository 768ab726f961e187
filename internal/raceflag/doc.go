// Package raceflag tells tests whether the binary was built with the race
// detector. Allocation figures mean little under it: the instrumentation
// moves values to the heap that a normal build keeps on the stack (a
// 2,000-skill validation allocates 1 MB normally and about 40 MB under
// -race), so tests that compare allocations skip when Enabled is true.
package raceflag
