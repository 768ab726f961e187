package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/router"
)

// The five tools. Descriptions are written for a model: when to call the
// tool, in a sentence or two.
var (
	listSkillsTool = &toolDef{
		name:  toolListSkills,
		title: "List skills",
		desc: "List every skill this agent offers, with its trigger phrases, typed inputs, command template and dependencies, as JSON. " +
			"Call it to see what the agent can do or to look up a skill's exact name and inputs.",
		output: json.RawMessage(`{"type":"object","properties":{"agent":{"type":"string"},"skills":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"z":{"type":"number"},"description":{"type":"string"},"triggers":{"type":"array","items":{"type":"string"}},"inputs":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"type":{"type":"string"},"required":{"type":"boolean"}},"required":["name","type","required"]}},"tool":{"type":"string"},"cost":{"type":"string"},"deps":{"type":"array","items":{"type":"string"}}},"required":["name","z","description","triggers","inputs","deps"]}}},"required":["agent","skills"]}`),
		run:    (*server).listSkills,
	}
	routeSkillTool = &toolDef{
		name:  toolRouteSkill,
		title: "Route a request to skills",
		desc: "Find which skills fit a request: pass the user's request as text and get the matching skill names, best first, with the trigger phrases that matched. " +
			"Call it first when you do not know which skill applies, then load the winner with get_skill.",
		params: []paramDef{
			{name: "text", kind: "string", required: true, desc: "the request to route, in the user's words"},
			{name: "mode", kind: "string", enum: []string{string(router.Ranked), string(router.Spec)},
				desc: `"ranked" (default: stemmed phrase matching, relevance tie-breaks, relaxed matches when no phrase hits) or "spec" (exact agent3md/1 trigger matching)`},
			{name: "limit", kind: "integer", desc: "at most this many matches; 0 means all; absent means 10 in ranked mode and all in spec mode"},
		},
		output: json.RawMessage(`{"type":"object","properties":{"matches":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"z":{"type":"number"},"score":{"type":"integer"},"relevance":{"type":"number"},"hits":{"type":"array","items":{"type":"string"}},"tier":{"type":"string","enum":["phrase","name","relaxed"]}},"required":["name","z","score","relevance","hits","tier"]}}},"required":["matches"]}`),
		run:    (*server).routeSkill,
	}
	getSkillTool = &toolDef{
		name:   toolGetSkill,
		title:  "Get a skill",
		desc:   "Load one skill's instructions (its Markdown body) by name. Call it once you know which skill to follow.",
		params: []paramDef{{name: "name", kind: "string", required: true, desc: "the skill's name, as list_skills or route_skill gives it"}},
		output: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"body":{"type":"string"}},"required":["name","body"]}`),
		run:    (*server).getSkill,
	}
	resolveSkillTool = &toolDef{
		name:  toolResolveSkill,
		title: "Resolve a skill with its dependencies",
		desc: "Load a skill together with every skill it depends on (depth-first, each once), each as a \"### name\" section. " +
			"Call it instead of get_skill when the skill links to other skills.",
		params: []paramDef{{name: "name", kind: "string", required: true, desc: "the skill's name, as list_skills or route_skill gives it"}},
		output: json.RawMessage(`{"type":"object","properties":{"skills":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"z":{"type":"number"},"body":{"type":"string"}},"required":["name","z","body"]}}},"required":["skills"]}`),
		run:    (*server).resolveSkill,
	}
	fillSkillTool = &toolDef{
		name:  toolFillSkill,
		title: "Fill a skill's command",
		desc: "Fill a skill's command template with input values and get back the shell-quoted command, the required inputs still missing, and values of the wrong type. " +
			"It never runs anything: run the command yourself once it is ready.",
		params: []paramDef{
			{name: "name", kind: "string", required: true, desc: "the skill's name, as list_skills or route_skill gives it"},
			{name: "values", kind: "object", desc: "input name -> value (strings, numbers or booleans; objects and arrays are passed as compact JSON text)"},
		},
		output: json.RawMessage(`{"type":"object","properties":{"skill":{"type":"string"},"command":{"type":"string"},"hasTool":{"type":"boolean"},"ready":{"type":"boolean"},"missing":{"type":"array","items":{"type":"string"}},"invalid":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"type":{"type":"string"},"reason":{"type":"string"}},"required":["name","type","reason"]}},"unknown":{"type":"array","items":{"type":"string"}},"omitted":{"type":"array","items":{"type":"string"}},"unbound":{"type":"array","items":{"type":"string"}}},"required":["skill","command","hasTool","ready","missing","invalid","unknown","omitted","unbound"]}`),
		run:    (*server).fillSkill,
	}
)

// unknownSkill turns a loader error into the model-facing answer: an
// unknown name lists the closest names; anything else is returned.
func (s *server) unknownSkill(err error, name string) (*toolOutcome, error) {
	var ue *loader.UnknownSkillError
	if !errors.As(err, &ue) {
		return nil, err
	}
	closest := ue.Closest
	if len(closest) == 0 {
		closest = s.agent.Closest(name, 3)
	}
	msg := "Unknown skill: " + name
	if len(closest) > 0 {
		msg += " (closest: " + strings.Join(closest, ", ") + ")"
	}
	msg += `. Argument "name" must be one of the agent's skill names; call list_skills to see them all.`
	return &toolOutcome{text: msg, isError: true}, nil
}

type catalogInput struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Required bool   `json:"required"`
}

type catalogSkill struct {
	Name        string         `json:"name"`
	Z           float64        `json:"z"`
	Description string         `json:"description"`
	Triggers    []string       `json:"triggers"`
	Inputs      []catalogInput `json:"inputs"`
	Tool        string         `json:"tool,omitempty"`
	Cost        string         `json:"cost,omitempty"`
	Deps        []string       `json:"deps"`
}

type skillCatalog struct {
	Agent  string         `json:"agent"`
	Skills []catalogSkill `json:"skills"`
}

func (s *server) listSkills(ctx context.Context, _ map[string]json.RawMessage) (*toolOutcome, error) {
	infos := s.agent.Skills()
	cat := skillCatalog{Agent: s.agentName(), Skills: make([]catalogSkill, 0, len(infos))}
	for _, in := range infos {
		cs := catalogSkill{
			Name: in.Name, Z: in.Z, Description: in.Description,
			Triggers: nonNil(in.Triggers), Inputs: make([]catalogInput, len(in.Inputs)),
			Tool: in.Tool, Cost: in.Cost, Deps: nonNil(in.Deps),
		}
		for i, input := range in.Inputs {
			cs.Inputs[i] = catalogInput{Name: input.Name, Type: input.Type, Required: !input.Optional}
		}
		cat.Skills = append(cat.Skills, cs)
	}
	text, err := marshalText(cat)
	if err != nil {
		return nil, err
	}
	return &toolOutcome{text: text, structured: cat}, nil
}

type routeMatch struct {
	Name      string   `json:"name"`
	Z         float64  `json:"z"`
	Score     int      `json:"score"`
	Relevance float64  `json:"relevance"`
	Hits      []string `json:"hits"`
	Tier      string   `json:"tier"`
}

// defaultRankedLimit bounds route_skill's ranked answer when the caller
// sends no limit.
const defaultRankedLimit = 10

type routeResult struct {
	Matches []routeMatch `json:"matches"`
}

func (s *server) routeSkill(ctx context.Context, args map[string]json.RawMessage) (*toolOutcome, error) {
	text := stringArg(args, "text")
	if strings.TrimSpace(text) == "" {
		return &toolOutcome{text: `argument "text" is empty: pass the request to route, in the user's words`, isError: true}, nil
	}
	q := &router.Query{Mode: router.Ranked}
	if m := stringArg(args, "mode"); m != "" {
		q.Mode = router.Mode(m)
	}
	if q.Mode == router.Ranked {
		// A model wants the few best skills, not every skill that shares a
		// word with the request: on a 100,000-skill agent "all" is
		// megabytes. Spec mode keeps the reference's "all matches".
		q.Limit = defaultRankedLimit
	}
	if raw, ok := args["limit"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &q.Limit); err != nil {
			return nil, fmt.Errorf("reading limit: %w", err)
		}
	}
	r, err := s.routing.wait(ctx)
	if err != nil {
		return nil, err
	}
	matches, err := r.Route(ctx, text, q)
	if err != nil {
		return nil, err
	}
	res := routeResult{Matches: make([]routeMatch, len(matches))}
	lines := make([]string, len(matches))
	for i, m := range matches {
		res.Matches[i] = routeMatch{Name: m.Name, Z: m.Z, Score: m.Score, Relevance: m.Relevance, Hits: nonNil(m.Hits), Tier: m.Tier}
		lines[i] = fmt.Sprintf("%s  (score %d; matched: %s)", m.Name, m.Score, strings.Join(m.Hits, ", "))
	}
	if len(lines) == 0 {
		return &toolOutcome{text: "no skill matched", structured: res}, nil
	}
	return &toolOutcome{text: strings.Join(lines, "\n"), structured: res}, nil
}

type skillBody struct {
	Name string `json:"name"`
	Body string `json:"body"`
}

func (s *server) getSkill(ctx context.Context, args map[string]json.RawMessage) (*toolOutcome, error) {
	name := stringArg(args, "name")
	body, err := s.agent.Body(ctx, name)
	if err != nil {
		return s.unknownSkill(err, name)
	}
	return &toolOutcome{text: body, structured: skillBody{Name: name, Body: body}}, nil
}

type resolvedSkill struct {
	Name string  `json:"name"`
	Z    float64 `json:"z"`
	Body string  `json:"body"`
}

type resolveResult struct {
	Skills []resolvedSkill `json:"skills"`
}

func (s *server) resolveSkill(ctx context.Context, args map[string]json.RawMessage) (*toolOutcome, error) {
	name := stringArg(args, "name")
	chain, err := s.agent.Resolve(ctx, name)
	if err != nil {
		return s.unknownSkill(err, name)
	}
	res := resolveResult{Skills: make([]resolvedSkill, len(chain))}
	parts := make([]string, len(chain))
	for i, r := range chain {
		res.Skills[i] = resolvedSkill{Name: r.Name, Z: r.Z, Body: r.Body}
		parts[i] = "### " + r.Name + "\n" + r.Body
	}
	return &toolOutcome{text: strings.Join(parts, "\n\n"), structured: res}, nil
}

type fillResult struct {
	Skill   string                `json:"skill"`
	Command string                `json:"command"`
	HasTool bool                  `json:"hasTool"`
	Ready   bool                  `json:"ready"`
	Missing []string              `json:"missing"`
	Invalid []loader.InputProblem `json:"invalid"`
	Unknown []string              `json:"unknown"`
	Omitted []string              `json:"omitted"`
	Unbound []string              `json:"unbound"`
}

func (s *server) fillSkill(ctx context.Context, args map[string]json.RawMessage) (*toolOutcome, error) {
	name := stringArg(args, "name")
	values, problem := fillValues(args["values"])
	if problem != "" {
		return &toolOutcome{text: problem, isError: true}, nil
	}
	f, err := s.agent.Command(name, values)
	if err != nil {
		return s.unknownSkill(err, name)
	}
	res := fillResult{
		Skill: f.Skill, Command: f.Command, HasTool: f.HasTool, Ready: f.Ready,
		Missing: nonNil(f.Missing), Invalid: f.Invalid, Unknown: nonNil(f.Unknown),
		Omitted: nonNil(f.Omitted), Unbound: nonNil(f.Unbound),
	}
	if res.Invalid == nil {
		res.Invalid = []loader.InputProblem{}
	}
	if !f.HasTool {
		return &toolOutcome{isError: true, text: fmt.Sprintf(
			"skill %s has no command template (tool=) to fill; follow its instructions from get_skill instead", name)}, nil
	}
	return &toolOutcome{text: fillText(res), structured: res, isError: len(res.Invalid) > 0}, nil
}

// fillText is fill_skill's text: the command, then what still stops it.
func fillText(f fillResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "command: %s\nready: %t", f.Command, f.Ready)
	if len(f.Missing) > 0 {
		fmt.Fprintf(&b, "\nmissing required inputs: %s", strings.Join(f.Missing, ", "))
	}
	for _, p := range f.Invalid {
		fmt.Fprintf(&b, "\ninvalid value for %s (%s): %s", p.Name, p.Type, p.Reason)
	}
	if len(f.Unbound) > 0 {
		fmt.Fprintf(&b, "\nplaceholders with no declared input: %s", strings.Join(f.Unbound, ", "))
	}
	if len(f.Omitted) > 0 {
		fmt.Fprintf(&b, "\noptional inputs left out: %s", strings.Join(f.Omitted, ", "))
	}
	if len(f.Unknown) > 0 {
		fmt.Fprintf(&b, "\nvalues for undeclared inputs: %s", strings.Join(f.Unknown, ", "))
	}
	return b.String()
}

// fillValues turns fill_skill's values into strings: strings as they are,
// numbers and booleans as written, objects and arrays as compact JSON; a
// null value counts as not given.
func fillValues(raw json.RawMessage) (map[string]string, string) {
	values := map[string]string{}
	if len(raw) == 0 || string(raw) == "null" {
		return values, ""
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, `argument "values" must be an object of input name -> value`
	}
	for k, v := range obj {
		switch jsonKind(v) {
		case "null":
			continue
		case "string":
			var sv string
			if err := json.Unmarshal(v, &sv); err != nil {
				return nil, fmt.Sprintf("argument \"values\": input %q: %v", k, err)
			}
			values[k] = sv
		case "object", "array":
			var b bytes.Buffer
			if err := json.Compact(&b, v); err != nil {
				return nil, fmt.Sprintf("argument \"values\": input %q: %v", k, err)
			}
			values[k] = b.String()
		default:
			values[k] = string(bytes.TrimSpace(v))
		}
	}
	return values, ""
}

// marshalText encodes v as compact JSON without HTML escaping, for a text
// content block.
func marshalText(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("encoding the catalog: %w", err)
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
