//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFIFORefused: no command opens a named pipe (which would block until
// a writer came, forever); validate skips one among other files.
func TestFIFORefused(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe.3md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"parse", fifo}, 2, "is not a regular file (a named pipe)"},
		{[]string{"parse", "--json", fifo}, 2, `"error": "io"`},
		{[]string{"validate", fifo}, 2, "skipping " + fifo + ": not a regular file (a named pipe)"},
		{[]string{"validate", devtools, fifo}, 0, "skipping " + fifo},
		{[]string{"skills", fifo}, 2, "is not a regular file"},
		{[]string{"get", fifo, "x"}, 2, "is not a regular file"},
		{[]string{"route", fifo, "x"}, 2, "is not a regular file"},
		{[]string{"export", fifo}, 2, "is not a regular file"},
		{[]string{"index", fifo}, 2, "is not a regular file"},
		{[]string{"skills", fifo}, 2, "or - to read one from standard input"},
		// mcp and selftest refuse "-": their refusal must not offer it.
		{[]string{"mcp", fifo}, 2, "is not a regular file (a named pipe); pass the path of an agent file (save a stream to a file first)"},
		{[]string{"selftest", fifo}, 2, "is not a regular file (a named pipe); pass the path of an agent file (save a stream to a file first)"},
		// --ca-file is read as the token file is: never a plain open.
		{[]string{"sync", "--ca-file", fifo, "https://127.0.0.1:1/mcp", "dir"}, 2, "--ca-file " + fifo + " is a named pipe, not a regular file"},
		{[]string{"selftest", "--url", "https://127.0.0.1:1/mcp", "--ca-file", fifo}, 2, "--ca-file " + fifo + " is a named pipe, not a regular file"},
		{[]string{"sync", "--token-file", fifo, "https://127.0.0.1:1/mcp", "dir"}, 2, "is a named pipe, not a regular file"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			type result struct {
				code     int
				out, err string
			}
			done := make(chan result, 1)
			go func() {
				code, out, errOut := cli(t, tt.args...)
				done <- result{code, out, errOut}
			}()
			select {
			case r := <-done:
				if r.code != tt.code || !strings.Contains(r.out+r.err, tt.want) {
					t.Fatalf("exit %d (want %d)\nstdout: %s\nstderr: %s\nwant %q", r.code, tt.code, r.out, r.err, tt.want)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("blocked on the FIFO")
			}
		})
	}
}

// TestOpenRegularDoesNotBlock: the open itself never waits for a writer,
// so a path swapped for a FIFO after a check is refused too.
func TestOpenRegularDoesNotBlock(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe.3md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		f, err := openRegular(fifo)
		if f != nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "named pipe") {
			t.Fatalf("openRegular(fifo) = %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("openRegular blocked on a FIFO")
	}
}
