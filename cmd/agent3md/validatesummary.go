package main

import (
	"fmt"

	"github.com/agent3md/agent3md/agentfile"
)

// dirSummary ends a skills folder's reports with one line that counts
// them: a folder of dozens of skills otherwise ends on whichever skill
// came last, and the reader has to add up the verdicts.
func (a *app) dirSummary(dir string, reps []agentfile.FileReport) {
	skills, ok, errs, warns := 0, 0, 0, 0
	for _, fr := range reps {
		if fr.Error != "" {
			continue // said on stderr; not a skill
		}
		skills++
		if fr.OK {
			ok++
		}
		errs += len(fr.Errors)
		warns += len(fr.Warnings)
	}
	if skills == 0 {
		return
	}
	fmt.Fprintf(a.stdout, "%s: %s, %d ok, %d with errors (%s, %s)\n", dir,
		plural(skills, "skill"), ok, skills-ok, plural(errs, "error"), plural(warns, "warning"))
}

// plural is "1 skill" or "3 skills".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// missingArg is validate's word for an argument that names nothing: it
// takes agent files and skills folders, so it says both.
func missingArg(path string) string {
	return fmt.Sprintf("%s does not exist: pass an agent file (agent.3md) or a folder of skill folders (~/.claude/skills)", path)
}
