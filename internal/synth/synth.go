// Package synth provides the project's synthetic benchmark agents to tests
// and benchmarks: files written by bench/gen-agent.py (the generator every
// scale figure in this project uses, so numbers stay comparable).
//
// Files are generated once per size into a shared temporary directory and
// reused by later runs. A machine without python3 skips the caller.
package synth

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Path returns the path of a synthetic agent with n skills, generating it on
// first use. It skips tb when python3 is not available.
func Path(tb testing.TB, n int) string {
	tb.Helper()
	dir := filepath.Join(os.TempDir(), "agent3md-synth")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatalf("synth: %v", err)
	}
	out := filepath.Join(dir, fmt.Sprintf("agent-%d.3md", n))
	if st, err := os.Stat(out); err == nil && st.Size() > 0 {
		return out
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		tb.Skip("synth: python3 not found; cannot generate synthetic agents")
	}
	tmp, err := os.CreateTemp(dir, "gen-*.3md")
	if err != nil {
		tb.Fatalf("synth: %v", err)
	}
	tmp.Close()
	cmd := exec.Command(py, Generator(), fmt.Sprint(n), tmp.Name())
	if msg, err := cmd.CombinedOutput(); err != nil {
		os.Remove(tmp.Name())
		tb.Fatalf("synth: gen-agent.py %d: %v\n%s", n, err, msg)
	}
	// Rename is atomic, so concurrent test binaries never see a partial file.
	if err := os.Rename(tmp.Name(), out); err != nil {
		tb.Fatalf("synth: %v", err)
	}
	return out
}

// Generator returns the path of bench/gen-agent.py in this repository.
func Generator() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "bench", "gen-agent.py")
}
