//go:build !unix

package main

import "os"

// peakRSSMB returns 0: this platform's rusage carries no peak RSS.
func peakRSSMB(*os.ProcessState) float64 { return 0 }
