package skillsdir

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// readInside reads the regular file rel (a cleaned slash path) below the
// skill folder real, whose device and inode the scan recorded as dirID
// (zero: not checked). Every step goes through an os.Root opened on real:
//
//   - the folder opened must be the one scanned (errStale otherwise: it
//     was moved, replaced, or an ancestor swapped for a symlink);
//   - rel is resolved beneath that open folder by the runtime, symlinks
//     included, and anything that leaves it — "..", an escaping or
//     absolute symlink — is refused, with no window between check and
//     open;
//   - the type is checked before the open, so a FIFO or device is never
//     opened, and the open does not block, so one swapped in meanwhile
//     cannot hang the read;
//   - the open file must be the one stat'ed, and unchanged after the
//     read; otherwise the read starts over (bounded) rather than return
//     mixed bytes.
func readInside(real string, dirID sig, rel string, maxBytes int64) ([]byte, sig, error) {
	root, err := os.OpenRoot(real)
	if err != nil {
		return nil, sig{}, err
	}
	defer root.Close()
	if dirID != (sig{}) {
		d, err := root.Stat(".")
		if err != nil || !sameID(sigOf(d), dirID) {
			return nil, sig{}, errStale
		}
	}
	name := filepath.FromSlash(rel)
	for range readAttempts {
		fi, err := root.Stat(name)
		if err != nil {
			return nil, sig{}, refusal(rel, err)
		}
		if !fi.Mode().IsRegular() {
			return nil, sig{}, fmt.Errorf("%s is not a regular file: %w", rel, ErrRefused)
		}
		if fi.Size() > maxBytes {
			return nil, sig{}, fmt.Errorf("%s has %d bytes, over %d (MaxFileBytes): %w", rel, fi.Size(), maxBytes, ErrTooLarge)
		}
		data, sg, err := readOpen(root, name, fi, maxBytes)
		if errors.Is(err, ErrChanged) {
			continue
		}
		if err != nil {
			return nil, sig{}, refusal(rel, err)
		}
		return data, sg, nil
	}
	return nil, sig{}, fmt.Errorf("%s kept changing while read: %w", rel, ErrChanged)
}

// refusal words an os.Root error: a missing file stays fs.ErrNotExist
// (the skill may have changed); anything else the root refused — a path
// leaving the folder, an absolute or looping symlink — is ErrRefused.
func refusal(rel string, err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrTooLarge) || errors.Is(err, ErrRefused) {
		return err
	}
	if errors.Is(err, fs.ErrPermission) {
		// Kept recognisable: a file made unreadable after the scan is a
		// change of the skill, to be re-scanned, not a refusal.
		return fmt.Errorf("%s cannot be read: %w: %w", rel, err, ErrRefused)
	}
	return fmt.Errorf("%s cannot be read inside the skill folder (%v): %w", rel, err, ErrRefused)
}

// readOpen opens name in root, checks it is the file stat'ed, and reads
// it whole; ErrChanged when it changed meanwhile.
func readOpen(root *os.Root, name string, seen os.FileInfo, maxBytes int64) ([]byte, sig, error) {
	f, err := root.OpenFile(name, openFlags, 0)
	if err != nil {
		return nil, sig{}, err
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		return nil, sig{}, err
	}
	if !before.Mode().IsRegular() || !os.SameFile(before, seen) {
		return nil, sig{}, ErrChanged
	}
	if before.Size() > maxBytes {
		return nil, sig{}, fmt.Errorf("%d bytes, over %d (MaxFileBytes): %w", before.Size(), maxBytes, ErrTooLarge)
	}
	data, err := readAllLimit(f, before.Size(), maxBytes)
	if err != nil {
		return nil, sig{}, err
	}
	after, err := f.Stat()
	if err != nil {
		return nil, sig{}, err
	}
	if sigOf(after) != sigOf(before) || int64(len(data)) != after.Size() {
		return nil, sig{}, ErrChanged
	}
	return data, sigOf(after), nil
}

// readAllLimit reads r to its end, failing past maxBytes. size is the
// expected length, so a file that did not grow is read into one buffer.
func readAllLimit(r io.Reader, size, maxBytes int64) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(int(min(size, maxBytes)) + bytes.MinRead)
	if _, err := b.ReadFrom(io.LimitReader(r, maxBytes+1)); err != nil {
		return nil, err
	}
	if int64(b.Len()) > maxBytes {
		return nil, fmt.Errorf("over %d bytes (MaxFileBytes): %w", maxBytes, ErrTooLarge)
	}
	return b.Bytes(), nil
}
