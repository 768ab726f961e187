package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// liveHWMMB returns the peak resident set size so far (VmHWM) of the live
// process pid in MB, and whether it could be read. Unlike the rusage of
// an exited child, it counts only the process's own image: Linux carries
// the parent's peak across fork and exec into the child's ru_maxrss, so a
// server spawned by a client holding 100 MB of answers reports 100 MB.
func liveHWMMB(pid int) (float64, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	return parseVmHWM(data)
}

// liveRSSMB returns the resident set size now (VmRSS) of the live
// process pid in MB, and whether it could be read.
func liveRSSMB(pid int) (float64, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	return parseStatusMB(data, "VmRSS:")
}

// parseVmHWM reads the VmHWM line of a /proc/PID/status file.
func parseVmHWM(status []byte) (float64, bool) { return parseStatusMB(status, "VmHWM:") }

// parseStatusMB reads a "Key: N kB" line of a /proc/PID/status file in MB.
func parseStatusMB(status []byte, key string) (float64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) >= 2 && string(f[0]) == key {
			kb, err := strconv.ParseFloat(string(f[1]), 64)
			return kb / 1024, err == nil
		}
	}
	return 0, false
}
