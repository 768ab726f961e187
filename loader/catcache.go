package loader

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/internal/filestat"
)

// loadCatalog returns f's catalog: decoded from the cache directory when it
// holds one for f's exact bytes and the same limits, else scanned (and then
// stored for next time). Cache trouble of any kind falls back to the scan;
// only the scan's own errors are returned.
func loadCatalog(f *os.File, po *agentfile.Options, dir string) (cat *agentfile.Catalog, cached bool, err error) {
	if dir == "" {
		cat, err = agentfile.Parse(f, po)
		return cat, false, err
	}
	catalogWrites.wait() // an entry this process is still writing counts
	lk := limitsKey(po.Limits)
	sig, sigOK := fileSig(f)
	stamp := stampPath(dir, po.File, lk)
	sum, stamped := "", false
	if sigOK {
		sum, stamped = readStamp(stamp, sig)
	}
	if !stamped {
		h := sha256.New()
		// Hash at most what the scan would accept: a file past --max-bytes
		// is refused by the scan below, not hashed in full.
		max := po.Limits.Effective().MaxBytes
		if _, err := io.Copy(h, io.LimitReader(f, max+1)); err != nil {
			return nil, false, fmt.Errorf("reading %s: %w", po.File, err)
		}
		sum = hex.EncodeToString(h.Sum(nil))
	}
	entry := filepath.Join(dir, fmt.Sprintf("catalog-%s-%s.bin", sum, lk))
	if b, err := os.ReadFile(entry); err == nil {
		// b is ours and never touched again: the catalog's strings can
		// live in it.
		if cat, err := agentfile.UnmarshalCatalogOwned(b); err == nil && cat.SHA256 == sum {
			if sigOK && !stamped {
				writeStamp(dir, stamp, sig, sum)
			}
			return cat, true, nil
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", po.File, err)
	}
	if cat, err = agentfile.Parse(f, po); err != nil {
		return nil, false, err
	}
	if cat.SHA256 == sum { // the file did not change between hash and scan
		// Encoding and writing the entry (~6 ms at 4,000 skills) happens
		// off the path to the caller's first answer; the catalog is never
		// modified once scanned, so it is read safely meanwhile.
		catalogWrites.start(func() {
			storeCatalog(dir, entry, cat)
			if sigOK {
				writeStamp(dir, stamp, sig, sum)
			}
		})
	} else if stamped {
		// The stamp named other bytes than the file now holds: the file
		// changed without its stat changing. Never trust that stamp again.
		os.Remove(stamp)
	}
	return cat, false, nil
}

// limitsKey names the effective limits: a catalog scanned under other
// bounds may hold what these would refuse.
func limitsKey(l agentfile.Limits) string {
	s := sha256.Sum256(fmt.Appendf(nil, "%+v", l.Effective()))
	return hex.EncodeToString(s[:6])
}

// A stamp lets a warm start skip hashing the file: it records the content
// hash together with the file's stat signature (device, inode, size, mode,
// modification and change times in nanoseconds), and is trusted only when
// the signature is unchanged. That is the check git's index and make rely
// on; its known hole, a file rewritten within one timestamp tick of being
// stamped, is closed the way git closes it: a file whose times are less
// than racyWindow old is never stamped, so it is hashed until it settles.
// Nothing else rides on the stamp: the catalog it points to is still
// checksummed, and every body read is checked against the scan's CRC.

// racyWindow is how old a file's times must be before it is stamped;
// tests lower it.
var racyWindow = 2 * time.Second

// sig is a file's stat signature, as a stamp writes it.
type sig filestat.Sig

func (s sig) String() string {
	return fmt.Sprintf("%d %d %d %d %d %d", s.Dev, s.Ino, s.Size, s.Mode, s.Mtime, s.Ctime)
}

// statSig is the signature in fi; false where the platform gives no full
// one (no device and inode: Windows and the like), so callers hash the
// file or compare os.SameFile, the size and the modification time.
func statSig(fi os.FileInfo) (sig, bool) {
	s, full := filestat.Of(fi)
	return sig(s), full
}

// fileSig is f's stat signature; false where the platform gives no full
// one or the stat fails.
func fileSig(f *os.File) (sig, bool) {
	fi, err := f.Stat()
	if err != nil {
		return sig{}, false
	}
	return statSig(fi)
}

const stampHeader = "agent3md-stamp-1"

// stampPath names the stamp of file under limits lk: one per absolute
// path, so a later stamp replaces an earlier one.
func stampPath(dir, file, lk string) string {
	abs, err := filepath.Abs(file)
	if err != nil {
		abs = file
	}
	h := sha256.Sum256([]byte(abs))
	return filepath.Join(dir, fmt.Sprintf("stamp-%s-%s", hex.EncodeToString(h[:12]), lk))
}

// readStamp returns the content hash the stamp at path records for s.
func readStamp(path string, s sig) (string, bool) {
	b, err := os.ReadFile(path)
	if err != nil || len(b) > 512 {
		return "", false
	}
	want := stampHeader + " " + s.String() + " "
	line := strings.TrimSuffix(string(b), "\n")
	sum, ok := strings.CutPrefix(line, want)
	if !ok || len(sum) != 64 || strings.Trim(sum, "0123456789abcdef") != "" {
		return "", false
	}
	return sum, true
}

// writeStamp records sum for s, unless the file is too fresh to stamp.
func writeStamp(dir, path string, s sig, sum string) {
	cutoff := time.Now().Add(-racyWindow).UnixNano()
	if s.Mtime > cutoff || s.Ctime > cutoff {
		return
	}
	writeAtomic(dir, path, []byte(stampHeader+" "+s.String()+" "+sum+"\n"))
}

// catalogWrites are the catalog entries being written in the background.
var catalogWrites pendingWrites

// pendingWrites tracks background writes so that they can be waited for.
type pendingWrites struct{ wg sync.WaitGroup }

func (p *pendingWrites) start(write func()) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		write()
	}()
}

func (p *pendingWrites) wait() { p.wg.Wait() }

// FlushCatalogCache waits for the catalog cache entries this process is
// still writing (Options.CatalogCache): Open writes them in the background
// so as not to delay its caller. A program that exits right after opening
// an agent calls it first, or the next start finds no entry to reuse.
func FlushCatalogCache() { catalogWrites.wait() }

// storeCatalog writes the entry atomically (temp file, then rename), so a
// concurrent reader sees the old entry, the new one, or none. Failure only
// costs the next start its shortcut.
func storeCatalog(dir, entry string, cat *agentfile.Catalog) {
	// Streamed to the file: encoded whole in memory first, a 100,000-skill
	// catalog's 32 MB (and the copies its growth leaves behind) would
	// add to the peak of a cold start, which holds the scanned catalog.
	writeAtomicWith(dir, entry, cat.WriteBinary)
}

// writeAtomic writes b to path through a temp file and a rename, so a
// concurrent reader sees the old file, the new one, or none. Failure only
// costs the next start its shortcut.
func writeAtomic(dir, path string, b []byte) {
	writeAtomicWith(dir, path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// writeAtomicWith is writeAtomic for content that write streams out.
func writeAtomicWith(dir, path string, write func(io.Writer) error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(dir, ".catalog-*")
	if err != nil {
		return
	}
	werr := write(tmp)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
	}
}
