package filestat

// Sig is a file's stat signature. An edit, a replace-by-rename, a chmod or
// a touch changes at least one field where the platform gives them all.
type Sig struct {
	Dev, Ino     uint64
	Size         int64
	Mode         uint32 // st_mode: file type and permission bits
	Mtime, Ctime int64  // Unix nanoseconds
}

// SameFile reports whether a and b name the same file: the same device
// and inode.
func (a Sig) SameFile(b Sig) bool { return a.Dev == b.Dev && a.Ino == b.Ino }
