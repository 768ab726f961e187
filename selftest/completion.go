package selftest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agent3md/agent3md/internal/textclip"
)

// maxCompletionValues is the most values one completion/complete answer
// may hold (docs/selftest.md §4).
const maxCompletionValues = 100

// checkPromptMissingArgument gets a prompt without one of its required
// arguments: the answer must be -32602 (docs/selftest.md §4).
func (r *runner) checkPromptMissingArgument() outcome {
	c, err := r.session()
	if err != nil {
		return fail("%v", err)
	}
	switch {
	case !r.declares("prompts"):
		return skip("server does not declare the prompts capability")
	case r.prompts == nil:
		return skip("needs the prompt list: %s", r.promptsErr)
	}
	for _, p := range r.prompts {
		args := map[string]string{}
		left := ""
		for _, a := range p.Arguments {
			switch {
			case a.Required && left == "":
				left = a.Name
			case a.Required:
				args[a.Name] = promptArgValue
			}
		}
		if left == "" {
			continue
		}
		m, err := c.call(r.ctx, "prompts/get", map[string]any{"name": p.Name, "arguments": args})
		switch {
		case err != nil:
			return fail("%v", err)
		case m.Error == nil:
			return fail("prompts/get %s without its required argument %q answered a result; a missing required argument is error %d", p.Name, left, codeInvalidParams)
		case m.Error.Code != codeInvalidParams:
			return fail("prompts/get %s without its required argument %q answered %v, want code %d", p.Name, left, m.Error, codeInvalidParams)
		}
		return pass("%s without %q: %v", p.Name, left, m.Error)
	}
	return skip("no listed prompt has a required argument")
}

// completionResult is a CompleteResult.
type completionResult struct {
	Completion *struct {
		Values  []json.RawMessage `json:"values"`
		Total   json.RawMessage   `json:"total"`
		HasMore json.RawMessage   `json:"hasMore"`
	} `json:"completion"`
}

// complete sends completion/complete and returns the values, or a
// problem with the answer's shape.
func (r *runner) complete(c *conn, ref map[string]any, arg, value string) (values []string, hasMore bool, problem string, err error) {
	m, err := c.call(r.ctx, "completion/complete", map[string]any{
		"ref": ref, "argument": map[string]any{"name": arg, "value": value}})
	if err != nil {
		return nil, false, "", err
	}
	target, _ := ref["name"].(string)
	if uri, ok := ref["uri"].(string); ok {
		target = "resource " + uri
	} else {
		target = "prompt " + target
	}
	what := fmt.Sprintf("completing %s argument %q from %q", target, arg, value)
	if m.Error != nil {
		return nil, false, fmt.Sprintf("%s answered %v", what, m.Error), nil
	}
	values, hasMore, problem = completionProblem(m.Result)
	if problem != "" {
		return nil, false, what + ": " + problem, nil
	}
	return values, hasMore, "", nil
}

// completionProblem reads a CompleteResult: string values, at most
// maxCompletionValues of them, an integer total and a boolean hasMore
// when present.
func completionProblem(raw json.RawMessage) (values []string, hasMore bool, problem string) {
	var res completionResult
	if err := json.Unmarshal(raw, &res); err != nil || res.Completion == nil || res.Completion.Values == nil {
		return nil, false, fmt.Sprintf("result has no completion.values array: %s", textclip.Bytes(string(raw), 80))
	}
	cmp := res.Completion
	if len(cmp.Values) > maxCompletionValues {
		return nil, false, fmt.Sprintf("%d values, over the %d one answer may hold (say hasMore instead)", len(cmp.Values), maxCompletionValues)
	}
	for i, v := range cmp.Values {
		var s string
		if json.Unmarshal(v, &s) != nil {
			return nil, false, fmt.Sprintf("values[%d] is %s, not a string", i, textclip.Bytes(string(v), 40))
		}
		values = append(values, s)
	}
	if len(cmp.Total) > 0 {
		var n int64
		if json.Unmarshal(cmp.Total, &n) != nil || n < int64(len(values)) {
			return nil, false, fmt.Sprintf("total is %s, want an integer ≥ the %d values given", textclip.Bytes(string(cmp.Total), 40), len(values))
		}
	}
	if len(cmp.HasMore) > 0 && json.Unmarshal(cmp.HasMore, &hasMore) != nil {
		return nil, false, fmt.Sprintf("hasMore is %s, not a boolean", textclip.Bytes(string(cmp.HasMore), 40))
	}
	return values, hasMore, ""
}

// checkCompletion completes a listed prompt's first argument and, when
// a resource template has a {name} variable and skills are listed as
// resources, a skill name from its prefix.
func (r *runner) checkCompletion() outcome {
	c, err := r.session()
	if err != nil {
		return fail("%v", err)
	}
	if !r.declares("completions") {
		return skip("server does not declare the completions capability")
	}
	var done []string
	if i := slices.IndexFunc(r.prompts, func(p promptInfo) bool { return len(p.Arguments) > 0 }); i >= 0 {
		p := r.prompts[i]
		values, _, problem, err := r.complete(c, map[string]any{"type": "ref/prompt", "name": p.Name}, p.Arguments[0].Name, "")
		if problem != "" || err != nil {
			return fail("%s", problemOrErr(problem, err))
		}
		done = append(done, fmt.Sprintf("prompt %s argument %s: %d values", p.Name, p.Arguments[0].Name, len(values)))
	}
	if note, out, ok := r.completeSkillName(c); !ok {
		return out
	} else if note != "" {
		done = append(done, note)
	}
	if len(done) == 0 {
		return skip("nothing to complete: no listed prompt has arguments and no resource template has a {name} variable with skills listed")
	}
	return pass("%s", strings.Join(done, "; "))
}

// completeSkillName completes the {name} variable of a resource template
// from the prefix of a listed skill's name (one whose path is its name
// alone) and expects the name among the values. note is "" when there is
// nothing to try.
func (r *runner) completeSkillName(c *conn) (note string, out outcome, ok bool) {
	i := slices.IndexFunc(r.templates, func(t templateInfo) bool { return strings.Contains(t.URITemplate, "{name}") })
	j := slices.IndexFunc(skillResources(r.resources), func(s skillResource) bool { return !strings.Contains(s.path, "/") })
	if i < 0 || j < 0 {
		return "", outcome{}, true
	}
	tmpl, name := r.templates[i].URITemplate, skillResources(r.resources)[j].path
	ref := map[string]any{"type": "ref/resource", "uri": tmpl}
	prefix := name[:max(len(name)-1, 1)]
	values, hasMore, problem, err := r.complete(c, ref, "name", prefix)
	if problem == "" && err == nil && !slices.Contains(values, name) && hasMore {
		// Crowded out of the first page: the whole name narrows it.
		prefix = name
		values, _, problem, err = r.complete(c, ref, "name", prefix)
	}
	switch {
	case problem != "" || err != nil:
		return "", fail("%s", problemOrErr(problem, err)), false
	case !slices.Contains(values, name):
		return "", fail("completing %s argument name from %q gave %s, not the listed skill %q", tmpl, prefix, orNone(values), name), false
	}
	return fmt.Sprintf("%s name from %q: %s among %d values", tmpl, prefix, name, len(values)), outcome{}, true
}
