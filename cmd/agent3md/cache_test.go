package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCacheCommand: cache path follows --cache-dir, else the user cache
// directory (XDG_CACHE_HOME here, set by TestMain); route fills it; size
// lists it; prune --max-size 0 empties it.
func TestCacheCommand(t *testing.T) {
	code, out, _ := cli(t, "cache", "path")
	if want := filepath.Join(os.Getenv("XDG_CACHE_HOME"), "agent3md"); code != 0 || strings.TrimSpace(out) != want {
		t.Fatalf("cache path: exit %d, %q, want %q", code, out, want)
	}
	dir := t.TempDir()
	if code, out, _ := cli(t, "cache", "path", "--cache-dir", dir); code != 0 || strings.TrimSpace(out) != dir {
		t.Fatalf("cache path --cache-dir: exit %d, %q", code, out)
	}
	if code, _, errOut := cli(t, "route", "--cache-dir", dir, devtools, "search the code"); code != 0 {
		t.Fatalf("route: exit %d: %s", code, errOut)
	}
	code, out, _ = cli(t, "cache", "size", "--cache-dir", dir)
	if code != 0 || strings.Contains(out, " 0 entries") || !strings.Contains(out, "total") {
		t.Fatalf("cache size after a route: exit %d\n%s", code, out)
	}
	code, out, _ = cli(t, "cache", "prune", "--max-size", "0", "--cache-dir", dir)
	if code != 0 || strings.HasPrefix(out, "removed 0 ") {
		t.Fatalf("prune: exit %d, %q", code, out)
	}
	if _, out, _ = cli(t, "cache", "size", "--cache-dir", dir); !strings.Contains(out, "0 B  total, 0 entries") {
		t.Fatalf("cache size after prune: %q", out)
	}
	if code, _, errOut := cli(t, "route", "--cache-max-size", "lots", devtools, "x"); code != exitUsage || !strings.Contains(errOut, "--cache-max-size") {
		t.Fatalf("bad --cache-max-size: exit %d, %q", code, errOut)
	}
}

// TestCacheCap: a command keeps the cache under --cache-max-size, never
// evicting the agent it serves.
func TestCacheCap(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, "catalog-"+strings.Repeat("a", 64)+"-k.bin")
	write(t, stale, strings.Repeat("x", 4096))
	if code, _, errOut := cli(t, "route", "--cache-dir", dir, "--cache-max-size", "1B", devtools, "search the code"); code != 0 {
		t.Fatalf("route: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Errorf("another agent's entry survived a cap of 1 byte")
	}
	// The next start still finds its own catalog (kept as the current one).
	code, _, errOut := cli(t, "route", "--cache-dir", dir, "--cache-max-size", "1B", devtools, "search the code")
	if code != 0 {
		t.Fatalf("second route: exit %d: %s", code, errOut)
	}
	ents, _ := filepath.Glob(filepath.Join(dir, "catalog-*.bin"))
	if len(ents) != 1 {
		t.Errorf("catalog entries after two routes under a 1-byte cap: %v", ents)
	}
}

// TestProgressBar: the bar redraws in place once per percent and ends its
// line when done; commands draw it only when stderr is a terminal, so a
// piped stderr never gets one.
func TestProgressBar(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "tty")
	if err != nil {
		t.Fatal(err)
	}
	bar := progressBar(f)
	for i := 0; i <= 1000; i++ {
		bar(i, 1000)
	}
	f.Close()
	b, _ := os.ReadFile(f.Name())
	if n := strings.Count(string(b), "\rindexing ["); n != 101 || !strings.HasSuffix(string(b), "100% 1000/1000\n") {
		t.Fatalf("%d redraws (want 101), ends %q", n, b[max(0, len(b)-30):])
	}
	_, _, errOut := cli(t, "route", "--no-cache", devtools, "search the code")
	if strings.Contains(errOut, "indexing [") {
		t.Errorf("progress drawn on a stderr that is not a terminal: %q", errOut)
	}
}

// TestCacheSaysWhatItHolds: size names each entry's agent (name and
// absolute path), prune without --max-size says what it kept and why, and
// index says when a small agent was not cached.
func TestCacheSaysWhatItHolds(t *testing.T) {
	dir := t.TempDir()
	abs, err := filepath.Abs(devtools)
	if err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := cli(t, "route", "--cache-dir", dir, devtools, "search the code"); code != 0 {
		t.Fatalf("route: exit %d: %s", code, errOut)
	}
	_, out, _ := cli(t, "cache", "size", "--cache-dir", dir)
	if !strings.Contains(out, "Forge ("+abs+")") {
		t.Errorf("cache size does not name the agent and its file:\n%s", out)
	}
	_, out, _ = cli(t, "cache", "prune", "--cache-dir", dir)
	if !strings.Contains(out, "removed 0 entries") || !strings.Contains(out, "; kept ") || !strings.Contains(out, "fit in --max-size 1GiB") {
		t.Errorf("prune with the default size does not say what it kept and why:\n%s", out)
	}
	_, out, _ = cli(t, "cache", "prune", "--cache-dir", dir, "--max-size", "0")
	if !strings.Contains(out, "Forge ("+abs+")") || !strings.Contains(out, "the cache is empty") {
		t.Errorf("prune --max-size 0 does not list what it removed:\n%s", out)
	}
	_, out, _ = cli(t, "index", "--cache-dir", dir, devtools)
	if !strings.Contains(out, "not cached: agents of up to 500 skills are indexed in memory") {
		t.Errorf("index on a small agent does not say it was not cached:\n%s", out)
	}
	if _, out, _ = cli(t, "index", "--no-cache", devtools); strings.Contains(out, "not cached:") {
		t.Errorf("index --no-cache explains a cache it was told not to use:\n%s", out)
	}
}
