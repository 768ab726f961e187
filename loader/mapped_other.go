//go:build !unix

package loader

import "os"

// Without mmap every body is read with pread.
func mapFile(*os.File, int) []byte { return nil }

func unmapFile([]byte) {}
