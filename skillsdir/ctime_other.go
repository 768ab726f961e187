//go:build unix && !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package skillsdir

import "syscall"

// ctimeNano gives no change time here; size, mtime and inode still sign.
func ctimeNano(*syscall.Stat_t) int64 { return 0 }
