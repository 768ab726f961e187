package loader

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// ErrStale is wrapped by body reads of an Agent opened with
// Options.NoRescan when the file's bytes no longer match the version that
// was scanned (it was edited in place or truncated since). The error wraps
// ErrChanged too, so callers that only know ErrChanged still recognise it.
// The body asked for is never returned; reloading the file serves it again.
var ErrStale = errors.New("agent file changed since this version was loaded")

// ErrUnsettled is wrapped by OpenStable when the file changed during every
// one of its Options.StableTries scans (or was never quiet for
// Options.Settle before one): something is still writing it.
var ErrUnsettled = errors.New("agent file keeps changing")

// DefaultSettle is the default Options.Settle. Editors write a file in a
// few calls within a millisecond or so; 50 ms is also longer than any
// file system's timestamp tick, so a write after a settled stat always
// shows in the times.
const DefaultSettle = 50 * time.Millisecond

// DefaultStableTries is the default Options.StableTries: with
// DefaultSettle, about a quarter of a second of retrying before OpenStable
// reports a file that keeps changing.
const DefaultStableTries = 5

// staleError is a body read that found the file changed under an Agent
// pinned by Options.NoRescan.
type staleError struct {
	path   string
	cause  error // what the read found, wrapping errStale
	folder bool  // the Agent serves skills folders, not a file
}

func (e *staleError) Error() string {
	if e.folder {
		return fmt.Sprintf("%s: skills folder changed since this version was scanned: %v; reload the folder to serve its new files", e.path, e.cause)
	}
	return fmt.Sprintf("%s: %v: %v; reload the file to serve its new version", e.path, ErrStale, e.cause)
}

func (e *staleError) Unwrap() []error { return []error{ErrStale, ErrChanged, e.cause} }

// FileVersion identifies the version of the file an Agent serves: the
// file's identity and times as stat'ed when it was opened, and the SHA-256
// of the bytes scanned. It is comparable. Two versions with equal SHA256
// serve the same agent even when the stat fields differ (the file was
// touched, or rewritten with the same bytes), so a reload that only sees
// another stat has nothing to announce.
type FileVersion struct {
	Dev   uint64 // device number; 0 where the platform gives none
	Inode uint64 // inode number; 0 where the platform gives none
	Size  int64  // bytes
	// ModTime is the modification time in nanoseconds since the Unix
	// epoch.
	ModTime int64
	SHA256  string // lowercase hex SHA-256 of the scanned bytes
}

// Version returns the version of the file in force: the one scanned at
// Open, or for an Agent without Options.NoRescan the latest re-scan.
func (a *Agent) Version() FileVersion {
	st := a.current()
	if st.folder != nil {
		return FileVersion{SHA256: st.cat.SHA256}
	}
	v := FileVersion{Size: st.fi.Size(), ModTime: st.fi.ModTime().UnixNano(), SHA256: st.cat.SHA256}
	if s, ok := statSig(st.fi); ok {
		v.Dev, v.Inode = s.Dev, s.Ino
	}
	return v
}

// OpenStable opens path like Open, but only returns an Agent scanned from a
// file that stayed the same throughout: before the scan it waits until the
// file's change time is at least Options.Settle old (so a save written in
// several calls is not caught half-way), and after the scan it stats the
// path again. If the path names another file, or the file's size or times
// moved anywhere between the first stat and the last, the scan is thrown
// away and made again, up to Options.StableTries times; then it fails
// with an error wrapping ErrUnsettled, to be retried when the write is
// done. A path that is missing on every try gives the missing-file error.
// A scan error of a file that did not change during the scan (the file
// is really broken) is returned at once.
//
// Combine it with Options.NoRescan to serve exactly the version scanned:
// see docs/reload.md. Within one stat timestamp tick a write can leave no
// trace in the times; Settle, longer than any tick, closes that hole.
func OpenStable(path string, opts *Options) (*Agent, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Settle <= 0 {
		o.Settle = DefaultSettle
	}
	if o.StableTries <= 0 {
		o.StableTries = DefaultStableTries
	}
	var last error
	missing := 0
	for try := 0; try < o.StableTries; try++ {
		a, err := openOnce(path, &o)
		if err == nil {
			return a, nil
		}
		if !errors.Is(err, errMoving) && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		last = err
		if errors.Is(err, fs.ErrNotExist) {
			missing++
			// Mid-replace (unlinked, not yet recreated): give the
			// writer a moment.
			time.Sleep(o.Settle)
		}
	}
	if missing == o.StableTries {
		return nil, last
	}
	return nil, fmt.Errorf("%s: %w: it changed during each of %d scans (last: %v); retry when the write is done", path, ErrUnsettled, o.StableTries, last)
}

// errMoving marks one try of OpenStable that saw the file change.
var errMoving = errors.New("the file changed during the scan")

// stableHook, when set (by tests), runs after each scan of openOnce and
// before the stat that checks it.
var stableHook func()

// openOnce is one try of OpenStable: wait until the file is quiet, scan
// it, and keep the scan only if the file stayed the same throughout.
func openOnce(path string, o *Options) (*Agent, error) {
	pre, err := settle(path, o.Settle)
	if err != nil {
		return nil, err
	}
	a, err := Open(path, o)
	if stableHook != nil {
		stableHook()
	}
	post, perr := os.Stat(path)
	if err != nil {
		if perr == nil && sameStat(pre, post) && heldStill(path, post, o.Settle) {
			return nil, err // the file is really broken
		}
		return nil, fmt.Errorf("%w (the scan failed: %v)", errMoving, err)
	}
	if perr == nil && sameStat(pre, a.st.fi) && sameStat(a.st.fi, post) {
		return a, nil
	}
	a.Close()
	if perr != nil {
		return nil, fmt.Errorf("%w (%v)", errMoving, perr)
	}
	return nil, errMoving
}

// heldStill reports whether the file at path still has the stat fi after
// d more. A scan that fails is checked so before it is believed: the times
// of a file being truncated change after its size does (not in one step),
// so a stat taken meanwhile shows the new, empty file with the old, settled
// times, and the first stat alone would report a save in progress as a
// broken file.
func heldStill(path string, fi os.FileInfo, d time.Duration) bool {
	time.Sleep(d)
	again, err := os.Stat(path)
	return err == nil && sameStat(fi, again)
}

// settle stats path and returns its stat once the file's change time is at
// least d old, sleeping the rest of d when it is younger. A file that
// changes during that sleep is reported as moving. A change time in the
// future (a clock that was set back) cannot age: the file then counts as
// quiet if it holds still for a whole d.
func settle(path string, d time.Duration) (os.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("open agent file: %w", err)
	}
	age := time.Since(changed(fi))
	if age >= d {
		return fi, nil
	}
	wait := d - age
	if wait > d {
		wait = d
	}
	time.Sleep(wait)
	again, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("open agent file: %w", err)
	}
	if !sameStat(fi, again) {
		return nil, errMoving
	}
	return again, nil
}

// changed is the last time fi's file changed: its change time where the
// platform has one (every write, truncate, rename onto it or utimes
// moves it, and nothing can set it back), else its modification time.
func changed(fi os.FileInfo) time.Time {
	if s, ok := statSig(fi); ok {
		return time.Unix(0, max(s.Ctime, s.Mtime))
	}
	return fi.ModTime()
}

// sameStat reports whether a and b describe the same file with the same
// size, times and mode.
func sameStat(a, b os.FileInfo) bool {
	sa, oka := statSig(a)
	sb, okb := statSig(b)
	if oka && okb {
		return sa == sb
	}
	return sameVersion(a, b)
}
