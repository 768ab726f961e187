package loader

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"time"
	"unsafe"

	"github.com/agent3md/agent3md/agentfile"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errStale marks a read that found the file different from its scan: a
// checksum mismatch or a short read. view answers it with one re-scan.
var errStale = errors.New("the file no longer matches its scan")

// view runs fn against the state in force with the file read-locked, so
// every body fn reads comes from one scan. When the path now names another
// file, or the file has another size or modification time, or fn reports
// errStale (a checksum mismatch or short read), view re-scans the file,
// swaps the new catalog in and runs fn again — at most one re-scan per
// call. If fn still finds the file changed, view returns an error wrapping
// ErrChanged. fn must not keep st.f beyond its return.
func (a *Agent) view(ctx context.Context, fn func(st *state) error) error {
	if a.opts.NoRescan {
		return a.viewPinned(ctx, fn)
	}
	rescanned := false
	var scanErr error // why the re-scan failed, if it did
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		st, err := a.rlock()
		if err != nil {
			return err
		}
		if !rescanned && a.moved(st) {
			a.mu.RUnlock()
			rescanned = true
			// A failed re-scan here is not fatal yet: the old file is
			// still open and every body read from it is checked against
			// the catalog it came from (the last good agent keeps serving
			// when an edit is broken and the old bytes are intact).
			scanErr = a.rescan(st.gen)
			if st, err = a.rlock(); err != nil {
				return err
			}
		}
		err = fn(st)
		gen := st.gen
		a.mu.RUnlock()
		if !errors.Is(err, errStale) {
			return err
		}
		if scanErr != nil {
			return fmt.Errorf("%s: %w (%v), and re-scanning it failed: %w", a.path, ErrChanged, err, scanErr)
		}
		if rescanned {
			return fmt.Errorf("%s: %w: %v, even after a re-scan; if it is being written, retry when the write is done", a.path, ErrChanged, err)
		}
		rescanned = true
		if scanErr = a.rescan(gen); scanErr != nil {
			return fmt.Errorf("%s: %w (%v), and re-scanning it failed: %w", a.path, ErrChanged, err, scanErr)
		}
	}
}

// viewPinned is view for Options.NoRescan: fn runs against the one state
// the Agent has, without a stat, and a body that no longer matches the
// scan is reported as stale rather than answered by a re-scan.
func (a *Agent) viewPinned(ctx context.Context, fn func(st *state) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	st, err := a.rlock()
	if err != nil {
		return err
	}
	defer a.mu.RUnlock()
	err = fn(st)
	if errors.Is(err, errStale) {
		return &staleError{path: a.path, cause: err, folder: st.folder != nil}
	}
	return err
}

// rlock read-locks the agent and returns the state in force.
func (a *Agent) rlock() (*state, error) {
	a.mu.RLock()
	if a.closed {
		a.mu.RUnlock()
		return nil, ErrClosed
	}
	return a.st, nil
}

// moved reports whether the path now names a different file than st was
// scanned from (a rename replaced it) or the same file with another size or
// modification time. It must be called with a.mu read-locked. A path that
// cannot be stat'ed (mid-replace) is not "moved": the open file still
// serves, checked by CRC. A change whose re-scan already failed is not
// reported again until the file changes once more. Checks happen at most
// once per Options.Recheck.
func (a *Agent) moved(st *state) bool {
	if st.folder != nil {
		// A folder has no one file to stat: a changed skill shows up
		// when a read finds its entry outdated (errStale).
		return false
	}
	if every := a.opts.Recheck; every > 0 {
		now := int64(time.Since(a.start))
		last := a.lastCheck.Load()
		if now-last < int64(every) || !a.lastCheck.CompareAndSwap(last, now) {
			return false
		}
	}
	fi, err := os.Stat(a.path)
	if err != nil || sameVersion(fi, st.fi) {
		return false
	}
	return a.failed == nil || !sameVersion(fi, a.failed.fi)
}

func sameVersion(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// rescan scans the file again and swaps the result in, unless the state of
// generation gen was already replaced by a concurrent re-scan.
func (a *Agent) rescan(gen uint64) error {
	a.reload.Lock()
	defer a.reload.Unlock()
	a.mu.RLock()
	cur, closed := a.st, a.closed
	a.mu.RUnlock()
	if closed {
		return ErrClosed
	}
	if cur.gen != gen {
		return nil
	}
	var (
		st  *state
		err error
		pre os.FileInfo
	)
	if a.folders != nil {
		st, err = scanFolders(context.Background(), a.folders, gen+1)
	} else {
		pre, _ = os.Stat(a.path)
		a.mu.RLock()
		failed := a.failed
		a.mu.RUnlock()
		if failed != nil && pre != nil && sameVersion(pre, failed.fi) {
			return failed.err // the same broken file: do not parse it again
		}
		st, err = scan(a.path, &a.opts, gen+1)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if err != nil {
		if pre != nil {
			a.failed = &failedScan{fi: pre, err: err}
		}
		return err
	}
	if a.closed {
		st.close()
		return ErrClosed
	}
	old := a.st
	a.st, a.failed = st, nil
	// Every reader of old held the read lock; Lock waited for them.
	old.close()
	if a.afterRescan != nil {
		a.afterRescan()
	}
	return nil
}

// body reads plane p's body from the file, normalises CRLF to LF and checks
// it against the catalog's CRC-32C. A short read or a mismatch wraps
// errStale.
func (st *state) body(p int) (string, error) {
	if st.folder != nil {
		return st.folderBody(p)
	}
	return readBodyFrom(st.f, st.mem, st.fi.Size(), &st.cat.Planes[p])
}

// readBody reads plane pl's body from f (size bytes long), normalised and
// checked against the scan's CRC.
func readBody(f *os.File, size int64, pl *agentfile.Plane) (string, error) {
	return readBodyFrom(f, nil, size, pl)
}

// readBodyFrom is readBody from mem, f's mapping, when it has one that
// covers the body (see mapped.go), and from f otherwise.
func readBodyFrom(f *os.File, mem []byte, size int64, pl *agentfile.Plane) (string, error) {
	n := pl.Body.Len()
	if n < 0 || pl.Body.Start < 0 {
		return "", fmt.Errorf("plane z=%s: invalid body span [%d, %d)", pl.ZText, pl.Body.Start, pl.Body.End)
	}
	if n == 0 {
		return "", nil
	}
	if n > size {
		return "", fmt.Errorf("plane z=%s: body span of %d bytes exceeds the file: %w", pl.ZText, n, errStale)
	}
	buf := make([]byte, n)
	if pl.Body.End <= int64(len(mem)) {
		if !copyMapped(buf, mem[pl.Body.Start:pl.Body.End]) {
			return "", fmt.Errorf("plane z=%s: its body is past the end of the file (file truncated?): %w", pl.ZText, errStale)
		}
		return checkedBody(buf, pl)
	}
	m, err := f.ReadAt(buf, pl.Body.Start)
	if m < len(buf) {
		if err == nil || errors.Is(err, io.EOF) {
			return "", fmt.Errorf("plane z=%s: read %d of %d body bytes (file truncated?): %w", pl.ZText, m, n, errStale)
		}
		return "", fmt.Errorf("plane z=%s: reading its body from %s: %w", pl.ZText, f.Name(), err)
	}
	return checkedBody(buf, pl)
}

// checkedBody normalises a body's bytes, as read, and checks them against
// the scan's CRC.
func checkedBody(buf []byte, pl *agentfile.Plane) (string, error) {
	buf = agentfile.Normalize(buf)
	if crc32.Checksum(buf, castagnoli) != pl.CRC {
		return "", fmt.Errorf("plane z=%s: body no longer matches its checksum: %w", pl.ZText, errStale)
	}
	// buf is never written again, so it can back the string without a copy.
	return unsafe.String(unsafe.SliceData(buf), len(buf)), nil
}
