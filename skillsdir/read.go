package skillsdir

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/agent3md/agent3md/internal/digest"
	"github.com/agent3md/agent3md/internal/textclip"
)

// readAttempts bounds how often a read starts over because the file or
// its skill changed meanwhile; past it the read fails with ErrChanged.
const readAttempts = 3

// Content is one file read from a skill, checked against the catalog.
type Content struct {
	// Skill is the entry the bytes were checked against: after a change on
	// disk, the re-scanned one.
	Skill *Skill
	File  File
	Data  []byte
	// Text reports valid UTF-8 without NUL bytes; MIME is File.MIME, or
	// text/plain for text whose extension says nothing.
	Text bool
	MIME string
	// Digest is "sha256:<64 lowercase hex>" of Data.
	Digest string
}

// cleanRel checks a client's relative path and returns it cleaned. It
// refuses rather than repairs: a path with "..", a backslash, a NUL or a
// leading "/" is never one a listing produced.
func cleanRel(rel string) (string, error) {
	switch {
	case rel == "":
		return "", fmt.Errorf("empty file path: %w", ErrRefused)
	case strings.ContainsAny(rel, "\\\x00"):
		return "", fmt.Errorf("file path %q holds a backslash or NUL: %w", textclip.Bytes(rel, 120), ErrRefused)
	case strings.HasPrefix(rel, "/") || filepath.IsAbs(rel):
		return "", fmt.Errorf("file path %q is absolute; give it relative to the skill folder: %w", textclip.Bytes(rel, 120), ErrRefused)
	}
	for seg := range strings.SplitSeq(rel, "/") {
		if seg == ".." {
			return "", fmt.Errorf("file path %q leaves the skill folder: %w", textclip.Bytes(rel, 120), ErrRefused)
		}
	}
	return path.Clean(rel), nil
}

// ReadFile reads the file rel of skill name: SKILL.md or any listed file.
// The path is checked (cleanRel), resolved with its symlinks at read time
// and must stay inside the skill folder; only regular files up to
// MaxFileBytes are opened. When the file's signature differs from the
// scan's, the skill is re-scanned and the bytes are returned only if they
// match the fresh entry: a caller never gets bytes that disagree with the
// Content.Skill it is given.
func (c *Catalog) ReadFile(ctx context.Context, name, rel string) (*Content, error) {
	rel, err := cleanRel(rel)
	if err != nil {
		return nil, fmt.Errorf("skill %q: %w", textclip.Bytes(name, 120), err)
	}
	s, ok := c.Skill(name)
	if !ok {
		return nil, fmt.Errorf("skill %q is not served: %w", textclip.Bytes(name, 120), ErrNotFound)
	}
	for range readAttempts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		i, ok := s.file(rel)
		if !ok {
			return nil, fmt.Errorf("skill %q serves no file %q: %w", name, textclip.Bytes(rel, 120), ErrNotFound)
		}
		data, sg, err := c.readChecked(s, rel)
		if err != nil && !errors.Is(err, errStale) {
			return nil, fmt.Errorf("skill %q file %q: %w", name, textclip.Bytes(rel, 120), err)
		}
		if err == nil && sg == s.Files[i].sig {
			return s.content(i, data), nil
		}
		// The file or folder changed since the scan: re-scan the skill and
		// serve the bytes only if they are what the fresh scan saw.
		fresh, rerr := c.Rescan(ctx, name)
		if rerr != nil {
			return nil, rerr
		}
		s = fresh
		if j, ok := s.file(rel); ok && err == nil && s.Files[j].sig == sg {
			return s.content(j, data), nil
		}
	}
	return nil, fmt.Errorf("skill %q file %q kept changing during %d reads: %w", name, rel, readAttempts, ErrChanged)
}

// errStale: the skill folder no longer resolves where it did at scan, or
// the file is gone; the skill is re-scanned.
var errStale = errors.New("stale")

// readChecked reads rel inside s's folder; errStale when the folder is
// no longer the directory scanned or the file is gone.
func (c *Catalog) readChecked(s *Skill, rel string) ([]byte, sig, error) {
	data, sg, err := readInside(s.realDir, s.dirID, rel, c.opts.MaxFileBytes)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		// A file made unreadable since the scan (a chmod) is re-scanned
		// too, which leaves it out, rather than failing every manifest
		// of the skill.
		return nil, sig{}, errStale
	}
	return data, sg, err
}

// content builds the Content of file i from data, caching its digest for
// this signature.
func (s *Skill) content(i int, data []byte) *Content {
	f := s.Files[i]
	sum := s.sums[i].Load()
	if sum == nil {
		v := sha256.Sum256(data)
		sum = &v
		s.sums[i].Store(sum)
	}
	ct := &Content{Skill: s, File: f, Data: data, MIME: f.MIME, Digest: digest.Sum(*sum)}
	ct.Text = utf8.Valid(data) && !strings.ContainsRune(string(data), 0)
	if ct.Text && f.MIME == mimeBinary {
		ct.MIME = mimeText
	}
	return ct
}

// Body returns skill name's SKILL.md body (the Markdown after the
// frontmatter) and the skill entry it was checked against.
func (c *Catalog) Body(ctx context.Context, name string) (string, *Skill, error) {
	ct, err := c.ReadFile(ctx, name, "SKILL.md")
	if err != nil {
		return "", nil, err
	}
	off := min(ct.Skill.BodyOffset, int64(len(ct.Data)))
	return string(ct.Data[off:]), ct.Skill, nil
}

// Digest returns "sha256:<hex>" of skill name's file rel and the skill
// entry it belongs to, reading the file once per signature (later calls
// answer from the cache after a stat).
func (c *Catalog) Digest(ctx context.Context, name, rel string) (string, *Skill, error) {
	rel, err := cleanRel(rel)
	if err != nil {
		return "", nil, err
	}
	if s, ok := c.Skill(name); ok {
		if i, ok := s.file(rel); ok {
			if sum := s.sums[i].Load(); sum != nil && c.unchanged(s, i) {
				return digest.Sum(*sum), s, nil
			}
		}
	}
	ct, err := c.ReadFile(ctx, name, rel)
	if err != nil {
		return "", nil, err
	}
	return ct.Digest, ct.Skill, nil
}

// unchanged reports whether file i still has its scanned signature. It
// only decides whether a cached digest may be reused: a stat through the
// resolved folder, without the read's guarantees.
func (c *Catalog) unchanged(s *Skill, i int) bool {
	fi, err := os.Stat(filepath.Join(s.realDir, filepath.FromSlash(s.Files[i].Path)))
	return err == nil && fi.Mode().IsRegular() && sigOf(fi) == s.Files[i].sig
}

// Manifest returns skill name's entry with the digest of each of its
// Files, all from that one entry: when a file turns out changed midway,
// the skill is re-scanned and the digests start over, so the list a
// client checks never mixes two versions of the skill. Digests already
// known for a file's signature are not recomputed.
func (c *Catalog) Manifest(ctx context.Context, name string) (*Skill, []string, error) {
	for range readAttempts {
		s, ok := c.Skill(name)
		if !ok {
			return nil, nil, fmt.Errorf("skill %q is not served: %w", textclip.Bytes(name, 120), ErrNotFound)
		}
		digests, err := c.digests(ctx, s)
		if errors.Is(err, errStale) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		return s, digests, nil
	}
	return nil, nil, fmt.Errorf("skill %q kept changing during %d manifests: %w", name, readAttempts, ErrChanged)
}

// digests computes s's digests, errStale when a read found s outdated.
func (c *Catalog) digests(ctx context.Context, s *Skill) ([]string, error) {
	out := make([]string, len(s.Files))
	for i, f := range s.Files {
		if sum := s.sums[i].Load(); sum != nil && c.unchanged(s, i) {
			out[i] = digest.Sum(*sum)
			continue
		}
		ct, err := c.ReadFile(ctx, s.Name, f.Path)
		if errors.Is(err, ErrNotFound) {
			if _, ok := c.Skill(s.Name); ok {
				return nil, errStale // the file left the re-scanned skill
			}
		}
		if err != nil {
			return nil, err
		}
		if ct.Skill != s {
			return nil, errStale
		}
		out[i] = ct.Digest
	}
	return out, nil
}
