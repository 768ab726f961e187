//go:build linux || openbsd || dragonfly || solaris

package filestat

import "syscall"

// These systems name the change time Ctim.
func ctimeNano(st *syscall.Stat_t) int64 { return st.Ctim.Nano() }
