//go:build unix

package skillsdir

import (
	"os"
	"slices"
	"sync"
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

// ids returns this process's effective user and groups, read once (a
// variable, for tests).
var ids = sync.OnceValues(func() (int, []int) {
	groups, _ := os.Getgroups()
	return os.Geteuid(), append(groups, os.Getegid())
})

// readable reports whether this process may read the file by its mode
// bits: the read permission of its owner, group or others, whichever
// applies (root reads everything). It costs no system call; access lists
// and the like are left to the read, which then fails as a changed file.
func readable(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	uid, groups := ids()
	mode := fi.Mode().Perm()
	switch {
	case uid == 0:
		return true
	case int(st.Uid) == uid:
		return mode&0o400 != 0
	case slices.Contains(groups, int(st.Gid)):
		return mode&0o040 != 0
	}
	return mode&0o004 != 0
}
