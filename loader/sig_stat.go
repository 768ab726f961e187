//go:build linux || darwin

package loader

import (
	"os"
	"syscall"
)

// fileSig is f's stat signature; false where the platform gives none.
func fileSig(f *os.File) (sig, bool) {
	fi, err := f.Stat()
	if err != nil {
		return sig{}, false
	}
	return statSig(fi)
}

// statSig is the signature in fi; false where the platform gives none.
func statSig(fi os.FileInfo) (sig, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return sig{}, false
	}
	return sig{
		dev: int64(st.Dev), ino: int64(st.Ino), size: st.Size, mode: int64(st.Mode),
		mtime: fi.ModTime().UnixNano(), ctime: ctimeNano(st),
	}, true
}
