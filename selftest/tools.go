package selftest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// The agent3md skill tools (DESIGN.md §6).
const (
	toolList    = "list_skills"
	toolRoute   = "route_skill"
	toolGet     = "get_skill"
	toolResolve = "resolve_skill"
	toolFill    = "fill_skill"
)

// skillTools are the tools every agent3md-compatible server lists.
var skillTools = []string{toolList, toolRoute, toolGet, toolResolve, toolFill}

// maxListPages bounds tools/list pagination.
const maxListPages = 100

// maxProblems caps how many per-skill problems a detail lists.
const maxProblems = 5

// toolDef is the part of a Tool the checks read.
type toolDef struct {
	Name        string          `json:"name"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// toolResult is the part of a CallToolResult the checks read.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

// text joins the result's text blocks.
func (t *toolResult) text() string {
	var parts []string
	for _, c := range t.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// callTool calls a tool; exactly one of the results is non-nil on success.
func (r *runner) callTool(c *conn, name string, args map[string]any) (*toolResult, *rpcError, error) {
	m, err := c.call(r.ctx, "tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return nil, nil, err
	}
	if m.Error != nil {
		return nil, m.Error, nil
	}
	var res toolResult
	if err := json.Unmarshal(m.Result, &res); err != nil {
		return nil, nil, fmt.Errorf("tools/call %s result is not a CallToolResult: %v", name, err)
	}
	return &res, nil, nil
}

// needTools returns a session for a check that calls tools, or the
// outcome to record instead (ok=false).
func (r *runner) needTools(tool string) (*conn, outcome, bool) {
	c, err := r.session()
	if err != nil {
		return nil, fail("%v", err), false
	}
	if r.initResult != nil && r.initResult.Capabilities != nil && r.initResult.Capabilities["tools"] == nil {
		return nil, skip("server does not declare the tools capability"), false
	}
	if tool != "" && r.tools != nil {
		if _, ok := r.tools[tool]; !ok {
			return nil, skip("server does not list the %s tool", tool), false
		}
	}
	return c, outcome{}, true
}

// needSkills is needTools plus the skill catalog from list_skills.
func (r *runner) needSkills(tool string) (*conn, outcome, bool) {
	c, out, ok := r.needTools(tool)
	if !ok {
		return nil, out, false
	}
	if r.skills == nil {
		return nil, skip("needs the skill catalog: %s", r.skillsErr), false
	}
	if len(r.skills) == 0 {
		return nil, skip("the agent has no skills"), false
	}
	return c, outcome{}, true
}

// toolChecks lists the tools and exercises each skill tool.
func (r *runner) toolChecks() {
	r.skillsErr = "list_skills was not run"
	r.check("tools/list", r.checkToolsList)
	r.check("tool/"+toolList, r.checkListSkills)
	r.check("tool/"+toolRoute, r.checkRoute)
	r.check("tool/"+toolGet, r.checkGet)
	r.check("tool/"+toolResolve, r.checkResolve)
	r.check("tool/"+toolFill, r.checkFill)
	r.check("tool/"+toolFill+"-missing", r.checkFillMissing)
}

// listTools pages through tools/list, with extra params on every page.
func (r *runner) listTools(c *conn, params func(cursor string) map[string]any) ([]toolDef, []json.RawMessage, error) {
	var all []toolDef
	var pages []json.RawMessage
	cursor := ""
	for range maxListPages {
		m, err := c.call(r.ctx, "tools/list", params(cursor))
		if err != nil {
			return nil, nil, err
		}
		if m.Error != nil {
			return nil, nil, fmt.Errorf("tools/list answered %v", m.Error)
		}
		var page struct {
			Tools      []toolDef `json:"tools"`
			NextCursor string    `json:"nextCursor"`
		}
		if err := json.Unmarshal(m.Result, &page); err != nil {
			return nil, nil, fmt.Errorf("tools/list result is not a ListToolsResult: %v", err)
		}
		all = append(all, page.Tools...)
		pages = append(pages, m.Result)
		if page.NextCursor == "" {
			return all, pages, nil
		}
		cursor = page.NextCursor
	}
	return nil, nil, fmt.Errorf("tools/list still had a nextCursor after %d pages", maxListPages)
}

// checkTools checks that the five skill tools are listed with object input
// schemas and returns them by name.
func checkTools(tools []toolDef) (map[string]toolDef, []string) {
	byName := make(map[string]toolDef, len(tools))
	var problems []string
	for _, t := range tools {
		if _, dup := byName[t.Name]; dup {
			problems = append(problems, fmt.Sprintf("tool %q listed twice", t.Name))
		}
		byName[t.Name] = t
	}
	for _, name := range skillTools {
		t, ok := byName[name]
		if !ok {
			problems = append(problems, fmt.Sprintf("tool %s is missing", name))
			continue
		}
		var schema struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(t.InputSchema, &schema); err != nil || schema.Type != "object" {
			problems = append(problems, fmt.Sprintf("tool %s inputSchema must be a JSON Schema with \"type\":\"object\", got %s", name, orAbsent(t.InputSchema)))
		}
	}
	return byName, problems
}

// checkToolsList runs tools/list on the legacy session.
func (r *runner) checkToolsList() outcome {
	c, out, ok := r.needTools("")
	if !ok {
		return out
	}
	tools, _, err := r.listTools(c, func(cursor string) map[string]any {
		if cursor == "" {
			return nil
		}
		return map[string]any{"cursor": cursor}
	})
	if err != nil {
		return fail("%v", err)
	}
	byName, problems := checkTools(tools)
	r.tools = byName
	if len(problems) > 0 {
		return fail("%s", strings.Join(problems, "; "))
	}
	return pass("%d tools, including the five skill tools", len(tools))
}

// checkModernToolsList runs tools/list as a stateless 2026-07-28 request.
func (r *runner) checkModernToolsList(c *conn) outcome {
	tools, pages, err := r.listTools(c, func(cursor string) map[string]any {
		if cursor == "" {
			return modernParams(modernRev, nil)
		}
		return modernParams(modernRev, map[string]any{"cursor": cursor})
	})
	if err != nil {
		return fail("%v", err)
	}
	_, problems := checkTools(tools)
	for i, raw := range pages {
		var page struct {
			ResultType string          `json:"resultType"`
			TTLMs      json.RawMessage `json:"ttlMs"`
			CacheScope string          `json:"cacheScope"`
		}
		json.Unmarshal(raw, &page) // already decoded once by listTools
		if page.ResultType != "complete" {
			problems = append(problems, fmt.Sprintf("page %d: resultType is %q, want \"complete\"", i+1, page.ResultType))
		}
		for _, p := range cacheProblems(page.TTLMs, page.CacheScope) {
			problems = append(problems, fmt.Sprintf("page %d: %s", i+1, p))
		}
	}
	if len(problems) > 0 {
		return fail("%s", strings.Join(problems, "; "))
	}
	return pass("%d tools with resultType and cache hints", len(tools))
}

// skillInfo is one entry of list_skills.
type skillInfo struct {
	Name        string      `json:"name"`
	Z           *float64    `json:"z"`
	Description string      `json:"description"`
	Triggers    []string    `json:"triggers"`
	Inputs      []inputInfo `json:"inputs"`
	Tool        *string     `json:"tool"`
	Cost        string      `json:"cost"`
	Deps        []string    `json:"deps"`
}

// inputInfo is one declared input; servers may say required or optional.
type inputInfo struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Required *bool  `json:"required"`
	Optional *bool  `json:"optional"`
}

// required reports whether the input must have a value (the default).
func (in inputInfo) required() bool {
	if in.Required != nil {
		return *in.Required
	}
	return in.Optional == nil || !*in.Optional
}

// inputTypes are the agent3md/1 input types.
var inputTypes = []string{"string", "number", "boolean", "object", "array"}

// parseSkillCatalog reads list_skills text: an object with "skills", or a
// bare array of skills.
func parseSkillCatalog(text string) ([]skillInfo, error) {
	trimmed := strings.TrimSpace(text)
	var skills []skillInfo
	if strings.HasPrefix(trimmed, "[") {
		if err := json.Unmarshal([]byte(trimmed), &skills); err != nil {
			return nil, fmt.Errorf("list_skills text is not a JSON array of skills: %v", err)
		}
	} else {
		var doc struct {
			Agent  json.RawMessage `json:"agent"`
			Skills *[]skillInfo    `json:"skills"`
		}
		if err := json.Unmarshal([]byte(trimmed), &doc); err != nil {
			return nil, fmt.Errorf("list_skills text is not JSON: %v (starts %q)", err, snippet(trimmed, 60))
		}
		if doc.Skills == nil {
			return nil, fmt.Errorf("list_skills JSON has no \"skills\" array")
		}
		if len(doc.Agent) == 0 {
			return nil, fmt.Errorf("list_skills JSON has no \"agent\"")
		}
		skills = *doc.Skills
	}
	if skills == nil {
		skills = []skillInfo{}
	}
	return skills, validateSkills(skills)
}

// validateSkills checks names are present and unique and inputs are typed.
func validateSkills(skills []skillInfo) error {
	seen := make(map[string]bool, len(skills))
	for i, s := range skills {
		if s.Name == "" {
			return fmt.Errorf("skill #%d has no name", i+1)
		}
		if seen[s.Name] {
			return fmt.Errorf("skill %q is listed twice", s.Name)
		}
		seen[s.Name] = true
		for _, in := range s.Inputs {
			if in.Name == "" {
				return fmt.Errorf("skill %q has an input without a name", s.Name)
			}
			if in.Type != "" && !slices.Contains(inputTypes, in.Type) {
				return fmt.Errorf("skill %q input %q has type %q, want one of %s", s.Name, in.Name, in.Type, strings.Join(inputTypes, ", "))
			}
		}
	}
	return nil
}

// checkListSkills calls list_skills and keeps the catalog for later checks.
func (r *runner) checkListSkills() outcome {
	c, out, ok := r.needTools(toolList)
	if !ok {
		r.skillsErr = "list_skills was skipped"
		return out
	}
	r.skillsErr = "list_skills failed"
	res, rerr, err := r.callTool(c, toolList, map[string]any{})
	switch {
	case err != nil:
		return fail("%v", err)
	case rerr != nil:
		return fail("list_skills answered %v", rerr)
	case res.IsError:
		return fail("list_skills returned a tool error: %s", snippet(res.text(), 200))
	}
	skills, err := parseSkillCatalog(res.text())
	if err != nil {
		return fail("%v", err)
	}
	r.skills = skills
	return pass("%d skills", len(skills))
}

// eachSkill runs fn on each skill up to MaxSkills. fn returns a problem
// ("" when fine) or an error that ends the loop (a dead connection).
func (r *runner) eachSkill(verb string, fn func(s skillInfo) (string, error)) outcome {
	n := min(len(r.skills), r.o.MaxSkills)
	capNote := ""
	if n < len(r.skills) {
		capNote = fmt.Sprintf(" (the first %d of %d skills; raise MaxSkills to check more)", n, len(r.skills))
	}
	var problems []string
	checked, bad := 0, 0
	for _, s := range r.skills[:n] {
		problem, err := fn(s)
		if err != nil {
			return fail("%s %q: %v (after %d skills)", verb, s.Name, err, checked)
		}
		if problem == "skip" {
			continue
		}
		checked++
		if problem != "" {
			bad++
			if len(problems) < maxProblems {
				problems = append(problems, problem)
			}
		}
	}
	if bad > 0 {
		more := ""
		if bad > len(problems) {
			more = fmt.Sprintf("; and %d more", bad-len(problems))
		}
		return fail("%d of %d skills%s: %s%s", bad, checked, capNote, strings.Join(problems, "; "), more)
	}
	if checked == 0 {
		return skip("no skill qualifies for this check%s", capNote)
	}
	return pass("%d skills%s", checked, capNote)
}

// routeLine matches one route_skill match line: "name  (score N; ...)".
var routeLine = regexp.MustCompile(`^(.+?)  \((.*)\)$`)

// routedNames reads the skill names out of route_skill text.
func routedNames(text string) ([]string, error) {
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || line == "no skill matched" {
			continue
		}
		m := routeLine.FindStringSubmatch(line)
		if m == nil || !strings.HasPrefix(m[2], "score ") {
			return nil, fmt.Errorf("line %q is not `name  (score N; matched: ...)`", snippet(line, 80))
		}
		names = append(names, m[1])
	}
	return names, nil
}

// checkRoute routes each skill's first trigger and expects the skill back.
func (r *runner) checkRoute() outcome {
	c, out, ok := r.needSkills(toolRoute)
	if !ok {
		return out
	}
	return r.eachSkill(toolRoute, func(s skillInfo) (string, error) {
		if len(s.Triggers) == 0 {
			return "skip", nil
		}
		res, rerr, err := r.callTool(c, toolRoute, map[string]any{"text": s.Triggers[0]})
		if p, err := toolProblem(s.Name, res, rerr, err); p != "" || err != nil {
			return p, err
		}
		names, perr := routedNames(res.text())
		if perr != nil {
			return fmt.Sprintf("%s: %v", s.Name, perr), nil
		}
		if !slices.Contains(names, s.Name) {
			return fmt.Sprintf("%q routed to %s, not %s", s.Triggers[0], orNone(names), s.Name), nil
		}
		return "", nil
	})
}

// toolProblem turns a failed tool call into a problem or an error.
func toolProblem(skill string, res *toolResult, rerr *rpcError, err error) (string, error) {
	switch {
	case err != nil:
		return "", err
	case rerr != nil:
		return fmt.Sprintf("%s: %v", skill, rerr), nil
	case res.IsError:
		return fmt.Sprintf("%s: tool error %q", skill, snippet(res.text(), 100)), nil
	}
	return "", nil
}

// checkGet fetches every skill's body.
func (r *runner) checkGet() outcome {
	c, out, ok := r.needSkills(toolGet)
	if !ok {
		return out
	}
	return r.eachSkill(toolGet, func(s skillInfo) (string, error) {
		res, rerr, err := r.callTool(c, toolGet, map[string]any{"name": s.Name})
		if p, err := toolProblem(s.Name, res, rerr, err); p != "" || err != nil {
			return p, err
		}
		text := res.text()
		if strings.TrimSpace(text) == "" {
			return fmt.Sprintf("%s: empty body", s.Name), nil
		}
		return expectProblem(s.Name, text, r.o.Expect), nil
	})
}

// checkResolve resolves every skill.
func (r *runner) checkResolve() outcome {
	c, out, ok := r.needSkills(toolResolve)
	if !ok {
		return out
	}
	return r.eachSkill(toolResolve, func(s skillInfo) (string, error) {
		res, rerr, err := r.callTool(c, toolResolve, map[string]any{"name": s.Name})
		if p, err := toolProblem(s.Name, res, rerr, err); p != "" || err != nil {
			return p, err
		}
		text := res.text()
		head := "### " + s.Name
		if text != head && !strings.HasPrefix(text, head+"\n") {
			return fmt.Sprintf("%s: text starts %q, want %q", s.Name, snippet(text, 40), head+"\\n"), nil
		}
		return expectProblem(s.Name, text, r.o.ExpectResolve), nil
	})
}

// expectProblem compares got with the expectation for name, if any.
func expectProblem(name, got string, expect func(string) (string, bool)) string {
	if expect == nil {
		return ""
	}
	want, ok := expect(name)
	if !ok || got == want {
		return ""
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	return fmt.Sprintf("%s: text differs from the expected one at byte %d (got %d bytes, want %d; got …%q…, want …%q…)",
		name, i, len(got), len(want), snippet(got[i:], 30), snippet(want[i:], 30))
}

// orNone lists names for a detail.
func orNone(names []string) string {
	if len(names) == 0 {
		return "nothing"
	}
	if len(names) > 5 {
		return strings.Join(names[:5], ", ") + ", …"
	}
	return strings.Join(names, ", ")
}
