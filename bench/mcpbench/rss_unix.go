//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// peakRSSMB returns the peak resident set size of an exited process in MB
// (2^20 bytes), or 0 when the platform does not report it.
func peakRSSMB(ps *os.ProcessState) float64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return float64(ru.Maxrss) / (1 << 20) // bytes there
	}
	return float64(ru.Maxrss) / 1024 // KB on Linux and the BSDs
}
