package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agent3md/agent3md/internal/filekind"
)

// WriteFile writes the agent file to name atomically: a temporary file in
// the same folder, then linked to name, which fails when name exists (so
// nothing is ever replaced by accident), or, with force, renamed over it.
func (r *Imported) WriteFile(name string, force bool) error {
	data := r.Data
	if st, err := os.Stat(name); err == nil && st.IsDir() {
		return fmt.Errorf("%s is a directory; -o takes a file name", name)
	}
	tmp, err := writeTemp(filepath.Dir(name), ".agent3md-import-*", data)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if force {
		return os.Rename(tmp, name)
	}
	err = os.Link(tmp, name)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s already exists; pass --force to replace it, or choose another -o", name)
	}
	if err != nil {
		// No hard links here (some file systems): create exclusively.
		err := filekind.WriteNew(name, data)
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s already exists; pass --force to replace it, or choose another -o", name)
		}
		return err
	}
	return nil
}

// writeTemp writes b to a new file in dir (named after pattern, as
// os.CreateTemp does), readable by all (0644), and returns its name; the
// caller moves it into place or removes it. On error nothing is left.
func writeTemp(dir, pattern string, b []byte) (string, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}
