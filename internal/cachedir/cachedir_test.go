package cachedir

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func put(t *testing.T, name string, size int, used time.Time) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	// Date the file and its directories up to the cache root's child.
	for p := name; filepath.Base(p) != "root" && filepath.Base(p) != "outside"; p = filepath.Dir(p) {
		os.Chtimes(p, used, used)
	}
}

// cache builds three agents' entries, a used long ago, b recently, c
// now, plus things the cache does not own.
func cache(t *testing.T) (root string, now time.Time) {
	root = filepath.Join(t.TempDir(), "root")
	now = time.Now()
	a, b, c := strings.Repeat("a", 64), strings.Repeat("b", 64), strings.Repeat("c", 64)
	put(t, filepath.Join(root, "index-v4-"+a, "bleve", "seg"), 1000, now.Add(-3*time.Hour))
	put(t, filepath.Join(root, "catalog-"+a+"-k1.bin"), 100, now.Add(-3*time.Hour))
	put(t, filepath.Join(root, "index-v4-"+b, "bleve", "seg"), 2000, now.Add(-2*time.Hour))
	put(t, filepath.Join(root, "catalog-"+c+"-k1.bin"), 300, now.Add(-time.Hour))
	put(t, filepath.Join(root, "stamp-0123-k1"), 10, now.Add(-4*time.Hour))
	put(t, filepath.Join(root, "notes.txt"), 50, now.Add(-5*time.Hour))
	put(t, filepath.Join(root, ".build-123", "x"), 50, now.Add(-5*time.Hour))
	outside := filepath.Join(t.TempDir(), "outside")
	put(t, filepath.Join(outside, "big"), 5000, now)
	if err := os.Symlink(outside, filepath.Join(root, "index-v4-"+strings.Repeat("d", 64))); err != nil {
		t.Skip(err)
	}
	return root, now
}

func keys(ents []Entry) []string {
	var out []string
	for _, e := range ents {
		out = append(out, e.Key[:min(len(e.Key), 10)])
	}
	return out
}

func TestEntries(t *testing.T) {
	root, _ := cache(t)
	ents, err := Entries(root)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := keys(ents), []string{"stamp-0123", "aaaaaaaaaa", "bbbbbbbbbb", "cccccccccc"}; !slices.Equal(got, want) {
		t.Fatalf("entries (LRU first) = %v, want %v", got, want)
	}
	if ents[1].Size != 1100 || len(ents[1].Paths) != 2 {
		t.Errorf("agent a's entry groups its index and catalog: %+v", ents[1])
	}
	if n, _ := Size(root); n != 10+1100+2000+300 {
		t.Errorf("Size = %d: links, unknown files and builds must not count", n)
	}
	if ents, err := Entries(filepath.Join(root, "missing")); err != nil || len(ents) != 0 {
		t.Errorf("a missing cache is empty, got %v, %v", ents, err)
	}
}

func TestPruneLRU(t *testing.T) {
	tests := []struct {
		name    string
		max     int64
		keep    string
		touch   string
		removed []string
	}{
		{"under the cap", 1 << 20, "", "", nil},
		{"oldest first", 2300, "", "", []string{"stamp-0123", "aaaaaaaaaa"}},
		{"touched is newest", 2300, "", strings.Repeat("a", 64), []string{"stamp-0123", "bbbbbbbbbb"}},
		{"never the kept one", 0, strings.Repeat("b", 64), "", []string{"stamp-0123", "aaaaaaaaaa", "cccccccccc"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, now := cache(t)
			if tt.touch != "" {
				Touch(root, tt.touch, now.Add(time.Minute))
			}
			removed, err := Prune(root, tt.max, tt.keep)
			if err != nil {
				t.Fatal(err)
			}
			if got := keys(removed); !slices.Equal(got, tt.removed) {
				t.Fatalf("removed %v, want %v", got, tt.removed)
			}
			for _, e := range removed {
				for _, p := range e.Paths {
					if _, err := os.Lstat(filepath.Join(root, p)); err == nil {
						t.Errorf("%s still there", p)
					}
				}
			}
			for _, p := range []string{"notes.txt", ".build-123/x", "index-v4-" + strings.Repeat("d", 64)} {
				if _, err := os.Lstat(filepath.Join(root, p)); err != nil {
					t.Errorf("%s, which the cache does not own, was removed", p)
				}
			}
			left, _ := os.ReadDir(root)
			for _, e := range left {
				if strings.HasPrefix(e.Name(), ".trash-") {
					t.Errorf("trash left behind: %s", e.Name())
				}
			}
		})
	}
}

// TestUse: serving an agent from the cache records it, makes its entry
// the most recently used and prunes the others past the cap, never it.
func TestUse(t *testing.T) {
	root, now := cache(t)
	a := strings.Repeat("a", 64) // the least recently used agent entry
	if err := Use(root, a, Source{Path: "/x/a.3md", Name: "a"}, 1200); err != nil {
		t.Fatal(err)
	}
	ents, err := Entries(root)
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(ents); !slices.Equal(got, []string{"aaaaaaaaaa"}) {
		t.Fatalf("entries after Use = %v, want a's alone (used now, the others pruned)", got)
	}
	if ents[0].Used.Before(now.Add(-time.Minute)) {
		t.Errorf("a's entry was not marked used now: %s", ents[0].Used)
	}
	if len(ents[0].Sources) != 1 || ents[0].Sources[0].Name != "a" {
		t.Errorf("a's source not recorded: %+v", ents[0].Sources)
	}
}

func TestDefault(t *testing.T) {
	x := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", x)
	d, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if base, _ := os.UserCacheDir(); d != filepath.Join(base, "agent3md") {
		t.Errorf("Default() = %s, want agent3md in %s", d, base)
	}
}
