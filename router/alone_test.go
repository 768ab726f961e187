package router

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// aloneEnv marks the child process a test runs in by runAlone: its value
// is the test's name.
const aloneEnv = "AGENT3MD_ROUTER_TEST_ALONE"

// runAlone runs the calling test again, by itself, in a child process of
// the test binary, and reports whether the caller is that child (and so
// measures). A test that reads process-wide figures (the heap, the bytes
// allocated) measures there: in the package's binary, goroutines earlier
// tests left running allocate and free memory of their own while it
// measures, and sync.Pools they filled empty into the measurement. The
// parent fails when the child fails or did not run the test.
func runAlone(t *testing.T) (child bool) {
	t.Helper()
	if os.Getenv(aloneEnv) == t.Name() {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), aloneEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	t.Logf("in a child process of its own:\n%s", out)
	if err != nil {
		t.Fatalf("%s, run alone in a child process: %v", t.Name(), err)
	}
	if !strings.Contains(string(out), "--- PASS: "+t.Name()+" ") {
		t.Fatalf("the child process did not run %s", t.Name())
	}
	return false
}
