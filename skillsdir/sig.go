package skillsdir

import (
	"os"

	"github.com/agent3md/agent3md/internal/filekind"
	"github.com/agent3md/agent3md/internal/filestat"
)

// sig is a file's change signature: size, mode, modification and change
// times, device and inode where the platform gives them, else size and
// modification time (filestat.Of).
type sig = filestat.Sig

func sigOf(fi os.FileInfo) sig {
	s, _ := filestat.Of(fi)
	return s
}

// sameID reports whether two signatures name the same file.
func sameID(a, b sig) bool { return a.SameFile(b) }

// openFlags open a file without blocking: if a FIFO was swapped in after
// the type check, the open does not wait for a writer, and the fstat
// after it refuses the file. (os.Root resolves symlinks itself, refusing
// those that leave the folder.)
const openFlags = filekind.ReadFlags

// readable reports whether this process may read the file by its mode
// bits (a variable, for tests).
var readable = filestat.Readable
