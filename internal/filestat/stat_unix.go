//go:build unix

package filestat

import (
	"os"
	"slices"
	"sync"
	"syscall"
)

// Of is fi's signature; full is false when fi carries no stat record (a
// FileInfo not from the file system), and then only Size and Mtime are set.
func Of(fi os.FileInfo) (s Sig, full bool) {
	s = Sig{Size: fi.Size(), Mtime: fi.ModTime().UnixNano()}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return s, false
	}
	s.Dev, s.Ino, s.Mode = uint64(st.Dev), uint64(st.Ino), uint32(st.Mode)
	s.Ctime = ctimeNano(st)
	return s, true
}

// ids returns this process's effective user and groups, read once.
var ids = sync.OnceValues(func() (int, []int) {
	groups, _ := os.Getgroups()
	return os.Geteuid(), append(groups, os.Getegid())
})

// Readable reports whether this process may read the file by its mode
// bits (ReadableBy with its effective user and groups). It costs no system
// call; access lists and the like are left to the read.
func Readable(fi os.FileInfo) bool {
	uid, groups := ids()
	return ReadableBy(fi, uid, groups)
}

// ReadableBy reports whether user uid, a member of groups, may read the
// file by its mode bits: the read permission of its owner, group or
// others, whichever applies (uid 0 reads everything). A FileInfo without a
// stat record is readable: the read decides.
func ReadableBy(fi os.FileInfo, uid int, groups []int) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
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
