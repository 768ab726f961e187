//go:build unix

package skillfolder

import (
	"os"
	"syscall"
)

// sigOf is a file's cheap change signature: size, modification and change
// times, device and inode. An edit, a replace-by-rename or a touch each
// change at least one of them.
func sigOf(fi os.FileInfo) sig {
	s := sig{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.dev, s.ino = uint64(st.Dev), st.Ino
		s.ctime = ctimeNano(st)
	}
	return s
}

// openFlags open a file without blocking: if a FIFO was swapped in after
// the type check, the open does not wait for a writer, and the fstat
// after it refuses the file. (os.Root resolves symlinks itself, refusing
// those that leave the folder.)
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK
