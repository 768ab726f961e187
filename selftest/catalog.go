package selftest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agent3md/agent3md/internal/textclip"
)

// maxCatalogPages bounds how many list_skills pages the catalog check
// reads; a catalog longer than that is sampled from the pages read.
const maxCatalogPages = 1000

// maxCatalogLimit is the largest page size the harness asks list_skills
// for, when its schema declares a "limit" with a maximum.
const maxCatalogLimit = 1000

// skillInfo is one entry of list_skills: the reference's fields (name, z,
// triggers, cost, tool) and the richer ones servers may add.
type skillInfo struct {
	Name        string      `json:"name"`
	Z           *float64    `json:"z"`
	Description string      `json:"description"`
	Triggers    []string    `json:"triggers"`
	Inputs      []inputInfo `json:"inputs"`
	Tool        *string     `json:"tool"`
	Cost        *string     `json:"cost"`
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

// referenceFields are the keys every list_skills entry carries.
var referenceFields = []string{"name", "z", "triggers"}

// parseSkillCatalog reads one list_skills text: a top-level JSON array of
// skills, each with at least the reference's name, z and triggers.
func parseSkillCatalog(text string) ([]skillInfo, error) {
	trimmed := strings.TrimSpace(text)
	if !strings.HasPrefix(trimmed, "[") {
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(trimmed), &obj) == nil && obj["skills"] != nil {
			return nil, fmt.Errorf("list_skills text is an object with \"skills\" (the old shape); the contract is a top-level JSON array of {name, z, triggers, cost, tool, …}")
		}
		return nil, fmt.Errorf("list_skills text is not a JSON array of skills (starts %q)", textclip.Bytes(trimmed, 60))
	}
	var raws []json.RawMessage
	if err := json.Unmarshal([]byte(trimmed), &raws); err != nil {
		return nil, fmt.Errorf("list_skills text is not a JSON array of skills: %v", err)
	}
	skills := make([]skillInfo, len(raws))
	for i, raw := range raws {
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(raw, &keys); err != nil || keys == nil {
			return nil, fmt.Errorf("list_skills entry #%d is not an object: %s", i+1, textclip.Bytes(string(raw), 60))
		}
		for _, k := range referenceFields {
			if _, ok := keys[k]; !ok {
				return nil, fmt.Errorf("list_skills entry #%d lacks %q (every entry carries %s)", i+1, k, strings.Join(referenceFields, ", "))
			}
		}
		if err := json.Unmarshal(raw, &skills[i]); err != nil {
			return nil, fmt.Errorf("list_skills entry #%d: %v", i+1, err)
		}
	}
	return skills, nil
}

// validateSkills checks names are present and unique, z is a number and
// inputs are typed.
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
		if s.Z == nil {
			return fmt.Errorf("skill %q has no numeric z", s.Name)
		}
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

// nextSkillCursor finds where a list_skills page says the next one
// starts: structuredContent's "nextCursor", or a later text block that is
// a JSON object carrying one. "" means this was the last page.
func nextSkillCursor(res *toolResult) string {
	var sc struct {
		NextCursor string `json:"nextCursor"`
	}
	if json.Unmarshal(res.StructuredContent, &sc) == nil && sc.NextCursor != "" {
		return sc.NextCursor
	}
	for _, c := range res.Content {
		t := strings.TrimSpace(c.Text)
		if c.Type == "text" && strings.HasPrefix(t, "{") && json.Unmarshal([]byte(t), &sc) == nil && sc.NextCursor != "" {
			return sc.NextCursor
		}
	}
	return ""
}

// catalogText is the text block of a list_skills page holding the array
// (the first one that starts with "["), else the first text block.
func catalogText(res *toolResult) string {
	first, found := "", false
	for _, c := range res.Content {
		if c.Type != "text" {
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(c.Text), "[") {
			return c.Text
		}
		if !found {
			first, found = c.Text, true
		}
	}
	return first
}

// catalogLimit is the page size to ask list_skills for: the maximum its
// schema allows (capped), or 0 to leave the server's default.
func catalogLimit(t toolDef) int {
	var schema struct {
		Properties map[string]struct {
			Maximum *float64 `json:"maximum"`
		} `json:"properties"`
	}
	if json.Unmarshal(t.InputSchema, &schema) != nil {
		return 0
	}
	if p, ok := schema.Properties["limit"]; ok && p.Maximum != nil && *p.Maximum >= 1 {
		return int(min(*p.Maximum, maxCatalogLimit))
	}
	return 0
}

// checkListSkills reads the whole catalog from list_skills, page by page,
// and keeps it for later checks.
func (r *runner) checkListSkills() outcome {
	c, out, ok := r.needTools(toolList)
	if !ok {
		r.skillsErr = "list_skills was skipped"
		return out
	}
	r.skillsErr = "list_skills failed"
	limit := catalogLimit(r.tools[toolList])
	var all []skillInfo
	cursor, pages := "", 0
	for ; pages < maxCatalogPages; pages++ {
		args := map[string]any{}
		if limit > 0 {
			args["limit"] = limit
		}
		if cursor != "" {
			args["cursor"] = cursor
		}
		res, rerr, err := r.callTool(c, toolList, args)
		switch {
		case err != nil:
			return fail("page %d: %v", pages+1, err)
		case rerr != nil:
			return fail("page %d: list_skills answered %v", pages+1, rerr)
		case res.IsError:
			return fail("page %d: list_skills returned a tool error: %s", pages+1, textclip.Bytes(res.Text(), 200))
		}
		skills, err := parseSkillCatalog(catalogText(res))
		if err != nil {
			return fail("page %d: %v", pages+1, err)
		}
		all = append(all, skills...)
		if cursor = nextSkillCursor(res); cursor == "" {
			pages++
			break
		}
	}
	if err := validateSkills(all); err != nil {
		return fail("%v", err)
	}
	r.skills = all
	note := ""
	if cursor != "" {
		note = fmt.Sprintf("; stopped after %d pages, later checks sample the skills read", maxCatalogPages)
	}
	return pass("%d skills in %d page(s)%s", len(all), pages, note)
}
