package selftest

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agent3md/agent3md/internal/textclip"
	"github.com/agent3md/agent3md/mcpclient"
)

// What the skill checks read off the wire: skills as resources and the
// skills extension (docs/selftest.md §6).
const (
	skillScheme   = "skill://"
	skillFile     = "SKILL.md"
	manifestFile  = "_manifest"
	promptXMLURI  = "skill://prompt-xml"
	mimeMarkdown  = "text/markdown"
	mimeDirectory = "inode/directory"
	// maxFrontmatterBytes bounds the YAML the harness parses from one
	// SKILL.md: far above any real frontmatter, low enough that a hostile
	// one costs little.
	maxFrontmatterBytes = 64 << 10
	// maxSkillEntries and maxSkillBytes are the per-skill limits of the
	// skills extension: files listed, and their total size.
	maxSkillEntries = 512
	maxSkillBytes   = 16 << 20
)

// digestPattern is the only digest form the skills extension allows.
var digestPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// manifestHashPattern is a _manifest file hash: sha256 in hex (the
// convention does not fix the case).
var manifestHashPattern = regexp.MustCompile(`^sha256:[0-9a-fA-F]{64}$`)

// skillPathOf returns <path> of a skill://<path>/SKILL.md URI; ok is
// false for any other URI, or a path with an empty segment.
func skillPathOf(uri string) (path string, ok bool) {
	rest, found := strings.CutPrefix(uri, skillScheme)
	if !found {
		return "", false
	}
	path, found = strings.CutSuffix(rest, "/"+skillFile)
	if !found || path == "" || strings.Contains("/"+path+"/", "//") {
		return "", false
	}
	return path, true
}

// lastSegment is the last /-separated segment of a skill path: the
// skill's name.
func lastSegment(path string) string {
	return path[strings.LastIndexByte(path, '/')+1:]
}

// skillFileURI is the URI of file inside the skill at path.
func skillFileURI(path, file string) string { return skillScheme + path + "/" + file }

// parseFrontmatter reads the YAML frontmatter a SKILL.md starts with:
// a "---" line, the YAML, a closing "---" line. It returns the mapping.
func parseFrontmatter(text string) (map[string]any, error) {
	first, rest, ok := strings.Cut(text, "\n")
	if !ok || strings.TrimSuffix(first, "\r") != "---" {
		return nil, fmt.Errorf("text does not start with a \"---\" line opening a YAML frontmatter (starts %q)", textclip.Bytes(text, 40))
	}
	end := -1
	for off := 0; off <= len(rest); {
		line, _, _ := strings.Cut(rest[off:], "\n")
		if strings.TrimSuffix(line, "\r") == "---" {
			end = off
			break
		}
		if off > maxFrontmatterBytes {
			break
		}
		off += len(line) + 1
	}
	switch {
	case end < 0 && len(rest) > maxFrontmatterBytes:
		return nil, fmt.Errorf("no closing \"---\" line within the first %d bytes of the frontmatter", maxFrontmatterBytes)
	case end < 0:
		return nil, errors.New("the frontmatter has no closing \"---\" line")
	case end > maxFrontmatterBytes:
		return nil, fmt.Errorf("the frontmatter is %d bytes, over the %d the harness parses", end, maxFrontmatterBytes)
	}
	var fm map[string]any
	if err := yaml.Unmarshal([]byte(rest[:end]), &fm); err != nil {
		return nil, fmt.Errorf("the frontmatter is not YAML: %v", err)
	}
	if fm == nil {
		return nil, errors.New("the frontmatter is not a YAML mapping")
	}
	return fm, nil
}

// frontmatterName is the string name in a frontmatter, or a problem.
func frontmatterName(fm map[string]any) (string, error) {
	v, ok := fm["name"]
	if !ok {
		return "", errors.New("the frontmatter has no name")
	}
	s, ok := v.(string)
	if !ok || s == "" {
		return "", fmt.Errorf("the frontmatter name is %v, not a non-empty string", v)
	}
	return s, nil
}

// sameJSON reports whether a and b encode the same JSON value (object
// key order aside), as a host comparing a frontmatter field by field sees
// it.
func sameJSON(a, b any) bool {
	norm := func(v any) ([]byte, bool) {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, false
		}
		var back any
		if json.Unmarshal(raw, &back) != nil {
			return nil, false
		}
		out, err := json.Marshal(back)
		return out, err == nil
	}
	x, ok1 := norm(a)
	y, ok2 := norm(b)
	return ok1 && ok2 && bytes.Equal(x, y)
}

// manifest is a skill://<path>/_manifest document.
type manifest struct {
	Skill string              `json:"skill"`
	Files []manifestFileEntry `json:"files"`
}

// manifestFileEntry is one file of a manifest.
type manifestFileEntry struct {
	Path string `json:"path"`
	Size *int64 `json:"size"`
	Hash string `json:"hash"`
}

// parseManifest reads and validates a _manifest's JSON.
func parseManifest(text string) (*manifest, error) {
	var m manifest
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		return nil, fmt.Errorf("not a {\"skill\",\"files\"} JSON object: %v", err)
	}
	if m.Files == nil {
		return nil, errors.New("it has no \"files\" array")
	}
	if len(m.Files) > maxSkillEntries {
		return nil, fmt.Errorf("it lists %d files, over the %d a skill may hold", len(m.Files), maxSkillEntries)
	}
	hasSkillMD := false
	for i, f := range m.Files {
		switch {
		case f.Path == "" || strings.HasPrefix(f.Path, "/") || strings.Contains("/"+f.Path+"/", "/../"):
			return nil, fmt.Errorf("files[%d] path %q is not a relative path inside the skill", i, f.Path)
		case f.Size == nil || *f.Size < 0:
			return nil, fmt.Errorf("files[%d] (%s) needs a size ≥ 0", i, f.Path)
		case !manifestHashPattern.MatchString(f.Hash):
			return nil, fmt.Errorf("files[%d] (%s) hash %q is not \"sha256:<64 hex>\"", i, f.Path, textclip.Bytes(f.Hash, 80))
		}
		hasSkillMD = hasSkillMD || f.Path == skillFile
	}
	if !hasSkillMD {
		return nil, fmt.Errorf("%s is not among its files", skillFile)
	}
	return &m, nil
}

// xmlSkill is one <skill> of skill://prompt-xml; nil fields are absent.
type xmlSkill struct {
	Name        *string `xml:"name"`
	Description *string `xml:"description"`
	Location    *string `xml:"location"`
}

// parsePromptXML reads skill://prompt-xml: an <available_skills> root
// whose <skill> children each have a name, description and location.
func parsePromptXML(text string) ([]xmlSkill, error) {
	var doc struct {
		XMLName xml.Name   `xml:"available_skills"`
		Skills  []xmlSkill `xml:"skill"`
	}
	if err := xml.Unmarshal([]byte(text), &doc); err != nil {
		return nil, fmt.Errorf("not XML with an <available_skills> root: %v", err)
	}
	for i, s := range doc.Skills {
		for _, f := range []struct {
			tag string
			v   *string
		}{{"name", s.Name}, {"description", s.Description}, {"location", s.Location}} {
			if f.v == nil || strings.TrimSpace(*f.v) == "" {
				return nil, fmt.Errorf("<skill> #%d has no <%s>", i+1, f.tag)
			}
		}
	}
	return doc.Skills, nil
}

// readContent is one entry of a resources/read result.
type readContent = mcpclient.ResourceContents
