//go:build unix

package folderwrite

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// dirFD is an open directory that writes go through (docs/cli.md, export):
// each name is resolved by the kernel relative to it, one component at a
// time, and a directory is opened with O_NOFOLLOW, so a symbolic link swapped
// in at any moment makes the operation fail rather than lead it elsewhere.
type dirFD struct {
	fd   int
	path string // for messages: the path the directory was reached by
}

// openDirRoot opens the directory at path, the one place a symbolic link is
// followed: the skills directory itself may be a link (~/.claude/skills).
func openDirRoot(path string) (*dirFD, error) {
	fd, err := ignoringEINTR(func() (int, error) {
		return unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return &dirFD{fd: fd, path: path}, nil
}

func (d *dirFD) close() { unix.Close(d.fd) }

func (d *dirFD) join(name string) string { return filepath.Join(d.path, filepath.FromSlash(name)) }

// openDir opens the directory name inside d without following a link.
func (d *dirFD) openDir(name string) (*dirFD, error) {
	fd, err := ignoringEINTR(func() (int, error) {
		return unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		return nil, d.explain(name, "open", err)
	}
	return &dirFD{fd: fd, path: d.join(name)}, nil
}

// lstat describes name inside d without following a link.
func (d *dirFD) lstat(name string) (fileID, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fileID{}, &fs.PathError{Op: "lstat", Path: d.join(name), Err: err}
	}
	return statID(&st), nil
}

// self describes d itself.
func (d *dirFD) self() (fileID, error) {
	var st unix.Stat_t
	if err := unix.Fstat(d.fd, &st); err != nil {
		return fileID{}, &fs.PathError{Op: "fstat", Path: d.path, Err: err}
	}
	return statID(&st), nil
}

func statID(st *unix.Stat_t) fileID {
	var mode fs.FileMode
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		mode = fs.ModeDir
	case unix.S_IFLNK:
		mode = fs.ModeSymlink
	case unix.S_IFREG:
	default:
		mode = fs.ModeIrregular
	}
	return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino), mode: mode, size: st.Size}
}

// names lists d's entries.
func (d *dirFD) names() ([]string, error) {
	fd, err := unix.Dup(d.fd)
	if err != nil {
		return nil, &fs.PathError{Op: "dup", Path: d.path, Err: err}
	}
	f := os.NewFile(uintptr(fd), d.path)
	defer f.Close()
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return f.Readdirnames(-1)
}

// readFile reads the regular file name inside d, refusing a link, a FIFO or
// a device (opened without blocking, then checked), and anything over max
// bytes: over is true then, and no bytes are returned.
func (d *dirFD) readFile(name string, max int64) (data []byte, over bool, err error) {
	fd, err := ignoringEINTR(func() (int, error) {
		return unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		return nil, false, d.explain(name, "open", err)
	}
	f := os.NewFile(uintptr(fd), d.join(name))
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if !st.Mode().IsRegular() {
		return nil, false, fmt.Errorf("%s exists and is not a regular file", d.join(name))
	}
	if st.Size() > max {
		return nil, true, nil
	}
	data, err = io.ReadAll(io.LimitReader(f, max+1))
	if int64(len(data)) > max {
		return nil, true, err
	}
	return data, false, err
}

// create writes a new file name inside d, readable by all; it fails when
// anything, a link included, is already there.
func (d *dirFD) create(name string, data []byte) error {
	fd, err := ignoringEINTR(func() (int, error) {
		return unix.Openat(d.fd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	})
	if err != nil {
		return d.explain(name, "create", err)
	}
	f := os.NewFile(uintptr(fd), d.join(name))
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644) // whatever the umask
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (d *dirFD) mkdir(name string, perm fs.FileMode) error {
	if err := unix.Mkdirat(d.fd, name, uint32(perm)); err != nil {
		return d.explain(name, "mkdir", err)
	}
	return nil
}

// chmod sets d's own permissions.
func (d *dirFD) chmod(perm fs.FileMode) error {
	if err := unix.Fchmod(d.fd, uint32(perm)); err != nil {
		return &fs.PathError{Op: "chmod", Path: d.path, Err: err}
	}
	return nil
}

// remove removes the file (or, dir set, the empty directory) name inside
// d; a link is removed itself, never followed.
func (d *dirFD) remove(name string, dir bool) error {
	flags := 0
	if dir {
		flags = unix.AT_REMOVEDIR
	}
	if err := unix.Unlinkat(d.fd, name, flags); err != nil {
		return &fs.PathError{Op: "remove", Path: d.join(name), Err: err}
	}
	return nil
}

// renameAt moves from/fromName to to/toName, replacing what is there.
func renameAt(from *dirFD, fromName string, to *dirFD, toName string) error {
	if err := unix.Renameat(from.fd, fromName, to.fd, toName); err != nil {
		return &os.LinkError{Op: "rename", Old: from.join(fromName), New: to.join(toName), Err: err}
	}
	return nil
}

// explain words a failed open of name inside d: a link or a file where a
// directory was wanted is said in so many words.
func (d *dirFD) explain(name, op string, err error) error {
	path := d.join(name)
	switch {
	case errors.Is(err, unix.ELOOP), errors.Is(err, unix.EMLINK):
		return fmt.Errorf("%s is a symbolic link; export never writes through one (remove it or export elsewhere)", path)
	case errors.Is(err, unix.ENOTDIR):
		id, serr := d.lstat(name)
		switch {
		case serr == nil && id.mode == fs.ModeSymlink:
			return fmt.Errorf("%s is a symbolic link; export never writes through one (remove it or export elsewhere)", path)
		case serr == nil && id.mode == fs.ModeDir:
			// Something else stood there as it was opened.
			return fmt.Errorf("%s changed while it was written (it was swapped as it was opened); nothing was written through it", path)
		}
		return fmt.Errorf("%s exists and is not a directory", path)
	}
	return &fs.PathError{Op: op, Path: path, Err: err}
}

func ignoringEINTR(f func() (int, error)) (int, error) {
	for {
		n, err := f()
		if !errors.Is(err, unix.EINTR) {
			return n, err
		}
	}
}

// modTime is when d's entries last changed.
func (d *dirFD) modTime() (time.Time, error) {
	fd, err := unix.Dup(d.fd)
	if err != nil {
		return time.Time{}, &fs.PathError{Op: "dup", Path: d.path, Err: err}
	}
	f := os.NewFile(uintptr(fd), d.path)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return time.Time{}, err
	}
	return fi.ModTime(), nil
}
