package main

import (
	"context"
	"fmt"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/lint"
	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/mcp"
	"github.com/agent3md/agent3md/router"
	"github.com/agent3md/agent3md/skillsdir"
)

// The routing lints (package lint) need the agent opened and its routing
// index built, so validate runs them after the format's rules, and only
// on a file or folder those rules pass: an agent with errors may not
// open, and its skills would be routed otherwise than they are meant.

// lintFile adds the routing lints' warnings to the report of one agent
// file. Standard input is not linted: it cannot be opened a second time.
func (a *app) lintFile(ctx context.Context, path string, fr *agentfile.FileReport) {
	if path == stdinArg || fr.Error != "" || !fr.OK {
		return
	}
	ag, err := loader.Open(path, a.loaderOptions(path, path))
	if err != nil {
		a.lintSkipped(path, err)
		return
	}
	defer ag.Close()
	cat, info := ag.Scanned()
	skills := make([]lint.SkillText, 0, len(info.Skills))
	for i := range info.Skills {
		s := &info.Skills[i]
		if s.Plane == info.Identity {
			continue
		}
		pl := &cat.Planes[s.Plane]
		z := s.Z
		skills = append(skills, lint.SkillText{Name: s.Name, Description: pl.Description, Triggers: s.Triggers,
			File: path, Line: pl.Line, TriggersLine: pl.Line, Z: &z})
	}
	fs, err := a.runLints(ctx, ag, skills)
	if err != nil {
		a.lintSkipped(path, err)
		return
	}
	for _, f := range fs {
		fr.Warnings = append(fr.Warnings, agentfile.Finding{Rule: f.Rule, Message: f.Message, Z: f.Z, Line: f.Line})
	}
}

// lintDir adds the routing lints' warnings to the reports of a skills
// folder, each on its skill's report (the one whose SKILL.md it names).
func (a *app) lintDir(ctx context.Context, root string, reps []agentfile.FileReport) {
	bySkill := map[string]int{}
	for i := range reps {
		if reps[i].Error != "" || !reps[i].OK && reps[i].Skill == "" {
			return // the scan stopped: nothing is served
		}
		if reps[i].Skill != "" {
			bySkill[reps[i].Skill] = i
		}
	}
	ag, err := loader.OpenFolders(ctx, []string{root}, &loader.FolderOptions{MaxDepth: skillsdir.DefaultMaxDepth, NoRescan: true})
	if err != nil {
		a.lintSkipped(root, err)
		return
	}
	defer ag.Close()
	info := ag.Info()
	skills := make([]lint.SkillText, 0, len(info.Skills))
	for i := range info.Skills {
		fsk := ag.FolderSkill(info.Skills[i].Name)
		if fsk == nil {
			continue // the identity
		}
		skills = append(skills, lint.SkillText{Name: fsk.Name, Description: fsk.Description, Triggers: fsk.Triggers,
			File: reportFile(reps, bySkill, fsk), Line: fsk.DescriptionLine, TriggersLine: fsk.TriggersLine})
	}
	fs, err := a.runLints(ctx, ag, skills)
	if err != nil {
		a.lintSkipped(root, err)
		return
	}
	for _, f := range fs {
		i, ok := bySkill[f.Skill]
		if !ok {
			continue
		}
		r := &reps[i]
		r.Warnings = append(r.Warnings, agentfile.Finding{Rule: f.Rule, Message: f.Message, Line: f.Line})
		if r.WarningFiles != nil {
			r.WarningFiles = append(r.WarningFiles, r.File)
		}
	}
}

// reportFile is the SKILL.md path a skill's report names (the root as
// the user gave it), else the scan's own.
func reportFile(reps []agentfile.FileReport, bySkill map[string]int, s *skillsdir.Skill) string {
	if i, ok := bySkill[s.Name]; ok {
		return reps[i].File
	}
	return s.SkillMD()
}

// runLints builds the routing index the way route_skill's is built and
// runs the lints with route_skill's query.
func (a *app) runLints(ctx context.Context, ag *loader.Agent, skills []lint.SkillText) ([]lint.Finding, error) {
	r, err := router.ForAgent(ctx, ag, a.routerOptions(ag))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return lint.Check(ctx, skills, func(ctx context.Context, text string) ([]router.Match, error) {
		return r.Route(ctx, text, mcp.RouteQuery())
	}, nil)
}

func (a *app) lintSkipped(path string, err error) {
	fmt.Fprintf(a.stderr, "agent3md: %s: the routing lints (competing skills, triggers) did not run: %v\n", path, err)
}
