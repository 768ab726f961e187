package skillsdir

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/agent3md/agent3md/internal/textclip"
)

// Rescan reads skill name's folder again and swaps the fresh entry into
// the catalog, keeping the cached digests of files whose signature did not
// change. When the folder is gone or the skill is now broken, the skill
// leaves the catalog and the error (wrapping ErrNotFound) says why; its
// findings join Findings. Skills nested in the folder are not discovered
// again: a new nested skill appears with the next Scan.
func (c *Catalog) Rescan(ctx context.Context, name string) (*Skill, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	old, ok := c.Skill(name)
	if !ok {
		return nil, fmt.Errorf("skill %q is not served: %w", textclip.Bytes(name, 120), ErrNotFound)
	}
	var s *Skill
	var broken []Finding
	if real, err := filepath.EvalSymlinks(old.Dir); err != nil {
		broken = []Finding{newFinding(RuleSkillMD, filepath.Base(old.Dir), old.SkillMD(), 0, "skill folder is gone: "+err.Error())}
	} else {
		s, _, broken = scanSkill(old.Root, old.Dir, real, old.depth, &c.opts)
	}
	if broken != nil {
		if err := c.replace(old, nil, broken); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("skill %q changed on disk and is no longer served (%s): %w", name, broken[0].String(), ErrNotFound)
	}
	s.Parent = old.Parent
	carrySums(old, s)
	if err := c.replace(old, s, nil); err != nil {
		return nil, err
	}
	if cur, ok := c.Skill(name); ok {
		return cur, nil
	}
	return nil, fmt.Errorf("skill %q left the catalog while re-scanned: %w", name, ErrNotFound)
}

// carrySums keeps the digests of files that kept their signature.
func carrySums(old, s *Skill) {
	if filepath.Clean(old.realDir) != filepath.Clean(s.realDir) {
		return
	}
	for i, f := range s.Files {
		if j, ok := old.file(f.Path); ok && old.Files[j].sig == f.sig {
			if sum := old.sums[j].Load(); sum != nil {
				s.sums[i].Store(sum)
			}
		}
	}
}
