package router

import (
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
)

// A cache entry, <CacheDir>/index-v<SchemaVersion>-<ContentHash>/ (doc.go,
// "Index lifecycle"), holds manifest.json, the bleve index under bleve/,
// phrases.bin, stats.bin and bodies.bin (internal/listfile); built under
// ".build-*" beside it and renamed into place, so a reader sees a whole
// entry or none.
const (
	manifestName    = "manifest.json"
	indexSubdir     = "bleve"
	maxManifestSize = 1 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// manifest says what a cache entry is; every field is checked.
type manifest struct {
	Schema      int        `json:"schema"`
	ContentHash string     `json:"contentHash"`
	Skills      int        `json:"skills"`
	Fingerprint uint32     `json:"fingerprint"` // CRC-32C over every indexed skill field
	Files       []fileMark `json:"files"`       // every other file in the entry, sorted by path
}

type fileMark struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
	CRC  uint32 `json:"crc32c"`
}

// entryDir returns o's cache directory (Options.CacheDir, else
// $XDG_CACHE_HOME/agent3md, else ~/.cache/agent3md) and the entry in it
// for o.ContentHash, which becomes a path element: only hex digits.
func entryDir(o *Options) (root, entry string, err error) {
	root = o.CacheDir
	if x := os.Getenv("XDG_CACHE_HOME"); root == "" && x != "" {
		root = filepath.Join(x, "agent3md")
	} else if root == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", "", fmt.Errorf("router: no cache directory (set XDG_CACHE_HOME or --cache-dir): %w", err)
		}
		root = filepath.Join(home, ".cache", "agent3md")
	}
	hash := o.ContentHash
	if hash == "" || len(hash) > 128 {
		return "", "", fmt.Errorf("router: content hash must be 1-128 hex digits, got %d bytes", len(hash))
	}
	if strings.Trim(hash, "0123456789abcdefABCDEF") != "" {
		return "", "", fmt.Errorf("router: content hash %q is not hexadecimal", hash)
	}
	return root, filepath.Join(root, fmt.Sprintf("index-v%d-%s", SchemaVersion, hash)), nil
}

// fingerprint is a CRC-32C over everything the index holds about skills
// (their bodies by their checksums, and how many terms of each it keeps),
// so an entry built from other skills under the same hash is caught.
func fingerprint(in *corpus) uint32 {
	var crc uint32
	skills, bodies := in.skills, in.bodies()
	buf := make([]byte, 0, 64<<10)
	if bodies != nil {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(in.bodyTerms))
	}
	for i, n := 0, skills.Len(); i < n; i++ {
		s := skills.Skill(i)
		buf = appendStr(buf, s.Name)
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(s.Z))
		buf = binary.LittleEndian.AppendUint64(buf, uint64(len(s.Triggers)))
		for _, t := range s.Triggers {
			buf = appendStr(buf, t)
		}
		buf = appendStr(buf, s.Description)
		buf = appendStr(buf, s.Tool)
		buf = binary.LittleEndian.AppendUint64(buf, uint64(len(s.Inputs)))
		for _, in := range s.Inputs {
			buf = appendStr(buf, in)
		}
		if bodies != nil {
			buf = binary.LittleEndian.AppendUint32(buf, bodies.BodySum(i))
		}
		if len(buf) >= 48<<10 {
			crc = crc32.Update(crc, castagnoli, buf)
			buf = buf[:0]
		}
	}
	return crc32.Update(crc, castagnoli, buf)
}

func appendStr(buf []byte, s string) []byte {
	buf = binary.LittleEndian.AppendUint64(buf, uint64(len(s)))
	return append(buf, s...)
}

// markFiles lists every regular file under entry but its manifest, with
// its size and CRC-32C.
func markFiles(entry string) ([]fileMark, error) {
	var marks []fileMark
	manifest := filepath.Join(entry, manifestName)
	err := filepath.WalkDir(entry, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == manifest {
			return err
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file", p)
		}
		rel, err := filepath.Rel(entry, p)
		if err != nil {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		h := crc32.New(castagnoli)
		n, err := io.Copy(h, f)
		if err != nil {
			return err
		}
		marks = append(marks, fileMark{Path: filepath.ToSlash(rel), Size: n, CRC: h.Sum32()})
		return nil
	})
	slices.SortFunc(marks, func(a, b fileMark) int { return strings.Compare(a.Path, b.Path) })
	return marks, err
}

// writeManifest records entry's index files; it is written last, so an
// entry without one is incomplete.
func writeManifest(entry, hash string, skills int, fp uint32) error {
	files, err := markFiles(entry)
	if err != nil {
		return fmt.Errorf("router: checksumming new index: %w", err)
	}
	m := manifest{Schema: SchemaVersion, ContentHash: hash, Skills: skills, Fingerprint: fp, Files: files}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(entry, manifestName), data, 0o644)
}

// errBadEntry marks a cache entry that must not be trusted.
var errBadEntry = errors.New("cache entry rejected")

// verifyEntry checks entry's manifest (schema, hash and, unless skills
// is negative, skill count) and every file against it. The caller
// compares the fingerprint later: computing it takes as long as opening
// the entry.
func verifyEntry(entry, hash string, skills int) (*manifest, error) {
	bad := func(format string, args ...any) (*manifest, error) {
		return nil, fmt.Errorf("%w: %s: %s", errBadEntry, entry, fmt.Sprintf(format, args...))
	}
	f, err := os.Open(filepath.Join(entry, manifestName))
	if err != nil {
		return bad("no manifest: %v", err)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxManifestSize+1))
	f.Close()
	if err != nil {
		return bad("reading manifest: %v", err)
	}
	if len(data) > maxManifestSize {
		return bad("manifest larger than %d bytes", maxManifestSize)
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return bad("manifest is not valid JSON: %v", err)
	}
	switch {
	case m.Schema != SchemaVersion:
		return bad("schema %d, want %d", m.Schema, SchemaVersion)
	case m.ContentHash != hash:
		return bad("built for content %q, want %q", m.ContentHash, hash)
	case skills >= 0 && m.Skills != skills:
		return bad("holds %d skills, want %d", m.Skills, skills)
	}
	files, err := markFiles(entry)
	if err != nil {
		return bad("reading index files: %v", err)
	}
	if !slices.Equal(files, m.Files) {
		return bad("index files differ from the manifest (truncated or modified)")
	}
	return &m, nil
}

func openReadOnly(entry string) (bleve.Index, error) {
	return bleve.OpenUsing(filepath.Join(entry, indexSubdir), map[string]interface{}{"read_only": true})
}

// discard removes a rejected entry: renamed aside first, so the name is
// free at once for a rebuilt entry, then deleted.
func discard(root, entry string) {
	trash, err := os.MkdirTemp(root, ".trash-")
	if err == nil {
		defer os.RemoveAll(trash)
		err = os.Rename(entry, filepath.Join(trash, "entry"))
	}
	if err != nil {
		os.RemoveAll(entry)
	}
}

// cached is an index obtained through the cache.
type cached struct {
	idx     bleve.Index
	phrases *phraseIndex
	bodies  *bodyIndex // nil without bodies, or, on a reused entry, until read
	stats   *termStats // on a reused entry, nil until read
	builtFP uint32     // a reused entry's recorded fingerprint, still to check
	kind    string
	path    string
	reason  string
	cleanup func()
}

func (c *cached) close() { closeIndex(c.idx, c.cleanup) }

// closeIndex closes idx, when there is one, then removes a temporary
// index (cleanup, when set).
func closeIndex(idx bleve.Index, cleanup func()) error {
	var err error
	if idx != nil {
		err = idx.Close()
	}
	if cleanup != nil {
		cleanup()
	}
	return err
}

// openCached reopens the cache entry for hash when it checks out, else
// builds it. Losing a race to another process building it is fine: the
// winner's entry is used, or, if it fails to check out, this build.
func openCached(ctx context.Context, root, entry, hash string, in *corpus, progress func(int, int)) (*cached, error) {
	skills := in.skills
	// The fingerprint (~40 ms at 100,000 skills) is computed once, if needed.
	fp := sync.OnceValue(func() uint32 { return fingerprint(in) })
	c, err := openEntry(ctx, root, entry, hash, in, fp, progress)
	if err != nil {
		return nil, err
	}
	if c.kind == IndexCacheHit && fp() != c.builtFP {
		c.idx.Close()
		discard(root, c.path)
		reason := fmt.Sprintf("%v: %s: built from different skills (fingerprint %08x, want %08x)", errBadEntry, c.path, c.builtFP, fp())
		if c, err = openEntry(ctx, root, entry, hash, in, fp, progress); err != nil {
			return nil, err
		}
		c.reason = cmp.Or(c.reason, reason)
	}
	if c.phrases == nil {
		c.phrases, err = readPhrases(filepath.Join(c.path, phrasesName), skills)
		if err != nil { // checked by the manifest, so only a race gets here
			c.phrases = buildPhrases(skills)
		}
	}
	if c.stats == nil {
		if err := c.readStats(ctx, skills.Len()); err != nil {
			c.close()
			return nil, err
		}
	}
	if c.bodies == nil && in.bodies() != nil {
		c.bodies, err = readBodyIndex(filepath.Join(c.path, bodiesName), skills.Len())
		if err != nil { // checked by the manifest, so only a race gets here
			if c.bodies, err = buildBodies(ctx, in); err != nil {
				c.close()
				return nil, err
			}
		}
	}
	return c, nil
}

// readStats reads a reused entry's term statistics from its file, else
// (a writer's fault, or a race) out of its index, saying so in c.reason.
func (c *cached) readStats(ctx context.Context, skills int) error {
	var err error
	if c.stats, err = readStats(filepath.Join(c.path, statsName), skills); err == nil {
		return nil
	}
	why := fmt.Sprintf("term statistics read from the index instead of their file: %v", err)
	if c.stats, err = statsFromIndex(ctx, c.idx, skills); err != nil {
		return err
	}
	c.reason = strings.TrimPrefix(c.reason+"; "+why, "; ")
	return nil
}

// statsOfBuilt reads the term statistics of a just-built index at dir.
func statsOfBuilt(ctx context.Context, dir string, skills int) (*termStats, error) {
	idx, err := openReadOnly(dir)
	if err != nil {
		return nil, fmt.Errorf("router: opening built index %s: %w", dir, err)
	}
	ts, err := statsFromIndex(ctx, idx, skills)
	if cerr := idx.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("router: closing built index %s: %w", dir, cerr)
	}
	return ts, err
}

// openEntry is openCached but the phrase index and statistics of a reused entry.
func openEntry(ctx context.Context, root, entry, hash string, in *corpus, fp func() uint32, progress func(int, int)) (*cached, error) {
	skills := in.skills
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("router: creating cache directory: %w", err)
	}
	var reason string
	if _, err := os.Stat(entry); err == nil {
		if m, err := verifyEntry(entry, hash, skills.Len()); err != nil {
			reason = err.Error()
		} else if idx, err := openReadOnly(entry); err != nil {
			reason = fmt.Sprintf("cache entry %s unreadable: %v", entry, err)
		} else {
			return &cached{idx: idx, kind: IndexCacheHit, path: entry, builtFP: m.Fingerprint}, nil
		}
		discard(root, entry)
	}
	sweepStale(root, time.Now().Add(-staleAge))
	tmp, err := os.MkdirTemp(root, ".build-"+filepath.Base(entry)+"-")
	if err != nil {
		return nil, fmt.Errorf("router: creating build directory: %w", err)
	}
	c, err := fillEntry(ctx, tmp, hash, in, fp, progress)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	c.path, c.reason = entry, reason
	if err := os.Rename(tmp, entry); err == nil {
		c.kind = IndexCacheBuilt
		if c.idx, err = openReadOnly(entry); err != nil {
			return nil, fmt.Errorf("router: opening new cache entry %s: %w", entry, err)
		}
		return c, nil
	}
	// Someone else renamed an entry into place first.
	if m, err := verifyEntry(entry, hash, skills.Len()); err == nil && m.Fingerprint == fp() {
		if idx, err := openReadOnly(entry); err == nil {
			os.RemoveAll(tmp)
			c.idx, c.kind, c.builtFP = idx, IndexCacheHit, m.Fingerprint
			return c, nil
		}
	}
	if c.idx, err = openReadOnly(tmp); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("router: opening built index %s: %w", tmp, err)
	}
	c.kind, c.path, c.reason, c.cleanup = IndexTemp, tmp, "another process holds the cache entry", func() { os.RemoveAll(tmp) }
	return c, nil
}

// fillEntry builds a cache entry's files in the directory tmp; it
// returns them, without the bleve index, as a cached to open.
func fillEntry(ctx context.Context, tmp, hash string, in *corpus, fp func() uint32, progress func(int, int)) (*cached, error) {
	n := in.skills.Len()
	bodies, err := buildOffline(ctx, filepath.Join(tmp, indexSubdir), tmp, in, progress)
	if err != nil {
		return nil, err
	}
	if bodies != nil {
		if err := writeBodyIndex(filepath.Join(tmp, bodiesName), bodies); err != nil {
			return nil, fmt.Errorf("router: writing body index: %w", err)
		}
	}
	c := &cached{phrases: buildPhrases(in.skills), bodies: bodies, stats: in.stats}
	if err := writePhrases(filepath.Join(tmp, phrasesName), c.phrases); err != nil {
		return nil, fmt.Errorf("router: writing phrase index: %w", err)
	}
	// A background router's statistics are the index's (TestStatsFromBleve).
	if c.stats == nil {
		if c.stats, err = statsOfBuilt(ctx, tmp, n); err != nil {
			return nil, err
		}
	}
	if err := writeStats(filepath.Join(tmp, statsName), c.stats); err != nil {
		return nil, fmt.Errorf("router: writing term statistics: %w", err)
	}
	return c, writeManifest(tmp, hash, n, fp())
}

// staleAge is when a build or trash directory is a dead process's: far
// longer than any build.
const staleAge = 6 * time.Hour

// sweepStale removes build and trash directories in root last modified
// before cutoff. Failures are ignored: this is housekeeping.
func sweepStale(root string, cutoff time.Time) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() || !(strings.HasPrefix(name, ".build-") || strings.HasPrefix(name, ".trash-")) {
			continue
		}
		if info, err := e.Info(); err == nil && info.ModTime().Before(cutoff) {
			os.RemoveAll(filepath.Join(root, name))
		}
	}
}
