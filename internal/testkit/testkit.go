package testkit

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// SyncBuffer is a bytes.Buffer a logger or a command may write while the
// test reads it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// WriteFile writes data to path (mode 0644), making its directories
// first; any failure ends the test.
func WriteFile(t testing.TB, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Tree lists the files below dir by their path relative to it, with
// their contents, and each symbolic link as "-> target", for comparing a
// directory's states. Directories appear only through what they hold; a
// dir that does not exist, or an entry removed during the walk, is left
// out (tests compare trees another goroutine may be changing). Any other
// failure ends the test.
func Tree(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil
		case err != nil:
			return err
		case p == dir:
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if d.Type()&os.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			if err == nil {
				out[rel] = "-> " + target
			}
			return ignoreGone(err)
		}
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			if err == nil {
				out[rel] = string(b)
			}
			return ignoreGone(err)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading the tree below %s: %v", dir, err)
	}
	return out
}

// ignoreGone is err unless it says the path no longer exists.
func ignoreGone(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// AgentFiles returns the repository's agent files below root (the
// module's root as the calling test sees it, e.g. "../.."): the bundled
// examples and every agent of agentfile's test data. Fewer than min ends
// the test, since a wrong root would otherwise test nothing.
func AgentFiles(t testing.TB, root string, min int) []string {
	t.Helper()
	var out []string
	for _, pattern := range []string{"examples/*.3md", "agentfile/testdata/*/*.3md", "agentfile/testdata/*/*/*.3md"} {
		m, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	if len(out) < min {
		t.Fatalf("found %d agent files below %s, want at least %d: is %s the module's root as this test sees it?", len(out), root, min, root)
	}
	return out
}

// OpenFDs counts this process's open descriptors; the test skips where
// /proc/self/fd is not there to count them.
func OpenFDs(t testing.TB) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count descriptors: %v", err)
	}
	return len(ents)
}
