package childproc

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// Run starts cmd, its standard streams already set, passes signals on to
// it while it runs (see forwardSignals: terminal says whether the
// wrapper's stdin is a terminal) and waits for it. code is the command's
// exit status as a shell gives it: its own, or 128+N when signal N ended
// it. err is set only when the command could not be run (nor waited
// for); code is then 127 for a program not found, else 126.
func Run(cmd *exec.Cmd, terminal bool) (code int, err error) {
	forward, pass := forwardSignals(cmd, terminal)
	sigs := make(chan os.Signal, 4)
	if len(forward) > 0 {
		signal.Notify(sigs, forward...)
		defer signal.Stop(sigs)
	}
	err = cmd.Start()
	if err == nil {
		done := make(chan struct{})
		go func() {
			for {
				select {
				case s := <-sigs:
					pass(s)
				case <-done:
					return
				}
			}
		}()
		err = cmd.Wait()
		close(done)
		if err == nil {
			return 0, nil
		}
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return ee.ExitCode(), nil
	}
	// It never started (or Wait itself failed): the shells' codes for
	// "not found" and "cannot run".
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
		return 127, err
	}
	return 126, err
}
