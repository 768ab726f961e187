package loader

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agent3md/agent3md/internal/digest"
	"github.com/agent3md/agent3md/internal/textclip"
	"github.com/agent3md/agent3md/skillsdir"
	"github.com/agent3md/agent3md/skillsdir/export"
)

// SkillFile is one file of a skill's Agent Skills directory, whatever the
// agent is served from (docs/protocol.md §9): for an agent file, the
// rendered SKILL.md and references/<dep>.md; for skill folders, the
// folder's own files.
type SkillFile struct {
	// Path is slash-separated, relative to the skill's directory.
	Path string
	Size int64
	// MIME is the file's type: text/markdown for rendered files; for a
	// folder's files, by extension in a listing and refined by the bytes
	// on a read (text without a telling extension is text/plain).
	MIME string
	// Digest is "sha256:<64 lowercase hex>" of the file's bytes.
	Digest string
	// Text reports bytes that are UTF-8 text without NUL: from a listing,
	// as the MIME type suggests; from a read, as the bytes are.
	Text bool
}

// ErrNoSkillFile is wrapped when a skill serves no file at the path asked
// for (or the path is one no listing produces: absolute, with "..").
var ErrNoSkillFile = errors.New("the skill serves no such file")

const (
	skillMDFile  = "SKILL.md"
	markdownMIME = "text/markdown"
)

// SkillFiles lists the files of the skill whose Agent Skills name is
// slug, SKILL.md first, then the others (references in resolve order for
// an agent file; by path for a folder), with sizes and digests of exactly
// the bytes ReadSkillFile returns from the same version. For a folder the
// first listing reads every file once to hash it; later ones reuse the
// digests while the files keep their signatures.
func (a *Agent) SkillFiles(ctx context.Context, slug string) ([]SkillFile, error) {
	var out []SkillFile
	err := a.view(ctx, func(st *state) error {
		i, err := st.bySlugErr(slug)
		if err != nil {
			return err
		}
		if st.folder == nil {
			r, err := st.render(ctx, i)
			if err != nil {
				return err
			}
			out = renderedFiles(r)
			return nil
		}
		s := st.folder.skills[i]
		got, digests, err := st.folder.cat.Manifest(ctx, s.Name)
		if err != nil {
			return folderErr(s, err)
		}
		if got != s {
			return fmt.Errorf("skill %s changed since the scan: %w", s.Name, errStale)
		}
		out = make([]SkillFile, 0, len(s.Files))
		for k, f := range s.Files {
			sf := SkillFile{Path: f.Path, Size: f.Size, MIME: f.MIME, Digest: digests[k], Text: textMIME(f.MIME)}
			if f.Path == skillMDFile {
				sf.MIME, sf.Text = markdownMIME, true
				out = append([]SkillFile{sf}, out...)
				continue
			}
			out = append(out, sf)
		}
		return nil
	})
	return out, err
}

// ReadSkillFile returns one file of the skill whose Agent Skills name is
// slug, with its entry. An unserved path wraps ErrNoSkillFile; an unknown
// slug is an *UnknownSkillError. A folder's file is read from disk, its
// path resolved inside the skill folder at read time, and returned only
// if it is the version this Agent scanned (else, for a pinned Agent, an
// error wrapping ErrStale).
func (a *Agent) ReadSkillFile(ctx context.Context, slug, path string) ([]byte, SkillFile, error) {
	var (
		data []byte
		out  SkillFile
	)
	err := a.view(ctx, func(st *state) error {
		i, err := st.bySlugErr(slug)
		if err != nil {
			return err
		}
		if st.folder == nil {
			r, err := st.render(ctx, i)
			if err != nil {
				return err
			}
			if path == skillMDFile {
				data, out = r.Text, renderedFiles(r)[0]
				return nil
			}
			for k, ref := range r.References {
				if ref.Path == path {
					data, out = ref.Text, renderedFiles(r)[k+1]
					return nil
				}
			}
			return fmt.Errorf("skill %s, file %q: %w", slug, textclip.Runes(path, 120), ErrNoSkillFile)
		}
		s := st.folder.skills[i]
		ct, err := st.folder.cat.ReadFile(ctx, s.Name, path)
		if err != nil {
			if errors.Is(err, skillsdir.ErrRefused) || (errors.Is(err, skillsdir.ErrNotFound) && !served(s, path)) {
				return fmt.Errorf("skill %s, file %q: %w", slug, textclip.Runes(path, 120), ErrNoSkillFile)
			}
			return folderErr(s, err)
		}
		if ct.Skill != s {
			return fmt.Errorf("skill %s, file %s changed since the scan: %w", s.Name, path, errStale)
		}
		data = ct.Data
		out = SkillFile{Path: ct.File.Path, Size: int64(len(ct.Data)), MIME: ct.MIME, Digest: ct.Digest, Text: ct.Text}
		if out.Path == skillMDFile {
			out.MIME = markdownMIME
		}
		return nil
	})
	if err != nil {
		return nil, SkillFile{}, err
	}
	return data, out, nil
}

// Frontmatter returns the SKILL.md frontmatter of the skill whose Agent
// Skills name is slug, as a YAML parser yields it; shared, not to be
// modified.
func (a *Agent) Frontmatter(slug string) (map[string]any, error) {
	snap := a.Snapshot()
	i, ok := snap.SlugIndex(slug)
	if !ok {
		return nil, &UnknownSkillError{Name: slug, Closest: closest(snap.st.slugList(), slug, 3)}
	}
	return snap.Frontmatter(i), nil
}

func (st *state) bySlugErr(slug string) (int, error) {
	i, ok := st.slugIndex()[slug]
	if !ok {
		return -1, &UnknownSkillError{Name: slug, Closest: closest(st.slugList(), slug, 3)}
	}
	return i, nil
}

// served reports whether path is one of s's listed files.
func served(s *skillsdir.Skill, path string) bool {
	for _, f := range s.Files {
		if f.Path == path {
			return true
		}
	}
	return false
}

// folderErr maps a skill folder read's failure: a skill gone or changed
// under the read is stale (re-scan, or ErrStale when pinned).
func folderErr(s *skillsdir.Skill, err error) error {
	if errors.Is(err, skillsdir.ErrNotFound) || errors.Is(err, skillsdir.ErrChanged) {
		return fmt.Errorf("skill %s: %v: %w", s.Name, err, errStale)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("skill %s (%s): %w", s.Name, s.Dir, err)
}

// renderedFiles lists a rendering's files.
func renderedFiles(r *export.Rendered) []SkillFile {
	out := make([]SkillFile, 0, 1+len(r.References))
	out = append(out, SkillFile{Path: skillMDFile, Size: int64(len(r.Text)), MIME: markdownMIME, Digest: digest.FromHex(r.SHA256), Text: true})
	for _, ref := range r.References {
		out = append(out, SkillFile{Path: ref.Path, Size: int64(len(ref.Text)), MIME: markdownMIME, Digest: digest.FromHex(ref.SHA256), Text: true})
	}
	return out
}

// textMIME reports the types a listing calls text before any byte is read.
func textMIME(m string) bool {
	m, _, _ = strings.Cut(m, ";")
	switch {
	case strings.HasPrefix(m, "text/"), strings.HasSuffix(m, "+json"), strings.HasSuffix(m, "+xml"):
		return true
	}
	switch m {
	case "application/json", "application/xml", "application/javascript", "application/x-sh",
		"application/yaml", "application/x-yaml", "application/toml", "application/sql":
		return true
	}
	return false
}

// folderSkillMD is SkillMD for a folder: the SKILL.md as on disk.
func (st *state) folderSkillMD(ctx context.Context, i int) (*export.Rendered, error) {
	s := st.folder.skills[i]
	ct, err := st.folder.cat.ReadFile(ctx, s.Name, skillMDFile)
	if err != nil {
		return nil, folderErr(s, err)
	}
	if ct.Skill != s {
		return nil, fmt.Errorf("skill %s: %s changed since the scan: %w", s.Name, s.SkillMD(), errStale)
	}
	return &export.Rendered{Slug: s.Name, Text: ct.Data, SHA256: digest.Hex(ct.Digest), Frontmatter: s.Frontmatter}, nil
}
