package skillsdir

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent3md/agent3md/agentfile"
)

// FolderReport is one skill folder's findings, as validate reports them
// (docs/skill-folders.md §11): its SKILL.md, the skill's name, and every
// finding about the folder or a file in it, broken skills included.
type FolderReport struct {
	// SkillMD is the folder's SKILL.md, under the root as it was given;
	// the root itself for findings that belong to no skill.
	SkillMD string
	// Skill is the skill's name ("" for the root's own findings).
	Skill string
	// Findings are in scan order. Path names the file a finding is about
	// (under the root as given); Msg starts with that file's path in the
	// folder when it is not SKILL.md.
	Findings []Finding
}

// Check scans root and groups its findings by skill folder: one report
// per skill folder, served ones included even without findings, sorted by
// SKILL.md path; none when root holds no skill folder at all. A scan that
// a rule stops (a name used twice, too many skills) is one report of root
// itself, with a finding per clash, so one run names them all; a scan
// that cannot read root returns its error.
func Check(ctx context.Context, root string) ([]FolderReport, error) {
	cat, err := Scan(ctx, []string{root}, nil)
	if err != nil {
		if fs := stopFindings(root, err); fs != nil {
			return []FolderReport{{SkillMD: root, Findings: fs}}, nil
		}
		return nil, err
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	// show turns a path the scan found (absolute, under abs) back into one
	// under root as the caller gave it.
	show := func(p string) string {
		if rel, err := filepath.Rel(abs, p); err == nil && filepath.IsLocal(rel) {
			return filepath.Join(root, rel)
		}
		return p
	}
	byFile := map[string]*FolderReport{}
	var order []string
	report := func(file, skill string) *FolderReport {
		if r, ok := byFile[file]; ok {
			return r
		}
		r := &FolderReport{SkillMD: file, Skill: skill}
		byFile[file] = r
		order = append(order, file)
		return r
	}
	for _, s := range cat.Skills() {
		report(show(s.SkillMD()), s.Name)
	}
	for _, f := range cat.Findings() {
		file := show(f.Path)
		skillMD := file
		if f.Skill != "" && filepath.Base(file) != "SKILL.md" {
			// A finding about another file of a skill: find the skill's
			// SKILL.md above it, and name the file in the message.
			// A finding about the whole folder (too many files) has the
			// folder itself as its path.
			sk, ok := cat.Skill(f.Skill)
			switch {
			case ok && (f.Path == sk.Dir || strings.HasPrefix(f.Path, sk.Dir+string(filepath.Separator))):
				skillMD = show(sk.SkillMD())
			case f.Rule == RuleTooManyFiles || f.Rule == RuleSkillTooLarge:
				skillMD = filepath.Join(file, "SKILL.md") // of a broken skill
			default:
				skillMD = skillFileAbove(file, f.Skill)
			}
			if rel, err := filepath.Rel(filepath.Dir(skillMD), file); err == nil && rel != "." {
				f.Msg = filepath.ToSlash(rel) + ": " + f.Msg
			}
		}
		if f.Skill == "" {
			skillMD = root
		}
		f.Path = file
		r := report(skillMD, f.Skill)
		r.Findings = append(r.Findings, f)
	}
	slices.Sort(order)
	out := make([]FolderReport, 0, len(order))
	for _, file := range order {
		out = append(out, *byFile[file])
	}
	return out, nil
}

// skillFileAbove returns the SKILL.md of the skill folder named skill that
// holds file: the nearest directory above file with that name.
func skillFileAbove(file, skill string) string {
	for d := filepath.Dir(file); ; d = filepath.Dir(d) {
		if filepath.Base(d) == skill {
			return filepath.Join(d, "SKILL.md")
		}
		if up := filepath.Dir(d); up == d {
			return filepath.Join(filepath.Dir(file), "SKILL.md")
		}
	}
}

// stopFindings are the findings of root for a scan a rule stopped: one
// per name clash, or the skill count; nil for any other error.
func stopFindings(root string, err error) []Finding {
	var clash *ClashError
	switch {
	case errors.As(err, &clash):
		fs := []Finding{newFinding(RuleNameClash, "", root, 0, (&ClashError{Name: clash.Name, First: clash.First, Second: clash.Second}).Error())}
		for _, c := range clash.Others {
			fs = append(fs, newFinding(RuleNameClash, "", root, 0, c.Error()))
		}
		return fs
	case errors.Is(err, ErrTooManySkills):
		return []Finding{newFinding(RuleTooManySkills, "", root, 0, err.Error())}
	}
	return nil
}

// FileReport is r in validate's per-file shape: each finding under its
// rule's severity (an error is a skill that mcp leaves out and import
// skips), with the file it is about.
func (r *FolderReport) FileReport() agentfile.FileReport {
	fr := agentfile.FileReport{File: r.SkillMD, Skill: r.Skill, OK: true, Errors: []agentfile.Finding{}, Warnings: []agentfile.Finding{}}
	for _, f := range r.Findings {
		af := agentfile.Finding{Rule: f.Rule, Message: f.Msg, Line: f.Line}
		if f.Breaks() {
			fr.Errors, fr.ErrorFiles, fr.OK = append(fr.Errors, af), append(fr.ErrorFiles, f.Path), false
		} else {
			fr.Warnings, fr.WarningFiles = append(fr.Warnings, af), append(fr.WarningFiles, f.Path)
		}
	}
	return fr
}
