package loader

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// cacheFixture copies the devtools example to a temp file and returns a
// catalog cache directory, the copy's path and bytes, loader options using
// that cache, and an opener that closes what it opens at cleanup.
func cacheFixture(t *testing.T) (dir, path string, src []byte, opts *Options, open func() *Agent) {
	t.Helper()
	dir = t.TempDir()
	src, err := os.ReadFile("../examples/devtools.3md")
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), "agent.3md")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	opts = &Options{CatalogCache: dir}
	open = func() *Agent {
		t.Helper()
		a, err := Open(path, opts)
		FlushCatalogCache() // these tests look at the entries Open writes
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close() })
		return a
	}
	return dir, path, src, opts, open
}

// TestCatalogCache: the first Open scans and stores the catalog; the next
// Open of the same bytes decodes it and serves identical answers; a
// damaged entry, or one that belongs to other bytes, is never trusted.
func TestCatalogCache(t *testing.T) {
	dir, path, _, opts, open := cacheFixture(t)
	entries := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, "catalog-*.bin"))
		return m
	}

	first := open()
	if first.CatalogCached() {
		t.Fatal("the first open cannot come from an empty cache")
	}
	if n := len(entries()); n != 1 {
		t.Fatalf("%d cache entries after the first open, want 1", n)
	}
	// The file was written a moment ago: too fresh to stamp (a rewrite in
	// the same timestamp tick would go unseen), so it is hashed each time.
	if stamps, _ := filepath.Glob(filepath.Join(dir, "stamp-*")); len(stamps) != 0 && racyWindow > 0 {
		t.Fatalf("a file younger than %v was stamped: %v", racyWindow, stamps)
	}
	second := open()
	if !second.CatalogCached() {
		t.Fatal("the second open of the same bytes did not use the cache")
	}
	if !reflect.DeepEqual(first.Skills(), second.Skills()) {
		t.Fatal("a cached open lists different skills")
	}
	for _, s := range first.Skills() {
		b1, err1 := first.Body(context.Background(), s.Name)
		b2, err2 := second.Body(context.Background(), s.Name)
		if err1 != nil || err2 != nil || b1 != b2 {
			t.Fatalf("%s: bodies differ or fail: %v %v", s.Name, err1, err2)
		}
	}

	// Damage: the entry is refused, the file scanned, the entry rewritten.
	entry := entries()[0]
	if err := os.WriteFile(entry, []byte("agent3md-catalog-1\ngarbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if open().CatalogCached() {
		t.Fatal("a damaged entry was trusted")
	}
	if !open().CatalogCached() {
		t.Fatal("the damaged entry was not rewritten")
	}

	// Other bytes: a valid entry stored under this file's name but made
	// from another file must not be served.
	other, err := os.ReadFile("../examples/oncall.3md")
	if err != nil {
		t.Fatal(err)
	}
	otherPath := filepath.Join(t.TempDir(), "other.3md")
	os.WriteFile(otherPath, other, 0o644)
	if a, err := Open(otherPath, opts); err != nil {
		t.Fatal(err)
	} else {
		a.Close()
	}
	var foreign string
	for _, e := range entries() {
		if e != entry {
			foreign = e
		}
	}
	b, _ := os.ReadFile(foreign)
	os.WriteFile(entry, b, 0o644)
	a := open()
	if a.CatalogCached() {
		t.Fatal("an entry made from other bytes was trusted")
	}
	if a.Info().Name != first.Info().Name {
		t.Fatalf("served agent %q, want %q", a.Info().Name, first.Info().Name)
	}

	// Other limits key other entries: a catalog scanned under generous
	// bounds must not stand in for a stricter scan.
	strict := *opts
	strict.Parse.Limits.MaxLineBytes = 64
	if _, err := Open(path, &strict); err == nil {
		t.Fatal("a stricter line bound was not applied: the cached catalog stood in for the scan")
	}
}

// TestCatalogStamp: a settled file is stamped with its stat signature, so
// the next open skips hashing; any change to the file changes the
// signature and is hashed again, and a stamp naming bytes the file no
// longer holds is dropped.
func TestCatalogStamp(t *testing.T) {
	old := racyWindow
	racyWindow = 0
	t.Cleanup(func() { racyWindow = old })
	dir, path, src, opts, open := cacheFixture(t)
	stamps := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, "stamp-*"))
		return m
	}
	open()
	if len(stamps()) != 1 {
		t.Fatalf("stamps after the first open: %v, want one", stamps())
	}
	a0 := open()
	if !a0.CatalogCached() || a0.Catalog().SHA256 == "" {
		t.Fatal("second open did not use the stamped catalog")
	}
	if h, err := ReadHead(path, opts); err != nil || h.ContentHash != a0.Catalog().SHA256 {
		t.Fatalf("ReadHead of a stamped file: %+v, %v; want the content hash %s", h, err, a0.Catalog().SHA256)
	}
	if h, err := ReadHead(path, &Options{}); err != nil || h.ContentHash != "" {
		t.Fatalf("ReadHead without a cache: %+v, %v; want no content hash", h, err)
	}

	// A stamp that lies (its hash names other bytes) is caught as soon as
	// the catalog it names is missing: the scan's hash differs.
	stamp := stamps()[0]
	b, _ := os.ReadFile(stamp)
	forged := string(b[:len(b)-65]) + strings.Repeat("0", 64) + "\n"
	if err := os.WriteFile(stamp, []byte(forged), 0o644); err != nil {
		t.Fatal(err)
	}
	a := open()
	if a.CatalogCached() {
		t.Fatal("a forged stamp's missing catalog was reported as cached")
	}
	if got, _ := os.ReadFile(stamp); string(got) == forged {
		t.Fatal("the forged stamp was kept")
	}

	// An edit changes size and times: the stamp no longer matches, the new
	// bytes are scanned, and the skill list follows the file.
	before := len(open().Skills())
	edited := strings.Replace(string(src), "\n@plane", "\n@plane z=999 label=\"extra\" kind=skill triggers=\"extra step\"\n# Extra\n\nAn extra skill.\n\n@plane", 1)
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if h, err := ReadHead(path, opts); err != nil || h.ContentHash != "" {
		t.Fatalf("ReadHead after an edit: %+v, %v; the stamp vouched for changed bytes", h, err)
	}
	if a := open(); a.CatalogCached() || len(a.Skills()) == before {
		t.Fatalf("after an edit: cached %v, %d skills (was %d); the stamp hid the change", a.CatalogCached(), len(a.Skills()), before)
	}
}
