package skillsync

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/agent3md/agent3md/internal/textclip"
	"github.com/agent3md/agent3md/mcpclient"
)

// remote is one skill as the source offers it: where it is, and every
// file it holds with the digest and size the server gave, when it gave
// them.
type remote struct {
	// Name is the skill's Agent Skills name: its folder's name under DIR.
	Name string
	// URI is its SKILL.md URI, Root its directory (URI without /SKILL.md).
	URI, Root string
	// Files are its files, SKILL.md among them, each once.
	Files []remoteFile
	// Frontmatter is the frontmatter skills/list gave (nil otherwise);
	// SKILL.md's own must agree with it.
	Frontmatter map[string]any
	// Verified says every file has a digest from the server; otherwise
	// files are read to know whether they changed.
	Verified bool
	// Problem refuses the skill: its listing cannot be synced.
	Problem string

	root []string // Root's decoded segments
}

// remoteFile is one file of a remote skill.
type remoteFile struct {
	// Path is its slash path inside the skill folder.
	Path string
	// URI is what resources/read reads it by.
	URI string
	// Digest is "sha256:<64 lowercase hex>", "" when the server gave none.
	Digest string
	// Size is its size in bytes, -1 when the server gave none.
	Size int64
}

var digestRE = regexp.MustCompile(`^sha256:[0-9a-fA-F]{64}$`)

// normDigest checks a digest's form and lowers its hex.
func normDigest(d string) (string, error) {
	if !digestRE.MatchString(d) {
		return "", fmt.Errorf("digest %q is not sha256:<64 hex digits>", textclip.Bytes(d, quoteBytes))
	}
	return strings.ToLower(d), nil
}

// newRemote starts a remote skill from its SKILL.md URI
// (skill://<skill-path>/SKILL.md); a URI that does not name a valid skill
// is an error.
func newRemote(uri string) (*remote, error) {
	segs, err := uriSegments(uri)
	if err != nil {
		return nil, err
	}
	if len(segs) < 2 || segs[len(segs)-1] != "SKILL.md" {
		return nil, fmt.Errorf("%q is not a skill's SKILL.md URI (skill://<name>/SKILL.md)", textclip.Bytes(uri, quoteBytes))
	}
	root := segs[:len(segs)-1]
	name := root[len(root)-1]
	if err := checkName(name); err != nil {
		return nil, fmt.Errorf("%s: %w", textclip.Bytes(uri, quoteBytes), err)
	}
	for _, s := range root {
		if s == "" || s == "." || s == ".." {
			return nil, fmt.Errorf("%q has an empty, . or .. element in its skill path", textclip.Bytes(uri, quoteBytes))
		}
	}
	return &remote{Name: name, URI: uri, Root: strings.TrimSuffix(uri, "/SKILL.md"), root: root}, nil
}

// addFile adds a file by its URI, checking its path and bounds.
func (r *remote) addFile(uri, digest string, size int64, lim *Limits) error {
	p, err := relPath(r.root, uri)
	if err != nil {
		return err
	}
	if digest != "" {
		if digest, err = normDigest(digest); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	if size > lim.MaxFileBytes {
		return fmt.Errorf("%s is %d bytes, over the %d-byte file limit (--max-file-bytes)", p, size, lim.MaxFileBytes)
	}
	if len(r.Files) >= lim.MaxSkillFiles {
		return fmt.Errorf("more than %d files (--max-skill-files)", lim.MaxSkillFiles)
	}
	r.Files = append(r.Files, remoteFile{Path: p, URI: uri, Digest: digest, Size: size})
	return nil
}

// finish checks the whole file list: SKILL.md present, no collisions,
// within the skill's size bound; it sets Verified.
func (r *remote) finish(lim *Limits) error {
	paths := make([]string, len(r.Files))
	var total int64
	r.Verified = true
	hasSkillMD := false
	for i, f := range r.Files {
		paths[i] = f.Path
		hasSkillMD = hasSkillMD || f.Path == "SKILL.md"
		if f.Size > 0 {
			total += f.Size
		}
		r.Verified = r.Verified && f.Digest != "" && f.Size >= 0
	}
	if !hasSkillMD {
		return fmt.Errorf("its file list has no SKILL.md")
	}
	if total > lim.MaxSkillBytes {
		return fmt.Errorf("its files total %d bytes, over the %d-byte skill limit (--max-skill-bytes)", total, lim.MaxSkillBytes)
	}
	return checkCollisions(paths)
}

// refuse marks the skill refused with why, dropping its files.
func (r *remote) refuse(format string, args ...any) {
	if r.Problem == "" {
		r.Problem = fmt.Sprintf(format, args...)
	}
	r.Files = nil
	r.Verified = false
}

// fileURI is the URI of a file of the skill by its path, escaped as a
// URI path: what the convention's skill://{name}/{+path} template gives.
func (r *remote) fileURI(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = escapeSegment(s)
	}
	return r.Root + "/" + strings.Join(segs, "/")
}

// escapeSegment escapes one path element for a URI.
func escapeSegment(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~!$&'()*+,;=:@", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// fromEntry reads a skills/list entry; dynamic reports resources
// "dynamic" (the files are then listed by directory reads). A listing it
// cannot use gives a remote with Problem set when its URI names a skill,
// else an error.
func fromEntry(e mcpclient.SkillEntry, lim *Limits) (r *remote, dynamic bool, err error) {
	r, err = newRemote(e.URI)
	if err != nil {
		return nil, false, err
	}
	if len(e.Frontmatter) > lim.MaxFrontmatterBytes {
		r.refuse("skills/list gives %d bytes of frontmatter, over the %d-byte bound (--max-frontmatter-bytes)", len(e.Frontmatter), lim.MaxFrontmatterBytes)
		return r, false, nil
	}
	var fm map[string]any
	if err := json.Unmarshal(e.Frontmatter, &fm); err != nil || fm == nil {
		r.refuse("skills/list gives no frontmatter object")
		return r, false, nil
	}
	if n, _ := fm["name"].(string); n != r.Name {
		r.refuse("its frontmatter name %q differs from the last segment of its URI, %q", textclip.Bytes(n, quoteBytes), r.Name)
		return r, false, nil
	}
	r.Frontmatter = fm
	files, dynamic, err := e.Files()
	switch {
	case err != nil:
		r.refuse("%v", err)
		return r, false, nil
	case dynamic:
		return r, true, nil
	}
	for _, f := range files {
		if f.Digest == "" {
			r.refuse("file %s has no digest", textclip.Bytes(f.URI, quoteBytes))
			return r, false, nil
		}
		// A size left out reads as 0: the bytes then fail its check.
		if err := r.addFile(f.URI, f.Digest, f.Size, lim); err != nil {
			r.refuse("%v", err)
			return r, false, nil
		}
	}
	if err := r.finish(lim); err != nil {
		r.refuse("%v", err)
	}
	return r, false, nil
}

// manifest is the skills-as-resources convention's skill://<name>/_manifest.
type manifest struct {
	Skill string `json:"skill"`
	Files []struct {
		Path string `json:"path"`
		Size *int64 `json:"size"`
		Hash string `json:"hash"`
	} `json:"files"`
}

// applyManifest fills r's files from its _manifest's bytes.
func (r *remote) applyManifest(data []byte, lim *Limits) {
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		r.refuse("its _manifest is not {\"skill\", \"files\": [{path, size, hash}]}: %v", err)
		return
	}
	if m.Skill != "" && m.Skill != r.Name {
		r.refuse("its _manifest names skill %q", textclip.Bytes(m.Skill, quoteBytes))
		return
	}
	for _, f := range m.Files {
		if err := checkFilePath(f.Path); err != nil {
			r.refuse("its _manifest lists %v", err)
			return
		}
		size := int64(-1)
		if f.Size != nil {
			size = *f.Size
		}
		if err := r.addFile(r.fileURI(f.Path), f.Hash, size, lim); err != nil {
			r.refuse("its _manifest: %v", err)
			return
		}
	}
	if err := r.finish(lim); err != nil {
		r.refuse("its _manifest: %v", err)
	}
}
