package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/skillsdir"
)

// isDir reports whether a validate argument names a directory (a skills
// folder) rather than an agent file.
func isDir(arg string) bool {
	if arg == stdinArg {
		return false
	}
	st, err := os.Stat(arg)
	return err == nil && st.IsDir()
}

// validateDir checks a skills folder with the Agent Skills rules
// (docs/skill-folders.md §3): one report per skill folder, broken ones
// included, File being its SKILL.md as reached through arg. Findings that
// belong to no skill (a folder that could not be read) get a report of
// their own under arg; a scan that fails outright (a name used twice, too
// many skills) is an error finding of arg, and one that cannot read arg an
// I/O error.
func (a *app) validateDir(ctx context.Context, arg string) []fileReport {
	cat, err := skillsdir.Scan(ctx, []string{arg}, nil)
	if err != nil {
		fr := fileReport{File: arg, Errors: []agentfile.Finding{}, Warnings: []agentfile.Finding{}}
		var clash *skillsdir.ClashError
		switch {
		case errors.As(err, &clash):
			// One finding per clash, so one run names them all.
			for _, c := range append([]*skillsdir.ClashError{{Name: clash.Name, First: clash.First, Second: clash.Second}}, clash.Others...) {
				fr.Errors = append(fr.Errors, agentfile.Finding{Rule: "name-clash", Message: c.Error()})
			}
		case errors.Is(err, skillsdir.ErrTooManySkills):
			fr.Errors = append(fr.Errors, agentfile.Finding{Rule: "too-many-skills", Message: err.Error()})
		default:
			fr.Error = err.Error()
		}
		return []fileReport{fr}
	}
	abs, err := filepath.Abs(arg)
	if err != nil {
		return []fileReport{{File: arg, Error: err.Error()}}
	}
	// show turns a path the scan found (absolute, under abs) back into one
	// under arg as the user typed it.
	show := func(p string) string {
		if rel, err := filepath.Rel(abs, p); err == nil && filepath.IsLocal(rel) {
			return filepath.Join(arg, rel)
		}
		return p
	}
	// One report per skill folder, keyed by its SKILL.md path; served
	// skills have one even without findings, so a clean folder lists its
	// skills as ok.
	byFile := map[string]*fileReport{}
	var order []string
	report := func(file, skill string) *fileReport {
		if fr, ok := byFile[file]; ok {
			return fr
		}
		fr := &fileReport{File: file, Skill: skill, OK: true, Errors: []agentfile.Finding{}, Warnings: []agentfile.Finding{}}
		byFile[file] = fr
		order = append(order, file)
		return fr
	}
	for _, s := range cat.Skills() {
		report(show(s.SkillMD()), s.Name)
	}
	for _, f := range cat.Findings() {
		file, msg := show(f.Path), f.Msg
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
			case f.Rule == skillsdir.RuleTooManyFiles || f.Rule == skillsdir.RuleSkillTooLarge:
				skillMD = filepath.Join(file, "SKILL.md") // of a broken skill
			default:
				skillMD = skillFileAbove(file, f.Skill)
			}
			if rel, err := filepath.Rel(filepath.Dir(skillMD), file); err == nil && rel != "." {
				msg = filepath.ToSlash(rel) + ": " + msg
			}
		}
		if f.Skill == "" {
			skillMD = arg
		}
		fr := report(skillMD, f.Skill)
		af := agentfile.Finding{Rule: f.Rule, Message: msg, Line: f.Line}
		if f.Severity == skillsdir.SeverityError {
			fr.Errors = append(fr.Errors, af)
			fr.errPaths = append(fr.errPaths, file)
			fr.OK = false
		} else {
			fr.Warnings = append(fr.Warnings, af)
			fr.warnPaths = append(fr.warnPaths, file)
		}
	}
	if len(order) == 0 {
		return []fileReport{{File: arg, Error: fmt.Sprintf("%s holds no skill folder (no SKILL.md within %d levels); pass an agent file or a folder of skill folders", arg, skillsdir.DefaultMaxDepth)}}
	}
	slices.Sort(order)
	out := make([]fileReport, 0, len(order))
	for _, file := range order {
		out = append(out, *byFile[file])
	}
	return out
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
