//go:build linux

package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agent3md/agent3md/internal/testkit"
)

// syncBuffer is a buffer a logger or command writes while the test
// reads it (testkit.SyncBuffer).
type syncBuffer = testkit.SyncBuffer

// TestMCPWaitHintOnTerminal: mcp with a terminal on stdin says once, on
// stderr, that it waits for an MCP client and how to try the agent; with
// a pipe on stdin (a host) it says nothing of the kind.
func TestMCPWaitHintOnTerminal(t *testing.T) {
	master, tty := openPTY(t)
	var errOut syncBuffer
	var out bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"mcp", "--no-watch", "--cache-dir", t.TempDir(), "../../examples/devtools.3md"}, tty, &out, &errOut)
	}()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(errOut.String(), "agent3md selftest") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	master.Close() // stdin ends
	<-done
	got := errOut.String()
	if strings.Count(got, "waiting for an MCP client on stdin") != 1 || !strings.Contains(got, "agent3md selftest ../../examples/devtools.3md") {
		t.Fatalf("no single hint on stderr:\n%s", got)
	}
	if out.Len() != 0 {
		t.Errorf("the hint reached stdout, the protocol stream: %q", out.String())
	}
	code, _, piped := cli(t, "mcp", "--no-watch", "--cache-dir", t.TempDir(), "../../examples/devtools.3md")
	if code != 0 || strings.Contains(piped, "waiting for an MCP client") {
		t.Errorf("hint with stdin a pipe (exit %d):\n%s", code, piped)
	}
}
