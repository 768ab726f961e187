package filekind

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteNew: a new path gets the bytes; an existing file, a link (to a
// file or to nothing) and a path under a missing directory are refused
// with the errors callers word, and nothing is written through the link.
func TestWriteNew(t *testing.T) {
	dir := t.TempDir()
	fresh := filepath.Join(dir, "new.3md")
	if err := WriteNew(fresh, []byte("hello\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(fresh); string(b) != "hello\n" {
		t.Errorf("new file holds %q", b)
	}
	if err := WriteNew(fresh, []byte("other\n")); !errors.Is(err, fs.ErrExist) {
		t.Errorf("over an existing file: %v, want fs.ErrExist", err)
	}
	if b, _ := os.ReadFile(fresh); string(b) != "hello\n" {
		t.Errorf("an existing file was changed to %q", b)
	}
	target := filepath.Join(dir, "target")
	for name, to := range map[string]string{"link": fresh, "dangling": target} {
		link := filepath.Join(dir, name)
		if err := os.Symlink(to, link); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
		if err := WriteNew(link, []byte("through\n")); !errors.Is(err, fs.ErrExist) {
			t.Errorf("over the %s link: %v, want fs.ErrExist", name, err)
		}
	}
	if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a dangling link's target was created: %v", err)
	}
	if err := WriteNew(filepath.Join(dir, "missing", "a.3md"), nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("under a missing directory: %v, want fs.ErrNotExist", err)
	}
}
