package skillsdir

import (
	"os"
	"path/filepath"
	"runtime"

	"github.com/agent3md/agent3md/skillsdir/skillmd"
)

// Defaults of Options (docs/skill-folders.md §7). The per-skill file
// count and byte total are the skills extension's limits (docs/skill-folders.md §7).
const (
	DefaultMaxDepth            = 4
	DefaultMaxFileBytes        = 1 << 20                 // 1 MiB
	DefaultMaxFrontmatterBytes = skillmd.DefaultMaxBytes // 64 KiB
	DefaultMaxSkills           = 100_000
	DefaultMaxFilesPerSkill    = 512
	DefaultMaxSkillBytes       = 16 << 20 // 16 MiB
)

// maxFileDepth bounds how deep a skill's own file tree is walked. Skills
// are small; a deeper tree is more likely a vendored dependency or a loop
// of bind mounts than files a model should read.
const maxFileDepth = 16

// Options bound a scan. A nil *Options, or a zero field, means the default.
type Options struct {
	// MaxDepth is how many directory levels below a root are searched for
	// skill folders: 1 finds only ROOT/x/SKILL.md. Default 4.
	MaxDepth int
	// MaxFileBytes is the largest file served: a bigger file is left out of
	// its skill's list with a finding at scan and refused on read (a
	// SKILL.md over it makes the skill broken). Default 1 MiB.
	MaxFileBytes int64
	// MaxFrontmatterBytes bounds a SKILL.md's YAML frontmatter. Default 64 KiB.
	MaxFrontmatterBytes int
	// MaxSkills bounds the skills of one scan across all roots; past it the
	// scan fails with ErrTooManySkills. Default 100,000.
	MaxSkills int
	// MaxFilesPerSkill bounds the files listed per skill (SKILL.md
	// included); past it the list is cut and the skill flagged. Default 512.
	MaxFilesPerSkill int
	// MaxSkillBytes is the total size past which a skill is flagged.
	// Default 16 MiB.
	MaxSkillBytes int64
	// Workers is how many directories are read in parallel. Default
	// GOMAXPROCS, at least 2 (a scan mostly waits on the file system).
	Workers int
}

// withDefaults returns a copy of o with every zero field set.
func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.MaxDepth <= 0 {
		r.MaxDepth = DefaultMaxDepth
	}
	if r.MaxFileBytes <= 0 {
		r.MaxFileBytes = DefaultMaxFileBytes
	}
	if r.MaxFrontmatterBytes <= 0 {
		r.MaxFrontmatterBytes = DefaultMaxFrontmatterBytes
	}
	if r.MaxSkills <= 0 {
		r.MaxSkills = DefaultMaxSkills
	}
	if r.MaxFilesPerSkill <= 0 {
		r.MaxFilesPerSkill = DefaultMaxFilesPerSkill
	}
	if r.MaxSkillBytes <= 0 {
		r.MaxSkillBytes = DefaultMaxSkillBytes
	}
	if r.Workers <= 0 {
		r.Workers = max(2, runtime.GOMAXPROCS(0))
	}
	return r
}

// Location is a well-known user skills folder.
type Location struct {
	// Name is the short name a CLI flag is built from: "claude" for
	// --claude-skills.
	Name string
	// Path is the absolute folder; it may not exist.
	Path string
}

// WellKnown lists the user skills folders of the common agent hosts, under
// the user's home directory, whether or not they exist (docs/skill-folders.md
// §8). It is nil when the home directory is unknown.
func WellKnown() []Location {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return nil
	}
	return []Location{
		{Name: "claude", Path: filepath.Join(home, ".claude", "skills")},
		{Name: "cursor", Path: filepath.Join(home, ".cursor", "skills")},
		{Name: "codex", Path: filepath.Join(home, ".codex", "skills")},
		{Name: "agents", Path: filepath.Join(home, ".config", "agents", "skills")},
	}
}
