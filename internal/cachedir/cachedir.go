// Package cachedir finds, measures and prunes agent3md's cache directory:
// the routing indexes (index-v<schema>-<hash>/), the scanned catalogs
// (catalog-<hash>-<limits>.bin), the record of which agents an entry
// serves (source-<hash>) and the stamps that map a file to its hash
// (stamp-<path hash>-<limits>). It owns the cache's size cap and its
// least-recently-used eviction, and words what it holds and what a prune
// removed for `agent3md cache size` and `cache prune` (listing.go); it
// does not read or write entries (the router and loader packages do).
package cachedir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// DefaultMaxBytes is the default size cap of the cache: 1 GiB.
const DefaultMaxBytes = 1 << 30

// Default is the cache directory used when none is given: "agent3md" in
// the user's cache directory (os.UserCacheDir: $XDG_CACHE_HOME or
// ~/.cache on Linux, ~/Library/Caches on macOS, %LocalAppData% on Windows).
func Default() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache directory (%w); pass --cache-dir", err)
	}
	return filepath.Join(dir, "agent3md"), nil
}

// Entry is what the cache holds for one agent content (every index and
// catalog of one hash), or one stamp.
type Entry struct {
	// Key is the content hash, or the stamp's file name.
	Key string
	// Paths are the entry's files and directories, relative to the root.
	Paths []string
	// Size is the bytes of every file below Paths.
	Size int64
	// Used is the latest modification time among Paths: Touch sets it
	// each time an agent is served from the entry.
	Used time.Time
	// Sources are the agents the entry was last used for, most recent
	// first (Record); none for a stamp, or an entry an older agent3md
	// made.
	Sources []Source
	// Stamp is set for a stamp: a file's stat signature and content hash,
	// not an agent's entry.
	Stamp bool
}

// Entries lists the cache's entries, least recently used first. Temporary
// build and trash directories are left out (the router sweeps them), as
// is anything the cache does not name.
func Entries(root string) ([]Entry, error) {
	ents, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	byKey := map[string]*Entry{}
	var order []string
	for _, e := range ents {
		key, ok := keyOf(e)
		if !ok {
			continue
		}
		en := byKey[key]
		if en == nil {
			en = &Entry{Key: key}
			byKey[key] = en
			order = append(order, key)
		}
		size, used, err := measure(filepath.Join(root, e.Name()))
		if err != nil {
			return nil, err
		}
		en.Paths = append(en.Paths, e.Name())
		if strings.HasPrefix(e.Name(), sourcePrefix) {
			en.Sources = readSources(filepath.Join(root, e.Name()))
		}
		en.Stamp = strings.HasPrefix(e.Name(), "stamp-")
		en.Size += size
		if used.After(en.Used) {
			en.Used = used
		}
	}
	out := make([]Entry, 0, len(order))
	for _, k := range order {
		out = append(out, *byKey[k])
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Used.Before(out[j].Used) })
	return out, nil
}

// keyOf groups a cache item under its content hash. Links are never
// followed or counted.
func keyOf(e fs.DirEntry) (string, bool) {
	name := e.Name()
	if e.Type()&fs.ModeSymlink != 0 {
		return "", false
	}
	switch {
	case e.IsDir() && strings.HasPrefix(name, "index-v"):
		i := strings.LastIndexByte(name, '-')
		return name[i+1:], i > len("index-v")
	case !e.IsDir() && strings.HasPrefix(name, "catalog-") && strings.HasSuffix(name, ".bin"):
		hash, _, ok := strings.Cut(strings.TrimPrefix(name, "catalog-"), "-")
		return hash, ok && hash != ""
	case !e.IsDir() && strings.HasPrefix(name, sourcePrefix):
		hash := strings.TrimPrefix(name, sourcePrefix)
		return hash, hash != ""
	case !e.IsDir() && strings.HasPrefix(name, "stamp-"):
		return name, true
	}
	return "", false
}

// measure sums the sizes of the files below path and finds their latest
// modification time (the path's own included).
func measure(path string) (size int64, used time.Time, err error) {
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed while we walk: someone else pruned it
			}
			return err
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if info.Mode().IsRegular() {
			size += info.Size()
		}
		if p == path && info.ModTime().After(used) {
			used = info.ModTime()
		}
		return nil
	})
	return size, used, err
}

// Size is the total size of the cache's entries.
func Size(root string) (int64, error) {
	ents, err := Entries(root)
	var n int64
	for _, e := range ents {
		n += e.Size
	}
	return n, err
}

// Touch marks the entry of hash as used now, so eviction takes it last.
// Failures are ignored: it only orders eviction.
func Touch(root, hash string, now time.Time) {
	ents, err := os.ReadDir(root)
	if err != nil || hash == "" {
		return
	}
	for _, e := range ents {
		if key, ok := keyOf(e); ok && key == hash {
			os.Chtimes(filepath.Join(root, e.Name()), now, now)
		}
	}
}

// Use is what a command does each time it serves an agent from the
// cache: it records that the entry of hash serves src, marks it used now
// and prunes the least recently used others past max bytes. The error is
// Prune's; the rest only labels and orders entries.
func Use(root, hash string, src Source, max int64) error {
	Record(root, hash, src)
	Touch(root, hash, time.Now())
	_, err := Prune(root, max, hash)
	return err
}

// Prune removes least recently used entries until the cache holds at most
// max bytes, never the entry of keep (the agent being served now). It
// returns what it removed.
func Prune(root string, max int64, keep string) ([]Entry, error) {
	ents, err := Entries(root)
	if err != nil {
		return nil, err
	}
	var total int64
	for _, e := range ents {
		total += e.Size
	}
	var removed []Entry
	for _, e := range ents {
		if total <= max {
			break
		}
		if e.Key == keep {
			continue
		}
		if err := remove(root, e); err != nil {
			return removed, err
		}
		total -= e.Size
		removed = append(removed, e)
	}
	return removed, nil
}

// remove deletes an entry's paths. A directory is renamed aside first, so
// a process that opens the entry by name meanwhile finds none rather than
// half of one (the router rebuilds it).
func remove(root string, e Entry) error {
	for _, p := range e.Paths {
		full := filepath.Join(root, p)
		st, err := os.Lstat(full)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if !st.IsDir() {
			if err := os.Remove(full); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			continue
		}
		trash, err := os.MkdirTemp(root, ".trash-")
		if err != nil {
			return err
		}
		if err := os.Rename(full, filepath.Join(trash, "entry")); err != nil && !errors.Is(err, fs.ErrNotExist) {
			os.Remove(trash)
			return err
		}
		if err := os.RemoveAll(trash); err != nil {
			return err
		}
	}
	return nil
}
