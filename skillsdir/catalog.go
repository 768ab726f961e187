package skillsdir

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/agent3md/agent3md/agentfile"
)

// File is one served file of a skill.
type File struct {
	// Path is relative to the skill's folder, slash-separated.
	Path string
	Size int64
	// MIME is the type by extension (application/octet-stream when
	// unknown); a read may refine it (see Content.MIME).
	MIME string
	sig  sig
}

// Stamp is the file's change signature as scanned — size, modification
// and change times in nanoseconds, device and inode — for callers that
// fingerprint a catalog (package loader keys caches on it): two scans of
// an untouched file give equal stamps, and any write changes one.
func (f File) Stamp() [5]int64 {
	return [5]int64{f.sig.Size, f.sig.Mtime, f.sig.Ctime, int64(f.sig.Dev), int64(f.sig.Ino)}
}

// Skill is one skill folder as scanned. A *Skill is never modified after
// the scan that made it: a change on disk makes a new one, so holding a
// *Skill gives one consistent snapshot. Safe for concurrent use.
type Skill struct {
	// Name is the frontmatter name, equal to the folder's name.
	Name        string
	Description string
	// Frontmatter is the whole YAML frontmatter as JSON values
	// (map[string]any, []any, string, int64, float64, bool, nil). It is
	// shared by every reader of this *Skill: never modify it.
	Frontmatter map[string]any
	// Triggers, Inputs and Tool come from metadata triggers, inputs and
	// tool (or command); docs/skill-folders.md §4.
	Triggers []string
	Inputs   []agentfile.Input
	Tool     string
	HasTool  bool
	// Deps names the other served skills the body links to (relative
	// Markdown links to their folder or SKILL.md), in body order, once each,
	// as the catalog stood when this entry was made: a skill that left the
	// catalog since may still be named.
	Deps []string
	// Dir is the folder as found (root joined with Rel); Root is the root
	// it was found under and Rel its slash path below it ("." when the
	// root is the skill).
	Dir, Root, Rel string
	// Parent is the name of the folder of the skill this one is nested in
	// ("" when it is not nested).
	Parent string
	// Files lists SKILL.md and every other served file, sorted by Path,
	// nested skills' files included.
	Files []File
	// Bytes is the total size of Files.
	Bytes int64
	// Truncated is set when Files was cut at Options.MaxFilesPerSkill.
	Truncated bool
	// BodyOffset is where the Markdown body starts in SKILL.md.
	BodyOffset int64
	// DescriptionLine and TriggersLine are the SKILL.md lines of the
	// description key and of metadata triggers (0 when absent), for the
	// findings that point at them.
	DescriptionLine, TriggersLine int
	// Findings are the warnings and non-fatal errors of this skill.
	Findings []Finding

	realDir string   // Dir with symlinks resolved at scan
	dirID   sig      // realDir's device and inode at scan
	depth   int      // levels below Root
	links   []string // cleaned targets of relative links, for Deps
	sums    []atomic.Pointer[[32]byte]
}

// file returns the index of path in s.Files.
func (s *Skill) file(path string) (int, bool) {
	return slices.BinarySearchFunc(s.Files, path, func(f File, p string) int { return cmp.Compare(f.Path, p) })
}

// SkillMD returns the SKILL.md path as found.
func (s *Skill) SkillMD() string { return filepath.Join(s.Dir, "SKILL.md") }

// Catalog is the scanned skills of one or more roots. It holds only
// frontmatter, file sizes and signatures; bodies and files are read on
// demand (ReadFile) and digests computed on first need. Safe for
// concurrent use.
type Catalog struct {
	opts Options

	mu     sync.RWMutex
	skills []*Skill // sorted by Name
	index  map[string]int
	dirs   map[string]string // cleaned Dir → Name, for links
	other  []Finding         // findings of skipped skills and of the walk
}

// Skills returns the served skills sorted by name.
func (c *Catalog) Skills() []*Skill {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return slices.Clone(c.skills)
}

// Skill returns the served skill called name.
func (c *Catalog) Skill(name string) (*Skill, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	i, ok := c.index[name]
	if !ok {
		return nil, false
	}
	return c.skills[i], true
}

// Len is the number of served skills.
func (c *Catalog) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.skills)
}

// Findings returns every finding of the scan — served skills' warnings
// and the errors that made others skipped — sorted by path and line.
func (c *Catalog) Findings() []Finding {
	c.mu.RLock()
	out := slices.Clone(c.other)
	for _, s := range c.skills {
		out = append(out, s.Findings...)
	}
	c.mu.RUnlock()
	sortFindings(out)
	return out
}

// Broken returns the folders left out for an error finding
// (docs/skill-folders.md §3), sorted, each once: every skill folder whose
// SKILL.md breaks a rule, and every folder that holds a mis-cased
// skill.md. A served skill has no error finding, so this is what
// Findings' errors are about.
func (c *Catalog) Broken() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []string
	for _, f := range c.other {
		if f.Breaks() {
			out = append(out, filepath.Dir(f.Path))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func sortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Rule, b.Rule))
	})
}

// publish builds the catalog's indexes from scanned skills; it fails on a
// name used by two folders.
func (c *Catalog) publish(skills []*Skill) error {
	slices.SortFunc(skills, func(a, b *Skill) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Dir, b.Dir))
	})
	// One real folder reached by two paths (a symlink to a skill beside
	// a symlink to the folder holding it) is one skill, served under the
	// first path; its other paths still name it for links.
	var aliases []*Skill
	var clash *ClashError
	kept := skills[:0]
	for _, s := range skills {
		if n := len(kept); n > 0 && kept[n-1].Name == s.Name {
			if a := kept[n-1]; filepath.Clean(a.realDir) == filepath.Clean(s.realDir) || a.dirID.Ino != 0 && sameID(a.dirID, s.dirID) {
				aliases = append(aliases, s)
				continue
			}
			e := &ClashError{Name: s.Name, First: kept[n-1].SkillMD(), Second: s.SkillMD()}
			if clash == nil {
				clash = e
			} else {
				clash.Others = append(clash.Others, e)
			}
			continue
		}
		kept = append(kept, s)
	}
	if clash != nil {
		return clash
	}
	skills = kept
	c.skills = skills
	c.index = make(map[string]int, len(skills))
	c.dirs = make(map[string]string, len(skills))
	for i, s := range skills {
		c.index[s.Name] = i
		c.dirs[filepath.Clean(s.Dir)] = s.Name
	}
	for _, s := range aliases {
		c.dirs[filepath.Clean(s.Dir)] = s.Name
	}
	for _, s := range skills {
		s.Deps = c.deps(s)
	}
	return nil
}

// deps maps s's link targets to served skill names; c.mu must be held or
// c not yet shared.
func (c *Catalog) deps(s *Skill) []string {
	var out []string
	for _, t := range s.links {
		if filepath.Base(t) == "SKILL.md" {
			t = filepath.Dir(t)
		}
		name, ok := c.dirs[t]
		if ok && name != s.Name && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// replace swaps in a re-scanned skill (nil: the skill is gone or broken,
// with its findings in gone).
func (c *Catalog) replace(old, s *Skill, gone []Finding) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	i, ok := c.index[old.Name]
	if !ok || c.skills[i] != old {
		return nil // another re-scan won; callers look the skill up again
	}
	if s == nil {
		c.other = append(c.other, gone...)
		skills := slices.Delete(slices.Clone(c.skills), i, i+1)
		delete(c.dirs, filepath.Clean(old.Dir))
		c.index = make(map[string]int, len(skills))
		for j, x := range skills {
			c.index[x.Name] = j
		}
		c.skills = skills
		return nil
	}
	if s.Name != old.Name {
		return fmt.Errorf("skill %q re-scanned as %q: %w", old.Name, s.Name, ErrChanged)
	}
	s.Deps = c.deps(s)
	c.skills[i] = s
	return nil
}
