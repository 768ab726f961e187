//go:build !linux

package main

// liveHWMMB reports that no live peak is available: only Linux's /proc
// has one. The rusage of the exited process is used instead.
func liveHWMMB(int) (float64, bool) { return 0, false }

// parseVmHWM is Linux-only; elsewhere nothing parses.
func parseVmHWM([]byte) (float64, bool) { return 0, false }

// liveRSSMB reports that no live RSS is available off Linux.
func liveRSSMB(int) (float64, bool) { return 0, false }
