// Package filestat reads what a file's stat gives beyond os.FileInfo, in
// one family of build-tagged files: the change signature (device, inode,
// size, mode, modification and change times) that tells a cache whether a
// file is the one it saw, and whether this process may read a file by its
// mode bits.
//
// Unix systems give the whole signature (Linux, Darwin, the BSDs and
// Solaris name the change time; the others give it as 0); elsewhere
// (Windows, Plan 9, js, wasip1) Of gives size and modification time only
// and says so, so callers fall back to hashing or to os.SameFile.
//
// It does not open files (package filekind does) and keeps no cache:
// callers compare signatures themselves.
package filestat
