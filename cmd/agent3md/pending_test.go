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
