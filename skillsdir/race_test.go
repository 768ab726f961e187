package skillsdir

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Readers racing a writer that keeps replacing a file get, every time,
// bytes that match the entry returned with them, or ErrChanged; never a
// mix of versions or a stale entry.
func TestReadsRaceChanges(t *testing.T) {
	root := copyTree(t, "tree")
	file := filepath.Join(root, "deploy", "references", "build.md")
	c := scan(t, nil, root)
	versions := []string{strings.Repeat("a", 10), strings.Repeat("b", 20)}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(done)
		for i := range 200 {
			tmp := file + ".tmp"
			if err := os.WriteFile(tmp, []byte(versions[i%2]), 0o644); err != nil {
				t.Error(err)
				return
			}
			if err := os.Rename(tmp, file); err != nil {
				t.Error(err)
				return
			}
		}
	})
	for range 3 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				ct, err := c.ReadFile(ctx, "deploy", "references/build.md")
				if errors.Is(err, ErrChanged) {
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				sum := sha256.Sum256(ct.Data)
				d := string(ct.Data)
				if d != versions[0] && d != versions[1] && !strings.HasPrefix(d, "# Build") {
					t.Errorf("mixed bytes %q", d)
				}
				if ct.File.Size != int64(len(ct.Data)) || ct.Digest != "sha256:"+hex.EncodeToString(sum[:]) {
					t.Errorf("entry size %d digest %s for %d bytes", ct.File.Size, ct.Digest, len(ct.Data))
				}
			}
		})
	}
	wg.Wait()
}
