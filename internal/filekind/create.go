package filekind

import "os"

// WriteNew writes data to a regular file it creates at path (mode 0644
// before the umask), never over anything already there: an existing
// path, a symbolic link included (even one that dangles), is refused with
// an error wrapping fs.ErrExist and left as it was, and a missing
// directory with one wrapping fs.ErrNotExist, so callers word those two
// cases for their users.
func WriteNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
