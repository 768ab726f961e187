package loader

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/agent3md/agent3md/internal/textclip"
	"github.com/agent3md/agent3md/skillsdir/export"
)

// WriteSkillList writes skills for a person (`agent3md skills`, and the
// catalog `agent3md manifest` ends with): each skill's name, z and cost
// tag, its description with links as names, cut to 100 characters, triggers, then what it has of
// inputs (name:type, "?" when optional), command and dependencies.
func WriteSkillList(out io.Writer, skills []SkillInfo) error {
	w := bufio.NewWriter(out)
	byZ := make(map[float64]string, len(skills))
	for _, s := range skills {
		byZ[s.Z] = s.Name
	}
	name := func(z float64) (string, bool) { n, ok := byZ[z]; return n, ok }
	for _, s := range skills {
		// The cost tag on the name's line: a skill that writes to
		// production is seen at a glance.
		if s.Cost != "" {
			fmt.Fprintf(w, "%s (z=%v, cost=%s)\n", s.Name, s.Z, s.Cost)
		} else {
			fmt.Fprintf(w, "%s (z=%v)\n", s.Name, s.Z)
		}
		if s.Description != "" {
			// Links read as the names they point at, not as markup.
			fmt.Fprintf(w, "  %s\n", textclip.Runes(export.PlainLinks(s.Description, name), 100))
		}
		fmt.Fprintf(w, "  triggers: %s\n", strings.Join(s.Triggers, ", "))
		if len(s.Inputs) > 0 {
			ins := make([]string, len(s.Inputs))
			for i, in := range s.Inputs {
				ins[i] = in.Name + ":" + in.Type
				if in.Optional {
					ins[i] += "?"
				}
			}
			fmt.Fprintf(w, "  inputs: %s\n", strings.Join(ins, ", "))
		}
		if s.Tool != "" {
			fmt.Fprintf(w, "  command: %s\n", s.Tool)
		}
		if len(s.Deps) > 0 {
			fmt.Fprintf(w, "  depends on: %s\n", strings.Join(s.Deps, ", "))
		}
	}
	return w.Flush()
}
