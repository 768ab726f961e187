//go:build unix

package main

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The tests of issue 23's B5 against the real binary and real signals: a
// named pipe (or another file that is not a regular one) as a credential
// file, at start and on SIGHUP, and SIGINT/SIGTERM while serve drains.

// TestServeCredentialFileNotRegular: a named pipe, a directory or a device
// as --token-file, --tls-cert or --tls-key stops the start at once (exit
// 2) with the flag, the path and what it is. Before, a pipe blocked the
// start for good, deaf to SIGTERM and SIGINT.
func TestServeCredentialFileNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	pki := newTestPKI(t, "127.0.0.1")
	tokens := writeTokenFile(t, "alpha-0123456789abcdef")
	cases := []struct {
		flag, path, what string
		args             []string
	}{
		{"--token-file", fifo, "a named pipe", []string{"--token-file", fifo}},
		{"--tls-cert", fifo, "a named pipe", []string{"--tls-cert", fifo, "--tls-key", pki.keyFile}},
		{"--tls-key", fifo, "a named pipe", []string{"--tls-cert", pki.certFile, "--tls-key", fifo}},
		{"--token-file", dir, "a directory", []string{"--token-file", dir}},
		{"--tls-key", "/dev/zero", "a device", []string{"--token-file", tokens, "--tls-cert", pki.certFile, "--tls-key", "/dev/zero"}},
	}
	for _, tt := range cases {
		t.Run(tt.flag+" "+tt.what, func(t *testing.T) {
			code, stderr := runServeToExit(t, 30*time.Second, append(tt.args, devtools)...)
			want := fmt.Sprintf("agent3md: %s %s is %s, not a regular file: give the path of a regular file", tt.flag, tt.path, tt.what)
			if code != exitUsage || !strings.Contains(stderr, want) {
				t.Fatalf("exit %d (want %d), stderr:\n%s\nwant %q", code, exitUsage, stderr, want)
			}
		})
	}
}

// TestServeReloadSurvivesFIFO: a named pipe put in place of the token file
// before a SIGHUP fails that reload, which is logged while the old token
// keeps working; the next SIGHUP with a good file brings the new token
// in. Before, the reload blocked on the pipe for good: nothing was
// logged, and every later SIGHUP queued behind it, so the new token was
// never accepted.
func TestServeReloadSurvivesFIFO(t *testing.T) {
	const tokA, tokB = "alpha-0123456789abcdef", "bravo-0123456789abcdef"
	file := writeTokenFile(t, tokA)
	s := startServe(t, "--token-file", file, devtools)
	url := "http://" + s.addr + "/mcp"
	os.Remove(file)
	if err := syscall.Mkfifo(file, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	s.cmd.Process.Signal(syscall.SIGHUP)
	waitLog(t, s, `msg="token reload failed; keeping the tokens in use" err="token file `+file+` is a named pipe, not a regular file`, 1, 20*time.Second)
	if got := tokenStatus(t, url, tokA); got != http.StatusOK {
		t.Fatalf("old token after the failed reload: %d, want 200", got)
	}
	os.Remove(file)
	if err := os.WriteFile(file, []byte(tokB+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s.cmd.Process.Signal(syscall.SIGHUP)
	waitLog(t, s, `msg="tokens reloaded" tokens=1`, 1, 20*time.Second)
	if a, b := tokenStatus(t, url, tokA), tokenStatus(t, url, tokB); a != http.StatusUnauthorized || b != http.StatusOK {
		t.Fatalf("after the good reload: old token %d (want 401), new token %d (want 200)", a, b)
	}
}

// TestServeSecondSignalStops: while serve drains (a request still
// running, here a client trickling its body, and a long
// --shutdown-timeout), a second SIGTERM or SIGINT ends it at once, with a
// log line and a non-zero status. Before, further signals were ignored
// until the request finished or the timeout passed.
func TestServeSecondSignalStops(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			s := startServe(t, "--shutdown-timeout", "1h", devtools)
			conn, err := net.Dial("tcp", s.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			// A body that never comes whole: the request is in flight for
			// up to the 30 s body timeout. The server's 100 Continue says
			// its handler is reading the body, so the signal cannot come
			// before the connection is accepted.
			fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\nExpect: 100-continue\r\n\r\n")
			conn.SetReadDeadline(time.Now().Add(20 * time.Second))
			if line, err := bufio.NewReader(conn).ReadString('\n'); err != nil || !strings.Contains(line, "100 Continue") {
				t.Fatalf("no 100 Continue: %q, %v", line, err)
			}
			fmt.Fprint(conn, "{")
			s.cmd.Process.Signal(sig)
			waitLog(t, s, `msg="shutting down"`, 1, 20*time.Second)
			select {
			case <-s.done:
				t.Fatalf("serve exited on the first signal with a request in flight and a 1h --shutdown-timeout:\n%s", s.log())
			default:
			}
			s.cmd.Process.Signal(sig)
			select {
			case <-s.done:
			case <-time.After(15 * time.Second):
				t.Fatalf("serve still running 15s after a second %s:\n%s", sig, s.log())
			}
			var ee *exec.ExitError
			if !errors.As(s.err, &ee) || ee.ExitCode() != exitUsage {
				t.Errorf("exit %v after a second signal, want status %d", s.err, exitUsage)
			}
			if !strings.Contains(s.log(), "second signal: stopping at once") {
				t.Errorf("no log line for the second signal:\n%s", s.log())
			}
			s.err = nil // the cleanup's check expects a clean exit
		})
	}
}
