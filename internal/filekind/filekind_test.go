package filekind

import (
	"io/fs"
	"testing"
)

func TestOf(t *testing.T) {
	for _, tt := range []struct {
		mode fs.FileMode
		want string
	}{
		{0o644, "a regular file"},
		{fs.ModeDir | 0o755, "a directory"},
		{fs.ModeNamedPipe | 0o600, "a named pipe"},
		{fs.ModeSocket, "a socket"},
		{fs.ModeDevice | fs.ModeCharDevice, "a device"},
		{fs.ModeDevice, "a device"},
		{fs.ModeIrregular, "a special file (mode ?---------)"},
	} {
		if got := Of(tt.mode); got != tt.want {
			t.Errorf("Of(%v) = %q, want %q", tt.mode, got, tt.want)
		}
	}
}
