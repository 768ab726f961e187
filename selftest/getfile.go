package selftest

import (
	"encoding/json"
	"fmt"

	"github.com/agent3md/agent3md/internal/textclip"
)

// takesArgument reports whether tool declares the named property in its
// inputSchema.
func (r *runner) takesArgument(tool, name string) bool {
	t, ok := r.tools[tool]
	if !ok {
		return false
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(t.InputSchema, &schema) != nil {
		return false
	}
	_, ok = schema.Properties[name]
	return ok
}

// checkGetFile checks get_skill's optional file argument
// (docs/selftest.md §3) on a server that declares it: file "SKILL.md"
// gives each sampled skill's SKILL.md, which must carry a frontmatter
// name and, when the server lists that skill's SKILL.md as a resource, be
// byte for byte what resources/read gives; a file no skill serves is a
// tool error, not a result.
func (r *runner) checkGetFile() outcome {
	c, out, ok := r.needSkills(toolGet)
	if !ok {
		return out
	}
	if !r.takesArgument(toolGet, "file") {
		return skip("get_skill declares no file argument (optional)")
	}
	listed := map[string]skillResource{}
	if r.declares("resources") {
		for _, s := range skillResources(r.resources) {
			listed[s.name()] = s
		}
	}
	first := true
	return r.eachSkill(toolGet, func(s skillInfo) (string, error) {
		if first {
			first = false
			missing := unknownSkillName() + ".md"
			res, rerr, err := r.callTool(c, toolGet, map[string]any{"name": s.Name, "file": missing})
			switch {
			case err != nil:
				return "", err
			case rerr != nil:
				return fmt.Sprintf("%s, file %s: answered %v; want a tool result with isError", s.Name, missing, rerr), nil
			case !res.IsError:
				return fmt.Sprintf("%s, file %s: a file the skill does not serve was answered without isError: %q", s.Name, missing, textclip.Bytes(res.Text(), 100)), nil
			}
		}
		res, rerr, err := r.callTool(c, toolGet, map[string]any{"name": s.Name, "file": skillFile})
		if p, err := toolProblem(s.Name, res, rerr, err); p != "" || err != nil {
			return p, err
		}
		text := res.Text()
		fm, err := parseFrontmatter(text)
		if err != nil {
			return fmt.Sprintf("%s, file %s: %v", s.Name, skillFile, err), nil
		}
		name, err := frontmatterName(fm)
		if err != nil {
			return fmt.Sprintf("%s, file %s: %v", s.Name, skillFile, err), nil
		}
		sr, ok := listed[name]
		if !ok {
			return "", nil
		}
		_, b, problem, err := r.readOne(wire{c: c}, sr.res.URI)
		if problem != "" || err != nil {
			return problem, err
		}
		if string(b) != text {
			return fmt.Sprintf("%s, file %s: %d bytes differ from the %d of resources/read %s", s.Name, skillFile, len(text), len(b), sr.res.URI), nil
		}
		return "", nil
	})
}
