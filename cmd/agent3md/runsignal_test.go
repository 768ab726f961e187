//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRunExecPassesSIGTERMOn stops `agent3md run --exec` the way a
// supervisor does, with SIGTERM, while the command it runs (a shell with
// a child of its own) is still working. The command must get the signal
// (its trap runs) and leave nothing behind. Before, the cancelled context
// SIGKILLed the outer shell alone: no trap ran and the inner shell and
// its sleep kept running, orphaned.
func TestRunExecPassesSIGTERMOn(t *testing.T) {
	bin := agent3mdBinary(t)
	dir := t.TempDir()
	agent := filepath.Join(dir, "wait.3md")
	// The inner shell records its child's pid, traps TERM and waits.
	tool := fmt.Sprintf(`sh -c 'trap \"echo trapped > %[1]s/trap; exit 3\" TERM; sleep 300 & echo $! > %[1]s/sleep.pid; wait'`, dir)
	src := "---\n3md: 1\ntitle: W\ntools: sh\n---\n@plane z=0 kind=identity\nid\n\n@plane z=1 label=wait triggers=\"wait\" tool=\"" + tool + "\"\nWaits.\n"
	if err := os.WriteFile(agent, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "--no-cache", "--exec", agent, "wait")
	cmd.Stdin = nil // not a terminal: the supervisor's case
	var stderr strings.Builder
	cmd.Stderr = &stderr
	// An orphan holding stderr open must not hold Wait for its 300 s.
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sleepPID := 0
	t.Cleanup(func() {
		cmd.Process.Kill()
		if sleepPID > 0 {
			syscall.Kill(sleepPID, syscall.SIGKILL)
		}
	})
	// Wait for the command to be running (a guard against a hang, not a
	// timing assertion).
	for deadline := time.Now().Add(60 * time.Second); sleepPID == 0; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(filepath.Join(dir, "sleep.pid")); err == nil && strings.HasSuffix(string(b), "\n") {
			sleepPID, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		if time.Now().After(deadline) {
			t.Fatalf("the command never started:\n%s", stderr.String())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() == 0 {
		t.Errorf("run --exec ended with %v after SIGTERM; want the command's non-zero status", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "trap")); err != nil || strings.TrimSpace(string(b)) != "trapped" {
		t.Errorf("the command never got SIGTERM (no trap ran): %v\n%s", err, stderr.String())
	}
	for deadline := time.Now().Add(30 * time.Second); running(sleepPID); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the command's child (pid %d) outlived run --exec", sleepPID)
		}
	}
}

// running reports whether process pid exists and has not exited. A
// process that exited after its parent is reparented, and stays a
// zombie until the new parent reaps it; a container's init may never
// do that, so where /proc tells (Linux), a zombie counts as gone.
func running(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc: kill's answer stands
	}
	// The state follows the command name's closing parenthesis.
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}
