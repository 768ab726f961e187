//go:build !unix

package skillsdir

import "os"

// sigOf is a file's cheap change signature: where the platform gives no
// inode, size and modification time.
func sigOf(fi os.FileInfo) sig {
	return sig{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
}

const openFlags = os.O_RDONLY

// readable is left to the read where there are no Unix mode bits.
func readable(os.FileInfo) bool { return true }
