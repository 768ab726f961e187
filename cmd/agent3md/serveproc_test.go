package main

import (
	"errors"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Helpers of the tests that run `agent3md serve` as a process to its end
// or wait for what it logs.

// runServeToExit runs `agent3md serve ARGS...` and waits at most d for it
// to exit on its own; it returns the exit code and stderr, and fails the
// test (killing the process) when it is still running.
func runServeToExit(t *testing.T, d time.Duration, args ...string) (int, string) {
	t.Helper()
	bin := agent3mdBinary(t)
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--no-cache"}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), stderr.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, stderr.String()
	case <-time.After(d):
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
			t.Fatalf("agent3md serve %s was still running after %s (it stopped on SIGTERM)", strings.Join(args, " "), d)
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Fatalf("agent3md serve %s was still running after %s, and ignored SIGTERM for 10s more", strings.Join(args, " "), d)
		}
	}
	return 0, ""
}

// waitLog waits at most d for the served process's log to hold want n
// times (it polls: the process writes it on its own schedule).
func waitLog(t *testing.T, s *served, want string, n int, d time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(d); strings.Count(s.log(), want) < n; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q (x%d) in the log within %s:\n%s", want, n, d, s.log())
		}
	}
}

// tokenStatus is the status of a tools/list sent with tok.
func tokenStatus(t *testing.T, url, tok string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// writeByRename replaces path's content the way editors that save by
// rename do, so a watcher sees one change.
func writeByRename(t *testing.T, path, text string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}
