//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agent3md/agent3md/internal/synth"
)

// openPTY returns a pseudo-terminal pair: what is written to tty can be
// read from master, and term.IsTerminal(tty) is true.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlocking the pty: %v", err)
	}
	n, err := unix.IoctlGetUint32(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("naming the pty: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("opening the pty: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// TestProgressOnTerminal: a cold route on a large agent draws the index
// progress bar when stderr is a terminal.
func TestProgressOnTerminal(t *testing.T) {
	agent := synth.Path(t, 3000)
	master, tty := openPTY(t)
	// A missing bar must fail the test, not hang it.
	master.SetReadDeadline(time.Now().Add(30 * time.Second))
	got := make(chan string, 1)
	go func() {
		// Read until the test closes the tty: the pty buffer is a few KB,
		// and an unread bar would block the writer.
		var b bytes.Buffer
		buf := make([]byte, 4096)
		for !strings.Contains(b.String(), "100%") {
			n, err := master.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		got <- b.String()
	}()
	var out bytes.Buffer
	code := run(context.Background(), []string{"route", "--cache-dir", t.TempDir(), agent, "search the code"}, strings.NewReader(""), &out, tty)
	if code != 0 {
		t.Fatalf("route: exit %d", code)
	}
	if s := <-got; !strings.Contains(s, "indexing [") || !strings.Contains(s, "100%") {
		t.Fatalf("no progress bar on the terminal: %q", s)
	}
}
