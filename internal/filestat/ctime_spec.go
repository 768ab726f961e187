//go:build darwin || freebsd || netbsd

package filestat

import "syscall"

// These systems name the change time Ctimespec.
func ctimeNano(st *syscall.Stat_t) int64 { return st.Ctimespec.Nano() }
