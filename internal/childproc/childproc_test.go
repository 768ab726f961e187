//go:build unix

package childproc

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestRunStatus: the command's own status comes back as a shell gives
// it: its exit code, 128+N for a death by signal N, 127 for a program
// that is not there and 126 for a file that cannot run, the last two
// with the reason.
func TestRunStatus(t *testing.T) {
	notExec := filepath.Join(t.TempDir(), "script")
	os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644)
	for _, tt := range []struct {
		name    string
		cmd     *exec.Cmd
		code    int
		started bool
	}{
		{"success", exec.Command("sh", "-c", "exit 0"), 0, true},
		{"own status", exec.Command("sh", "-c", "exit 3"), 3, true},
		{"killed by a signal", exec.Command("sh", "-c", "kill -TERM $$"), 128 + int(syscall.SIGTERM), true},
		{"not found", exec.Command("agent3md-no-such-program"), 127, false},
		{"not executable", exec.Command(notExec), 126, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, err := Run(tt.cmd, false)
			if code != tt.code || (err == nil) != tt.started {
				t.Errorf("Run = %d, %v; want %d (started %v)", code, err, tt.code, tt.started)
			}
		})
	}
}

// TestRunPassesSIGTERMToTheGroup: off a terminal, a SIGTERM sent to the
// wrapper while the command runs reaches the command's whole process
// group: the shell's trap runs (its status is the trap's) instead of the
// wrapper dying and leaving the shell and its child behind.
func TestRunPassesSIGTERMToTheGroup(t *testing.T) {
	cmd := exec.Command("sh", "-c", `trap 'exit 7' TERM; echo ready; while :; do sleep 1; done`)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	sent := make(chan error, 1)
	go func() {
		// Run has asked for the signal before the command started, so
		// once the command says it is ready the signal is caught.
		line, err := bufio.NewReader(out).ReadString('\n')
		if err == nil && line != "ready\n" {
			err = errors.New("the command said " + line)
		}
		if err == nil {
			err = syscall.Kill(os.Getpid(), syscall.SIGTERM)
		}
		sent <- err
	}()
	code, err := Run(cmd, false)
	if serr := <-sent; serr != nil {
		t.Fatal(serr)
	}
	if err != nil || code != 7 {
		t.Errorf("Run = %d, %v; want the trap's status 7", code, err)
	}
	if cmd.SysProcAttr == nil || !cmd.SysProcAttr.Setpgid {
		t.Error("off a terminal the command must get a process group of its own")
	}
}
