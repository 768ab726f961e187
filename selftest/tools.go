package selftest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agent3md/agent3md/mcpclient"
)

// The agent-3md skill tools (docs/protocol.md §4). The first four are the
// reference server's contract; fill_skill is ours and optional for other
// servers.
const (
	toolList    = "list_skills"
	toolRoute   = "route_skill"
	toolGet     = "get_skill"
	toolResolve = "resolve_skill"
	toolFill    = "fill_skill"
)

// contractTools are the tools every agent-3md server lists.
var contractTools = []string{toolList, toolRoute, toolGet, toolResolve}

// markerTools are the contract tools whose names no other kind of skill
// server uses; listing one of them makes a server an agent-3md server
// (list_skills and get_skill are common names elsewhere, so they alone
// prove nothing).
var markerTools = []string{toolRoute, toolResolve}

// maxListPages bounds every paginated list (tools, resources, prompts).
const maxListPages = 100

// maxProblems caps how many per-item problems a detail lists.
const maxProblems = 5

// firstProblems joins the first maxProblems of problems for a check's
// detail line.
func firstProblems(problems []string) string {
	return strings.Join(problems[:min(len(problems), maxProblems)], "; ")
}

// toolDef is the part of a Tool the checks read.
type toolDef struct {
	Name         string          `json:"name"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  *struct {
		ReadOnlyHint    *bool `json:"readOnlyHint"`
		DestructiveHint *bool `json:"destructiveHint"`
	} `json:"annotations"`
}

// toolResult is the part of a CallToolResult the checks read.
type toolResult = mcpclient.ToolResult

// callTool calls a tool; exactly one of the results is non-nil on success.
// The call carries a progress token, so a server that reports progress on
// a slow call keeps it from timing out (conn.await restarts its timeout on each).
func (r *runner) callTool(c *conn, name string, args map[string]any) (*toolResult, *rpcError, error) {
	c.progress = fmt.Sprintf("selftest-progress-%d", c.nextID+1)
	defer func() { c.progress = "" }()
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
// outcome to record instead (ok=false). A contract tool is skipped on a
// server that is not an agent-3md server, and fill_skill is skipped when
// absent; any other tool must be listed.
func (r *runner) needTools(tool string) (*conn, outcome, bool) {
	c, err := r.session()
	if err != nil {
		return nil, fail("%v", err), false
	}
	if !r.declares("tools") {
		return nil, skip("server does not declare the tools capability"), false
	}
	if tool == "" || r.tools == nil {
		return c, outcome{}, true
	}
	contract := slices.Contains(contractTools, tool) || tool == toolFill
	if contract && !r.agent3md {
		// A same-named tool elsewhere (list_skills, get_skill) is not
		// held to this contract.
		return nil, skip("%s", notAgent3md), false
	}
	if _, ok := r.tools[tool]; ok {
		return c, outcome{}, true
	}
	switch {
	case tool == toolFill:
		return nil, skip("server does not list the optional %s tool", toolFill), false
	case slices.Contains(contractTools, tool):
		return nil, skip("server does not list %s (contract/agent3md fails for it)", tool), false
	}
	return nil, skip("server does not list the %s tool", tool), false
}

// notAgent3md is the detail of every skipped contract check.
const notAgent3md = "not an agent-3md server: contract checks skipped"

// declares reports whether the main session's server declared the
// capability (true when the handshake result is unknown, so the check
// itself reports what is wrong).
func (r *runner) declares(capability string) bool {
	if r.initResult == nil || r.initResult.Capabilities == nil {
		return true
	}
	return r.initResult.Capabilities[capability] != nil
}

// toolChecks lists the tools, calls each one generically, then runs the
// agent-3md contract checks.
func (r *runner) toolChecks() {
	r.skillsErr = "list_skills was not run"
	r.check("tools/list", r.checkToolsList)
	r.check("tools/call", r.checkCallEach)
	r.resourceChecks()
	r.promptChecks()
	r.skillResourceChecks()
	r.check("prompts/missing-argument", r.checkPromptMissingArgument)
	r.check("completion/complete", r.checkCompletion)
	r.skillsExtensionChecks()
	r.check("contract/agent3md", r.checkContract)
	r.check("tool/"+toolList, r.checkListSkills)
	r.check("tool/"+toolRoute, r.checkRoute)
	r.check("tool/"+toolGet, r.checkGet)
	r.check("tool/"+toolGet+"-file", r.checkGetFile)
	r.check("tool/"+toolResolve, r.checkResolve)
	r.check("tool/"+toolFill, r.checkFill)
	r.check("tool/"+toolFill+"-missing", r.checkFillMissing)
}

// listTools pages through tools/list, with extra params on every page.
func (r *runner) listTools(c *conn, params func(cursor string) map[string]any) ([]toolDef, []json.RawMessage, error) {
	var all []toolDef
	var pages []json.RawMessage
	more, err := r.paginate(c, "tools/list", params, func(raw json.RawMessage) (string, error) {
		var page struct {
			Tools      []toolDef `json:"tools"`
			NextCursor string    `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			return "", fmt.Errorf("tools/list result is not a ListToolsResult: %v", err)
		}
		if page.Tools == nil {
			return "", fmt.Errorf("tools/list result has no \"tools\" array")
		}
		all = append(all, page.Tools...)
		pages = append(pages, raw)
		return page.NextCursor, nil
	})
	if err == nil && more {
		err = fmt.Errorf("tools/list still had a nextCursor after %d pages", maxListPages)
	}
	return all, pages, err
}

// paginate calls method page by page until a page has no nextCursor or
// maxListPages were read (more=true then); take reads one page's result
// and returns its nextCursor.
func (r *runner) paginate(c *conn, method string, params func(cursor string) map[string]any, take func(json.RawMessage) (string, error)) (more bool, err error) {
	cursor := ""
	for range maxListPages {
		m, err := c.call(r.ctx, method, params(cursor))
		if err != nil {
			return false, err
		}
		if m.Error != nil {
			return false, fmt.Errorf("%s answered %v", method, m.Error)
		}
		next, err := take(m.Result)
		if err != nil {
			return false, err
		}
		if next == "" {
			return false, nil
		}
		cursor = next
	}
	return true, nil
}

// cursorParams is the params of a legacy list request: none on the first
// page, the cursor after.
func cursorParams(cursor string) map[string]any {
	if cursor == "" {
		return nil
	}
	return map[string]any{"cursor": cursor}
}

// checkTools checks the shape every server's tool list must have (unique,
// non-empty names; object input schemas) and returns the tools by name.
func checkTools(tools []toolDef) (map[string]toolDef, []string) {
	byName := make(map[string]toolDef, len(tools))
	var problems []string
	for i, t := range tools {
		if t.Name == "" {
			problems = append(problems, fmt.Sprintf("tool #%d has no name", i+1))
			continue
		}
		if _, dup := byName[t.Name]; dup {
			problems = append(problems, fmt.Sprintf("tool %q listed twice", t.Name))
		}
		byName[t.Name] = t
		var schema struct {
			Type any `json:"type"`
		}
		if err := json.Unmarshal(t.InputSchema, &schema); err != nil || schema.Type != "object" {
			problems = append(problems, fmt.Sprintf("tool %s inputSchema must be a JSON Schema with \"type\":\"object\", got %s", t.Name, orAbsent(t.InputSchema)))
		}
	}
	return byName, problems
}

// isAgent3md reports whether the tool list marks an agent-3md server.
func isAgent3md(byName map[string]toolDef) bool {
	return slices.ContainsFunc(markerTools, func(n string) bool { _, ok := byName[n]; return ok })
}

// missingContract lists the contract tools an agent-3md server lacks.
func missingContract(byName map[string]toolDef) []string {
	var missing []string
	for _, n := range contractTools {
		if _, ok := byName[n]; !ok {
			missing = append(missing, n)
		}
	}
	return missing
}

// checkToolsList runs tools/list on the legacy session.
func (r *runner) checkToolsList() outcome {
	c, out, ok := r.needTools("")
	if !ok {
		return out
	}
	tools, _, err := r.listTools(c, cursorParams)
	if err != nil {
		return fail("%v", err)
	}
	byName, problems := checkTools(tools)
	r.tools, r.toolOrder = byName, tools
	r.agent3md = isAgent3md(byName)
	if len(problems) > 0 {
		return fail("%s", strings.Join(problems, "; "))
	}
	return pass("%d tools: %s", len(tools), orNone(toolNames(tools)))
}

// toolNames lists the tools' names in order.
func toolNames(tools []toolDef) []string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return names
}

// checkContract says whether the agent-3md contract checks apply.
func (r *runner) checkContract() outcome {
	if r.tools == nil {
		if r.fatal != "" {
			return fail("cannot check: %s", r.fatal)
		}
		return skip("needs the tool list, which tools/list did not give")
	}
	if !r.agent3md {
		return skip("%s (it lists neither %s)", notAgent3md, strings.Join(markerTools, " nor "))
	}
	if missing := missingContract(r.tools); len(missing) > 0 {
		return fail("agent-3md server lacks %s; every agent-3md server offers %s", strings.Join(missing, ", "), strings.Join(contractTools, ", "))
	}
	extra := ""
	if _, ok := r.tools[toolFill]; !ok {
		extra = " (not the optional " + toolFill + ")"
	}
	return pass("agent-3md server: lists %s%s", strings.Join(contractTools, ", "), extra)
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
	byName, problems := checkTools(tools)
	if isAgent3md(byName) {
		if missing := missingContract(byName); len(missing) > 0 {
			problems = append(problems, "agent-3md server lacks "+strings.Join(missing, ", "))
		}
	}
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
