package loader

import (
	"os"
	"runtime/debug"
)

// A scanned file is also mapped into memory, read-only, where the system
// allows it (mapFile; unmapped by state.close). A body is then copied out
// of the mapping instead of read with a pread: a first read of a skill
// costs a memory copy instead of a system call, which would be a third of
// a get_skill answer on a large agent. The catalog stays body-less: the
// mapping holds the operating system's cached pages of the file, which it
// may drop at any time, not bytes of this process's heap.
//
// A file shortened under the mapping makes a read past its new end fault.
// copyMapped turns that fault into a stale body, as a short pread would
// be: the reader re-scans, or reports the file changed.

// maxMapped bounds the files mapped: past it (or where mapping fails)
// bodies are read with pread, which needs no address space.
const maxMapped = 1 << 30

// copyMapped copies src, a span of a mapping, into dst, and reports false
// when the mapped file no longer holds those bytes (the copy faulted).
func copyMapped(dst, src []byte) (ok bool) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if recover() != nil {
			ok = false
		}
	}()
	copy(dst, src)
	return true
}

// mapOf returns f's mapping, size bytes long, or nil when f is not to be
// mapped (empty, too large, or a system without mmap) or mapping failed.
func mapOf(f *os.File, size int64) []byte {
	if size <= 0 || size > maxMapped || int64(int(size)) != size {
		return nil
	}
	return mapFile(f, int(size))
}
