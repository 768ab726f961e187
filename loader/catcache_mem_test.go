package loader

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/internal/synth"
)

// TestStoreCatalogStreams: the catalog cache is written as it is encoded,
// never encoded whole in memory first (a cold start stores it while it
// holds the catalog just scanned, so a whole encoding, 32 MB at 100,000
// skills, and the copies its growth leaves behind add to that start's
// peak). On a 1,000-skill agent, writing the entry allocates less than a
// quarter of the entry's size; the entry reads back as the catalog.
func TestStoreCatalogStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a synthetic agent")
	}
	src, err := os.ReadFile(synth.Path(t, 1000))
	if err != nil {
		t.Fatal(err)
	}
	cat, err := agentfile.Parse(bytes.NewReader(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	entry := filepath.Join(dir, "catalog-test.bin")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	storeCatalog(dir, entry, cat)
	runtime.ReadMemStats(&after)
	b, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(b))/4 {
		t.Errorf("storing a %d-byte catalog entry allocated %d bytes; it should stream through a small buffer", len(b), alloc)
	}
	back, err := agentfile.UnmarshalCatalog(b)
	if err != nil || len(back.Planes) != len(cat.Planes) || back.SHA256 != cat.SHA256 {
		t.Fatalf("the stored entry does not read back as the catalog: %v", err)
	}
}
