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

// readUntil reads the pty's master side until what it has read holds
// marker, or the read fails (its deadline passes), and returns it.
func readUntil(master *os.File, marker string) string {
	var b bytes.Buffer
	buf := make([]byte, 4096)
	for !strings.Contains(b.String(), marker) {
		n, err := master.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return b.String()
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
		got <- readUntil(master, "100%")
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

// TestTerminalGetsNoEscapes: an agent file whose description carries an
// escape sequence (a window title, here) cannot send it to the user's
// terminal through skills, nor through an error naming a skill; a pipe
// still gets the body's bytes as they are.
func TestTerminalGetsNoEscapes(t *testing.T) {
	dir := t.TempDir()
	agent := dir + "/evil.3md"
	src := "---\n3md: 1\ntitle: Evil\n---\n@plane z=0 kind=identity\nI am.\n\n" +
		"@plane z=1 label=\"search\" triggers=\"search\"\nUse this to search \x1b]0;pwned\x07 the code.\n"
	if err := os.WriteFile(agent, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	master, tty := openPTY(t)
	master.SetReadDeadline(time.Now().Add(30 * time.Second))
	for _, args := range [][]string{{"skills", agent}, {"get", agent, "sear\x1b[2Jch"}} {
		code := run(context.Background(), args, strings.NewReader(""), tty, tty)
		if code != 0 && args[0] == "skills" {
			t.Fatalf("%v: exit %d", args, code)
		}
	}
	tty.Write([]byte("END\n"))
	got := readUntil(master, "END")
	if strings.ContainsRune(got, 0x1b) || strings.ContainsRune(got, 0x07) {
		t.Errorf("a control character reached the terminal: %q", got)
	}
	if !strings.Contains(got, `\x1b]0;pwned\x07`) || !strings.Contains(got, `sear\x1b[2Jch`) {
		t.Errorf("the escaped sequences are not shown: %q", got)
	}
	var out bytes.Buffer
	if code := run(context.Background(), []string{"get", agent, "search"}, strings.NewReader(""), &out, &out); code != 0 || !strings.Contains(out.String(), "\x1b]0;pwned\x07") {
		t.Errorf("get into a pipe: exit %d, %q; want the body's bytes unchanged", code, out.String())
	}
}

// TestCostPromptShowsCommand: at a terminal, run --exec on a skill tagged
// cost= shows the command a yes would run before it asks, with a value's
// escape sequence and carriage return shown as text, not sent; a "n"
// runs nothing.
func TestCostPromptShowsCommand(t *testing.T) {
	dir := t.TempDir()
	agent := dir + "/guard.3md"
	if err := os.WriteFile(agent, []byte(guardAgent), 0o644); err != nil {
		t.Fatal(err)
	}
	log := dir + "/log"
	t.Setenv("FAKE_LOG", log)
	master, tty := openPTY(t)
	master.SetReadDeadline(time.Now().Add(30 * time.Second))
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), []string{"run", "--no-cache", "--exec", agent, "drop the table", "t=users\x1b[2K\rsafe"}, tty, tty, tty)
	}()
	got := readUntil(master, "Run it? [y/N] ")
	master.Write([]byte("n\n"))
	if code := <-done; code != exitRefused {
		t.Errorf("exit %d after a no, want %d", code, exitRefused)
	}
	want := "drop-table is tagged cost=prod-write. It would run:\r\n  $ fake drop 'users\\x1b[2K\\x0dsafe'\r\n"
	if !strings.Contains(got, want) || strings.ContainsRune(got, 0x1b) {
		t.Errorf("the terminal shows %q\nwant it to hold %q and no escape byte", got, want)
	}
	if _, err := os.Stat(log); err == nil {
		t.Error("the command ran after a no")
	}
}
