//go:build unix

package filekind

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpen: a regular file opens; a directory, a named pipe with no
// writer (which a plain open would wait on forever) and a missing path
// do not, the first two as NotRegularErrors naming what they are.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.3md")
	os.WriteFile(file, []byte("x"), 0o644)
	f, err := Open(file)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	for path, kind := range map[string]string{dir: "a directory", fifo: "a named pipe"} {
		var nr *NotRegularError
		_, err := Open(path)
		if !errors.As(err, &nr) || !errors.Is(err, ErrNotRegular) || Of(nr.Mode) != kind || nr.Path != path {
			t.Errorf("Open(%s) = %v, want a NotRegularError for %s", path, err, kind)
		}
	}
	if _, err := Open(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}
