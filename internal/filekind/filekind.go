// Package filekind names what a path is when it is not a regular file ("a
// named pipe", "a device"), for the messages of the commands and of the
// HTTP server that refuse such paths: one wording wherever a pipe is
// refused. Open is the one way both open such a path: only a regular
// file, and never waiting on a pipe swapped in after the check. WriteNew
// is the one way a command creates a file it must not write over.
package filekind

import "io/fs"

// Of names the kind of file m describes, with its article: "a directory",
// "a named pipe", "a socket", "a device", else "a special file (mode …)".
// For a regular file it says so too, though callers ask only about others.
func Of(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	default:
		return "a special file (mode " + m.Type().String() + ")"
	}
}
