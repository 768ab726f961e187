//go:build !unix

package filestat

import "os"

// Of gives no full signature here (no device or inode): only Size and
// Mtime are set, and full is false.
func Of(fi os.FileInfo) (s Sig, full bool) {
	return Sig{Size: fi.Size(), Mtime: fi.ModTime().UnixNano()}, false
}

// Readable is left to the read where there are no Unix mode bits.
func Readable(os.FileInfo) bool { return true }

// ReadableBy is left to the read where there are no Unix mode bits.
func ReadableBy(os.FileInfo, int, []int) bool { return true }
