//go:build unix

package childproc

import (
	"os"
	"os/exec"
	"syscall"
)

// forwardSignals returns the signals Run passes on to cmd, after
// preparing cmd (not yet started) to receive them, and the function that
// passes one on.
//
// With stdin not a terminal (a supervisor, a script, a CI job), the
// command gets a process group of its own and each signal goes to the
// whole group: a template run through sh -c is a shell with children,
// and a signal to the shell alone left them running once it died. With a
// terminal, the command stays in the terminal's foreground group, where
// it can read the terminal and where a Ctrl-C already reaches it and its
// children; a SIGTERM or SIGHUP sent to the wrapper goes to the command.
func forwardSignals(cmd *exec.Cmd, terminal bool) ([]os.Signal, func(os.Signal)) {
	sigs := []os.Signal{syscall.SIGTERM, syscall.SIGHUP}
	if terminal {
		return sigs, func(s os.Signal) { cmd.Process.Signal(s) }
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return append(sigs, os.Interrupt), func(s os.Signal) {
		if sig, ok := s.(syscall.Signal); ok {
			syscall.Kill(-cmd.Process.Pid, sig)
		}
	}
}
