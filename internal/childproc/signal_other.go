//go:build !unix

package childproc

import (
	"os"
	"os/exec"
)

// forwardSignals passes an interrupt on to the command Run runs; process
// groups are a Unix matter (see signal_unix.go).
func forwardSignals(cmd *exec.Cmd, terminal bool) ([]os.Signal, func(os.Signal)) {
	if terminal {
		return nil, func(os.Signal) {}
	}
	return []os.Signal{os.Interrupt}, func(s os.Signal) { cmd.Process.Signal(s) }
}
