//go:build unix

package loader

import (
	"os"
	"syscall"
)

func mapFile(f *os.File, size int) []byte {
	sc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	var mem []byte
	_ = sc.Control(func(fd uintptr) {
		mem, err = syscall.Mmap(int(fd), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	})
	if err != nil {
		return nil
	}
	return mem
}

func unmapFile(mem []byte) { _ = syscall.Munmap(mem) }
