//go:build openbsd || dragonfly

package skillsdir

import "syscall"

// OpenBSD and DragonFly name the change time as Linux does.
func ctimeNano(st *syscall.Stat_t) int64 { return st.Ctim.Nano() }
