package selftest

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/agent3md/agent3md/internal/textclip"
)

// placeholder is a command template placeholder (docs/format.md §9).
var placeholder = regexp.MustCompile(`\{([A-Za-z_]\w*)\}`)

// Names no server has, for the error checks.
const (
	noSuchTool  = "selftest_no_such_tool"
	noSuchSkill = "selftest-no-such-skill-5f0c"
)

// fillValue is a value of the input's type; strings hold a quote so the
// shell quoting is exercised.
func fillValue(in inputInfo) string {
	switch in.Type {
	case "number":
		return "42"
	case "boolean":
		return "true"
	case "object":
		return `{"k":"v"}`
	case "array":
		return `["a","b"]`
	default:
		return "it's " + in.Name
	}
}

// fillTemplate is the command a correct fill produces: each placeholder
// with a value replaced by its POSIX single-quoted value.
func fillTemplate(tool string, values map[string]string) string {
	return placeholder.ReplaceAllStringFunc(tool, func(ph string) string {
		if v, ok := values[ph[1:len(ph)-1]]; ok {
			return shellQuote(v)
		}
		return ph
	})
}

// usesInputs reports whether the skill's template names any of its inputs.
func usesInputs(s skillInfo) bool {
	if s.Tool == nil {
		return false
	}
	for _, m := range placeholder.FindAllStringSubmatch(*s.Tool, -1) {
		if slices.ContainsFunc(s.Inputs, func(in inputInfo) bool { return in.Name == m[1] }) {
			return true
		}
	}
	return false
}

// pickFillSkill chooses the first skill that ok accepts whose command
// template uses its inputs; when the catalog carries no templates at all,
// the first one ok accepts. A skill without a template cannot be filled,
// so it never qualifies when templates are listed.
func (r *runner) pickFillSkill(ok func(skillInfo) bool) (skillInfo, bool) {
	anyTool := slices.ContainsFunc(r.skills, func(s skillInfo) bool { return s.Tool != nil })
	for _, s := range r.skills {
		if ok(s) && (usesInputs(s) || !anyTool) {
			return s, true
		}
	}
	return skillInfo{}, false
}

// hasInputs reports whether s declares any input.
func hasInputs(s skillInfo) bool { return len(s.Inputs) > 0 }

// hasRequiredInput reports whether s declares a required input.
func hasRequiredInput(s skillInfo) bool { return slices.ContainsFunc(s.Inputs, inputInfo.required) }

// checkFill fills a skill with a value for every input.
func (r *runner) checkFill() outcome {
	c, out, ok := r.needSkills(toolFill)
	if !ok {
		return out
	}
	s, ok := r.pickFillSkill(hasInputs)
	if !ok {
		return skip("no skill has a command template that uses its inputs")
	}
	values := make(map[string]string, len(s.Inputs))
	for _, in := range s.Inputs {
		values[in.Name] = fillValue(in)
	}
	res, rerr, err := r.callTool(c, toolFill, map[string]any{"name": s.Name, "values": values})
	if p, err := toolProblem(s.Name, res, rerr, err); err != nil || p != "" {
		return fail("%s", problemOrErr(p, err))
	}
	text := res.Text()
	if s.Tool != nil {
		want := fillTemplate(*s.Tool, values)
		if !strings.Contains(text, want) && jsonCommand(text) != want {
			return fail("%s: text %q lacks the filled command %q", s.Name, textclip.Bytes(text, 200), want)
		}
		return pass("%s: %s", s.Name, textclip.Bytes(want, 120))
	}
	for _, in := range s.Inputs {
		if q := shellQuote(values[in.Name]); !strings.Contains(text, q) {
			return fail("%s: text %q lacks input %s's value shell-quoted as %s", s.Name, textclip.Bytes(text, 200), in.Name, q)
		}
	}
	return pass("%s: every value appears shell-quoted (the catalog has no templates to compare)", s.Name)
}

// checkFillMissing fills a skill with no values and expects the required
// inputs reported as missing.
func (r *runner) checkFillMissing() outcome {
	c, out, ok := r.needSkills(toolFill)
	if !ok {
		return out
	}
	s, ok := r.pickFillSkill(hasRequiredInput)
	if !ok {
		return skip("no skill has a command template and a required input")
	}
	res, rerr, err := r.callTool(c, toolFill, map[string]any{"name": s.Name, "values": map[string]string{}})
	switch {
	case err != nil:
		return fail("%v", err)
	case rerr != nil:
		return fail("%s: fill_skill answered %v; missing values are reported in the result", s.Name, rerr)
	}
	text := res.Text()
	if !strings.Contains(strings.ToLower(text), "missing") {
		return fail("%s: text %q does not report missing inputs", s.Name, textclip.Bytes(text, 200))
	}
	for _, in := range s.Inputs {
		if in.required() && !strings.Contains(text, in.Name) {
			return fail("%s: text %q does not name the missing input %s", s.Name, textclip.Bytes(text, 200), in.Name)
		}
	}
	return pass("%s: reports its missing inputs", s.Name)
}

// jsonCommand is the "command" field of text when text is a JSON object
// (a server may answer fill_skill with its structured fill), else "".
func jsonCommand(text string) string {
	var f struct {
		Command string `json:"command"`
	}
	if json.Unmarshal([]byte(text), &f) != nil {
		return ""
	}
	return f.Command
}

// problemOrErr renders whichever of a problem or an error is set.
func problemOrErr(p string, err error) string {
	if err != nil {
		return err.Error()
	}
	return p
}

// errorChecks checks how tool-level mistakes are answered (docs/protocol.md §4).
func (r *runner) errorChecks() {
	r.check("error/unknown-tool", func() outcome {
		c, out, ok := r.needTools("")
		if !ok {
			return out
		}
		res, rerr, err := r.callTool(c, noSuchTool, map[string]any{})
		switch {
		case err != nil:
			return fail("%v", err)
		case rerr == nil:
			return fail("unknown tool %s got a result (isError=%v); it must be JSON-RPC error %d", noSuchTool, res.IsError, codeInvalidParams)
		case rerr.Code != codeInvalidParams:
			return fail("unknown tool %s answered %v, want code %d", noSuchTool, rerr, codeInvalidParams)
		}
		return pass("%d", codeInvalidParams)
	})
	r.check("error/unknown-skill", func() outcome {
		return r.expectToolError(toolGet, map[string]any{"name": noSuchSkill}, noSuchSkill)
	})
	r.check("error/missing-argument", r.checkMissingArgument)
}

// expectToolError calls tool with args and expects a result with
// isError:true whose text mentions mention (when set).
func (r *runner) expectToolError(tool string, args map[string]any, mention string) outcome {
	c, out, ok := r.needTools(tool)
	if !ok {
		return out
	}
	res, rerr, err := r.callTool(c, tool, args)
	switch {
	case err != nil:
		return fail("%v", err)
	case rerr != nil:
		return fail("%s answered %v; it must return a result with isError:true", tool, rerr)
	case !res.IsError:
		return fail("%s returned a result without isError:true: %q", tool, textclip.Bytes(res.Text(), 120))
	}
	text := res.Text()
	if strings.TrimSpace(text) == "" {
		return fail("%s returned isError:true with no text saying what is wrong", tool)
	}
	if mention != "" && !strings.Contains(text, mention) {
		return fail("%s error text %q does not name %s", tool, textclip.Bytes(text, 120), mention)
	}
	return pass("isError: %s", textclip.Bytes(text, 80))
}
