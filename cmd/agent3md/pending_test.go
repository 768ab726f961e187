package main

import (
	"strings"
	"testing"
)

// TestMCPPendingBytesFlag: a pending budget that cannot hold one request
// is refused up front with the flag, the value and the default.
func TestMCPPendingBytesFlag(t *testing.T) {
	for _, v := range []string{"0", "-1"} {
		code, _, stderr := cli(t, "mcp", "--max-pending-bytes", v, devtools)
		if code != 2 || !strings.Contains(stderr, "--max-pending-bytes "+v) || !strings.Contains(stderr, "64 MiB") {
			t.Errorf("--max-pending-bytes %s: exit %d, stderr %q; want 2 naming the flag and the default", v, code, stderr)
		}
	}
}

// TestMCPBoundFlags checks the ranges of mcp's other bounds. 0 or a
// negative --max-in-flight or --max-answer-bytes was taken silently as
// the default, and their help stated no range.
func TestMCPBoundFlags(t *testing.T) {
	for _, c := range []struct {
		flag, value, want string
	}{
		{"--max-in-flight", "0", "--max-in-flight 0 is out of range: use a value from 1 to 65536 (default 64)"},
		{"--max-in-flight", "-3", "use a value from 1 to 65536"},
		{"--max-in-flight", "70000", "use a value from 1 to 65536"},
		{"--max-answer-bytes", "0", "--max-answer-bytes 0 is out of range: use a value from 1024 to 1073741824 (default 4194304, 4 MiB)"},
		{"--max-answer-bytes", "10", "use a value from 1024"},
		{"--max-message-bytes", "0", "use a value from 1 to 1073741824"},
	} {
		code, _, stderr := cli(t, "mcp", c.flag, c.value, devtools)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("mcp %s %s: exit %d, stderr %q; want %d with %q", c.flag, c.value, code, stderr, exitUsage, c.want)
		}
	}
	_, out, _ := cli(t, "mcp", "--help")
	for _, want := range []string{"(1 to 65536) (default 64)", "(1024 to 1073741824; units B, KiB, MiB, GiB) (default 4194304)",
		"(1 to 1099511627776; units B, KiB, MiB, GiB) (default 67108864)", "(1 to 1073741824; units B, KiB, MiB, GiB) (default 4194304)"} {
		if !strings.Contains(out, want) {
			t.Errorf("mcp --help does not state %q", want)
		}
	}
}
