package loader

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/agent3md/agent3md/agentfile"
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
	h := sha256.New()
	// Hash at most what the scan would accept: a file past --max-bytes is
	// refused by the scan below, not hashed in full.
	max := po.Limits.Effective().MaxBytes
	if _, err := io.Copy(h, io.LimitReader(f, max+1)); err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", po.File, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	entry := filepath.Join(dir, fmt.Sprintf("catalog-%s-%s.bin", sum, limitsKey(po.Limits)))
	if b, err := os.ReadFile(entry); err == nil {
		if cat, err := agentfile.UnmarshalCatalog(b); err == nil && cat.SHA256 == sum {
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
		storeCatalog(dir, entry, cat)
	}
	return cat, false, nil
}

// limitsKey names the effective limits: a catalog scanned under other
// bounds may hold what these would refuse.
func limitsKey(l agentfile.Limits) string {
	s := sha256.Sum256(fmt.Appendf(nil, "%+v", l.Effective()))
	return hex.EncodeToString(s[:6])
}

// storeCatalog writes the entry atomically (temp file, then rename), so a
// concurrent reader sees the old entry, the new one, or none. Failure only
// costs the next start its shortcut.
func storeCatalog(dir, entry string, cat *agentfile.Catalog) {
	b, err := cat.MarshalBinary()
	if err != nil {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(dir, ".catalog-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), entry) != nil {
		os.Remove(tmp.Name())
	}
}
