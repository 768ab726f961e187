//go:build !unix

package folderwrite

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// dirFD is an open directory that writes go through. Without openat and
// O_NOFOLLOW here, it is an os.Root: names resolve beneath it and never
// outside, a link is refused where it is found, and a directory opened is
// checked to be the one found; a link swapped in between the two is caught
// by that check. Moves between two folders go by path.
type dirFD struct {
	root *os.Root
	path string
}

func openDirRoot(path string) (*dirFD, error) {
	r, err := os.OpenRoot(path)
	if err != nil {
		return nil, err
	}
	return &dirFD{root: r, path: path}, nil
}

func (d *dirFD) close() { d.root.Close() }

func (d *dirFD) join(name string) string { return filepath.Join(d.path, filepath.FromSlash(name)) }

func (d *dirFD) openDir(name string) (*dirFD, error) {
	before, err := d.root.Lstat(name)
	if err != nil {
		return nil, err
	}
	switch {
	case before.Mode()&fs.ModeSymlink != 0:
		return nil, fmt.Errorf("%s is a symbolic link; export never writes through one (remove it or export elsewhere)", d.join(name))
	case !before.IsDir():
		return nil, fmt.Errorf("%s exists and is not a directory", d.join(name))
	}
	r, err := d.root.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	if now, err := r.Stat("."); err != nil || !os.SameFile(before, now) {
		r.Close()
		return nil, fmt.Errorf("%s changed while it was written (it was swapped as it was opened); nothing was written through it", d.join(name))
	}
	return &dirFD{root: r, path: d.join(name)}, nil
}

func infoID(fi fs.FileInfo) fileID {
	id := fileID{info: fi, size: fi.Size()}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		id.mode = fs.ModeSymlink
	case fi.IsDir():
		id.mode = fs.ModeDir
	case !fi.Mode().IsRegular():
		id.mode = fs.ModeIrregular
	}
	return id
}

func (d *dirFD) lstat(name string) (fileID, error) {
	fi, err := d.root.Lstat(name)
	if err != nil {
		return fileID{}, err
	}
	return infoID(fi), nil
}

func (d *dirFD) self() (fileID, error) {
	fi, err := d.root.Stat(".")
	if err != nil {
		return fileID{}, err
	}
	return infoID(fi), nil
}

func (d *dirFD) names() ([]string, error) {
	f, err := d.root.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

func (d *dirFD) readFile(name string, max int64) ([]byte, bool, error) {
	id, err := d.lstat(name)
	if err != nil {
		return nil, false, err
	}
	if id.mode != 0 {
		return nil, false, fmt.Errorf("%s exists and is not a regular file", d.join(name))
	}
	if id.size > max {
		return nil, true, nil
	}
	f, err := d.root.Open(name)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if int64(len(data)) > max {
		return nil, true, err
	}
	return data, false, err
}

func (d *dirFD) create(name string, data []byte) error {
	f, err := d.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (d *dirFD) mkdir(name string, perm fs.FileMode) error { return d.root.Mkdir(name, perm) }

func (d *dirFD) chmod(perm fs.FileMode) error { return d.root.Chmod(".", perm) }

func (d *dirFD) remove(name string, dir bool) error { return d.root.Remove(name) }

func renameAt(from *dirFD, fromName string, to *dirFD, toName string) error {
	return os.Rename(from.join(fromName), to.join(toName))
}

func swapIn(root *dirFD, tmpName, name string) (string, error) {
	return swapInSteps(root, tmpName, name)
}

func renameNew(root *dirFD, tmpName, name string) error {
	return renameNewSteps(root, tmpName, name)
}

// modTime is when d's entries last changed.
func (d *dirFD) modTime() (time.Time, error) {
	fi, err := d.root.Stat(".")
	if err != nil {
		return time.Time{}, err
	}
	return fi.ModTime(), nil
}
