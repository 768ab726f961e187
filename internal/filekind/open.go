package filekind

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular is wrapped by Open's error for a path that is not a
// regular file.
var ErrNotRegular = errors.New("not a regular file")

// NotRegularError is Open's error for a path that is not a regular file:
// Mode says what it is (Of names it).
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return e.Path + " is " + Of(e.Mode) + ", not a regular file"
}

func (e *NotRegularError) Unwrap() error { return ErrNotRegular }

// ReadFlags open a file for reading without waiting: a named pipe
// swapped in after a type check does not make the open wait for a writer,
// and a terminal does not become the controlling one. Windows ignores both
// bits.
const ReadFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY

// Open opens path for reading only if it is a regular file (symbolic
// links followed). It is stat'ed before the open, since opening some
// devices has effects of its own; opened with O_NONBLOCK, so a path
// swapped for a named pipe after the stat cannot make the open wait for a
// writer; and the open file is checked again. Anything else is a
// *NotRegularError.
func Open(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Mode: st.Mode()}
	}
	f, err := os.OpenFile(path, ReadFlags, 0)
	if err != nil {
		return nil, err
	}
	if st, err = f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = &NotRegularError{Path: path, Mode: st.Mode()}
		}
		return nil, err
	}
	return f, nil
}
