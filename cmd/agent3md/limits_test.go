package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agent3md/agent3md/internal/httpd"
)

// cliIn runs one command line in-process with stdin.
func cliIn(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// TestLimitFlagsRange: every limit flag refuses -1, 0 and its ceiling + 1
// with the valid range, and accepts 1 and its ceiling.
func TestLimitFlagsRange(t *testing.T) {
	a := &app{}
	for _, l := range a.limits.Bounds() {
		for _, cmd := range []string{"parse", "skills", "mcp"} {
			for _, v := range []int64{-1, 0, l.Ceiling + 1} {
				t.Run(fmt.Sprintf("%s/%s=%d", cmd, l.Name, v), func(t *testing.T) {
					code, _, errOut := cli(t, cmd, fmt.Sprintf("--%s=%d", l.Name, v), devtools)
					want := fmt.Sprintf("--%s %d is out of range: use a value from 1 to %d", l.Name, v, l.Ceiling)
					if code != exitUsage || !strings.Contains(errOut, want) {
						t.Fatalf("exit %d, stderr %q; want exit 2 and %q", code, errOut, want)
					}
				})
			}
		}
		t.Run("parse/"+l.Name+"=ceiling", func(t *testing.T) {
			if code, _, errOut := cli(t, "parse", fmt.Sprintf("--%s=%d", l.Name, l.Ceiling), devtools); code != 0 {
				t.Fatalf("the ceiling is refused: exit %d: %s", code, errOut)
			}
		})
	}
	for _, v := range []string{"0", "-1", fmt.Sprint(maxMessageCeiling + 1)} {
		code, _, errOut := cli(t, "mcp", "--max-message-bytes="+v, devtools)
		if code != exitUsage || !strings.Contains(errOut, "--max-message-bytes "+v+" is out of range") {
			t.Errorf("mcp --max-message-bytes=%s: exit %d, stderr %q", v, code, errOut)
		}
	}
}

// TestServeFlagsRange: serve's own bounds refuse 0, a negative value and
// one past their ceiling (internal/httpd would silently take the first
// two for its default) before anything is opened or bound.
func TestServeFlagsRange(t *testing.T) {
	for _, tt := range []struct{ flag, want string }{
		{"--max-body-bytes=0", "--max-body-bytes 0 is out of range: use a value from 1 to"},
		{"--max-body-bytes=-5", "--max-body-bytes -5 is out of range"},
		{fmt.Sprintf("--max-body-bytes=%d", httpd.MaxBodyBytesCeiling+1), "is out of range"},
		{"--max-concurrent=0", "--max-concurrent 0 is out of range"},
		{"--max-streams=-1", "--max-streams -1 is out of range"},
		{fmt.Sprintf("--max-streams=%d", httpd.MaxStreamsCeiling+1), "is out of range"},
		{"--write-timeout=0", "--write-timeout 0s is out of range: use a positive duration"},
		{"--shutdown-timeout=-1s", "--shutdown-timeout -1s is out of range"},
		{"--max-answer-bytes=0", "--max-answer-bytes 0 is out of range: use a value from 1024"},
		{"--max-answer-bytes=2GiB", "--max-answer-bytes 2147483648 is out of range"},
		{"--max-body-bytes=4Mx", "is not a size: write digits with an optional unit"},
		{"--max-answer-memory=0", "--max-answer-memory 0 is out of range"},
		{"--max-answer-memory=1MiB", "--max-answer-memory 1048576 is less than --max-answer-bytes 4194304"},
		{"--memory-limit=lots", `--memory-limit "lots": use auto, off, or a size such as 512MiB`},
	} {
		t.Run(tt.flag, func(t *testing.T) {
			// A server that starts anyway is stopped, not waited on forever.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var out, errb bytes.Buffer
			code := run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--no-watch", tt.flag, devtools}, strings.NewReader(""), &out, &errb)
			if errOut := errb.String(); code != exitUsage || !strings.Contains(errOut, tt.want) {
				t.Fatalf("exit %d, stderr %q; want exit 2 and %q", code, errOut, tt.want)
			}
		})
	}
}

// TestLimitErrorNamesFlag: a file breaking the line bound names
// --max-line-bytes on every command, mcp included, and mcp still takes
// its old spelling (with a warning on stderr, nothing on stdout).
func TestLimitErrorNamesFlag(t *testing.T) {
	const want = "(raise it with --max-line-bytes)"
	for _, args := range [][]string{
		{"parse", "--max-line-bytes", "10", devtools},
		{"parse", "--json", "--max-line-bytes", "10", devtools},
		{"validate", "--max-line-bytes", "10", devtools},
		{"skills", "--max-line-bytes", "10", devtools},
		{"route", "--no-cache", "--max-line-bytes", "10", devtools, "x"},
		{"export", "--max-line-bytes", "10", devtools},
		{"mcp", "--max-line-bytes", "10", devtools},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, errOut := cli(t, args...)
			if code != exitInvalid || !strings.Contains(out+errOut, want) || strings.Contains(out+errOut, "file-line") {
				t.Fatalf("exit %d; want 1 and %q\nstdout: %s\nstderr: %s", code, want, out, errOut)
			}
		})
	}
	code, out, errOut := cli(t, "mcp", "--max-file-line-bytes", "10", devtools)
	if code != exitInvalid || out != "" || !strings.Contains(errOut, "--max-file-line-bytes is deprecated") || !strings.Contains(errOut, want) {
		t.Fatalf("old spelling: exit %d\nstdout: %q\nstderr: %s", code, out, errOut)
	}
}

// TestHelpGroupsLimits: a command's help names the eight limits in one
// line pointing at 'help limits', which lists each with its default and
// ceiling; the flags are still taken.
func TestHelpGroupsLimits(t *testing.T) {
	a := &app{}
	for _, cmd := range []string{"parse", "route", "mcp", "export"} {
		_, out, _ := cli(t, cmd, "--help")
		if !strings.Contains(out, "Agent file limits: the --max-* flags of 'agent3md help limits' are taken here too.") {
			t.Fatalf("%s --help has no line pointing at help limits:\n%s", cmd, out)
		}
		for _, l := range a.limits.Bounds() {
			if strings.Contains(out, "--"+l.Name+" ") {
				t.Errorf("%s --help lists --%s; only 'help limits' does", cmd, l.Name)
			}
		}
		if !strings.Contains(out, "--help") {
			t.Errorf("%s --help lost its own flags:\n%s", cmd, out)
		}
	}
	if code, _, errOut := cli(t, "validate", "--max-planes", "5", "../../examples/devtools.3md"); code == exitUsage && strings.Contains(errOut, "unknown flag") {
		t.Errorf("a limit flag is no longer taken: %s", errOut)
	}
	code, out, _ := cli(t, "help", "limits")
	if code != 0 {
		t.Fatalf("help limits: exit %d", code)
	}
	for _, l := range a.limits.Bounds() {
		if !strings.Contains(out, fmt.Sprintf("--%s", l.Name)) || !strings.Contains(out, fmt.Sprint(l.Ceiling)) {
			t.Errorf("help limits lacks --%s or its ceiling %d", l.Name, l.Ceiling)
		}
	}
}

// TestByteLimitsTakeUnits: a byte bound reads units as --cache-max-size
// does, a malformed size says how to write one, and a negative one is
// still refused with the valid range.
func TestByteLimitsTakeUnits(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"validate", "--max-bytes", "2KiB", "../../examples/devtools.3md"}, 1, "input size exceeds the limit of 2048"},
		{[]string{"validate", "--max-line-bytes", "1MiB", "--max-bytes", "512MiB", "../../examples/devtools.3md"}, 0, "ok (0 errors, 0 warnings)"},
		{[]string{"validate", "--max-attribute-bytes", "64KB", "../../examples/devtools.3md"}, 0, "ok"},
		{[]string{"validate", "--max-bytes", "1Kx", "../../examples/devtools.3md"}, 2, "write digits with an optional unit"},
		{[]string{"validate", "--max-bytes", "-1", "../../examples/devtools.3md"}, 2, "--max-bytes -1 is out of range: use a value from 1"},
		{[]string{"validate", "--max-description-bytes", "0B", "../../examples/devtools.3md"}, 2, "--max-description-bytes 0 is out of range"},
	} {
		var out, errb strings.Builder
		code := run(context.Background(), tt.args, strings.NewReader(""), &out, &errb)
		if code != tt.code || !strings.Contains(out.String()+errb.String(), tt.want) {
			t.Errorf("%v: exit %d, want %d containing %q\nstdout: %.300s\nstderr: %.300s", tt.args, code, tt.code, tt.want, out.String(), errb.String())
		}
	}
}
