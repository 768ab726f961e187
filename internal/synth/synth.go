// Package synth provides the project's synthetic benchmark agents to tests
// and benchmarks: files written by bench/gen-agent.py (the generator every
// scale figure in this project uses, so numbers stay comparable). It also
// copies committed fixture trees for tests that add to them (CopyDir).
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

// CopyDir copies the tree at src (a committed fixture) into a new
// temporary directory and returns it, so that a test can add files the
// repository does not hold (binaries) or change it without touching src.
func CopyDir(tb testing.TB, src string) string {
	tb.Helper()
	dst := tb.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		tb.Fatalf("synth: copying %s: %v", src, err)
	}
	return dst
}
