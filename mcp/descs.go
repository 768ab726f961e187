package mcp

// The parts of tool descriptions built from the catalog: the skill names
// get_skill's description ends with, and the inputs of each skill with a
// command that fill_skill's values describe, built once per catalog.

import (
	"fmt"
	"strings"
	"sync"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/loader"
)

// maxSkillNamesBytes bounds the skill names listed in get_skill's
// description.
const maxSkillNamesBytes = 1500

func buildSkillNames(skills []string) string {
	if len(skills) == 0 {
		return "This agent has no skills."
	}
	var b strings.Builder
	b.WriteString("Available skills: ")
	shown := 0
	for i, name := range skills {
		sep := ""
		if i > 0 {
			sep = ", "
		}
		if b.Len()+len(sep)+len(name) > maxSkillNamesBytes {
			break
		}
		b.WriteString(sep + name)
		shown++
	}
	if shown < len(skills) {
		fmt.Fprintf(&b, " … and %d more: find one with route_skill, or with list_skills and a query.", len(skills)-shown)
	} else {
		b.WriteString(".")
	}
	return b.String()
}

// maxFillInputsBytes bounds the per-skill inputs listed in fill_skill's
// description of values: a model needs no extra call to fill a skill of a
// small agent, and a large agent's tools/list stays small.
const maxFillInputsBytes = 2000

// toolDescs are the parts of tool descriptions built from the catalog,
// computed once per catalog (the loader swaps in a new one when the file
// changes).
type toolDescs struct {
	mu     sync.Mutex
	cat    *agentfile.Catalog
	names  string // get_skill: the skill names
	inputs string // fill_skill's values: each skill's inputs
}

// get returns the sentences for the agent's current scan.
func (d *toolDescs) get(a *loader.Agent) (names, inputs string) {
	snap := a.Snapshot()
	d.mu.Lock()
	defer d.mu.Unlock()
	if cat := snap.Catalog(); d.cat != cat || cat == nil {
		d.names, d.inputs, d.cat = buildSkillNames(a.SkillNames()), buildFillInputs(snap), cat
	}
	return d.names, d.inputs
}

// buildFillInputs lists the inputs of each skill that has a command,
// within maxFillInputsBytes, then says where the rest are.
func buildFillInputs(snap loader.Snapshot) string {
	var b strings.Builder
	shown, withTool := 0, 0
	for i := 0; i < snap.Len(); i++ {
		s := snap.Skill(i)
		if !s.HasTool || strings.TrimSpace(s.Tool) == "" {
			continue
		}
		withTool++
		if shown < withTool-1 {
			continue // the budget is spent: only counting
		}
		entry := skillInputs(s)
		if b.Len()+len(entry)+2 > maxFillInputsBytes {
			continue
		}
		if shown > 0 {
			b.WriteString("; ")
		}
		b.WriteString(entry)
		shown++
	}
	switch {
	case withTool == 0:
		return "No skill of this agent has a command template to fill."
	case shown < withTool:
		return fmt.Sprintf("Inputs per skill (name: type; ? marks an optional input): %s; … and %d more skills with commands: their inputs are in list_skills entries.",
			b.String(), withTool-shown)
	default:
		return fmt.Sprintf("Inputs per skill (name: type; ? marks an optional input): %s.", b.String())
	}
}

// skillInputs is one skill's entry: search(pattern: string, path?: string).
func skillInputs(s *agentfile.Skill) string {
	parts := make([]string, len(s.Inputs))
	for i, in := range s.Inputs {
		opt := ""
		if in.Optional {
			opt = "?"
		}
		parts[i] = in.Name + opt + ": " + in.Type
	}
	return s.Name + "(" + strings.Join(parts, ", ") + ")"
}
