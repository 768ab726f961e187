package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/agent3md/agent3md/router"
	"strings"
	"sync"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/loader"
)

// maxFillInputsBytes bounds the per-skill inputs listed in fill_skill's
// description of values: a model needs no extra call to fill a skill of a
// small agent, and a large agent's tools/list stays small.
const maxFillInputsBytes = 2000

var fillSkillTool = &toolDef{
	name:  toolFillSkill,
	title: "Fill a skill's command",
	desc: "Fill a skill's command template with input values and get back the shell-quoted command, whether it is ready to run, and every problem in one answer: required inputs missing, values of the wrong type, placeholders no input declares. " +
		"It never runs anything. When the answer says confirm, ask the user before running the command: the skill carries a cost tag, or you chose it from a relaxed or runner-up route_skill match (pass tier).",
	params: []paramDef{
		{name: "name", kind: "string", required: true, desc: "the skill's name, as list_skills or route_skill gives it"},
		{name: "values", kind: "object", desc: "input name -> value (strings, numbers or booleans; objects and arrays are passed as compact JSON text)."},
		{name: "tier", kind: "string", enum: []string{"phrase", "name", "described", "relaxed", "runner-up"},
			desc: "the tier of the route_skill match you chose this skill from, if any: a relaxed or runner-up match needs the user's confirmation"},
	},
	output:  json.RawMessage(`{"type":"object","properties":{"skill":{"type":"string"},"command":{"type":"string"},"hasTool":{"type":"boolean"},"missing":{"type":"array","items":{"type":"string"}},"invalid":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"type":{"type":"string"},"reason":{"type":"string"}},"required":["name","type","reason"]}},"unknown":{"type":"array","items":{"type":"string"}},"omitted":{"type":"array","items":{"type":"string"}},"unbound":{"type":"array","items":{"type":"string"}},"unsafe":{"type":"array","items":{"type":"object","properties":{"placeholder":{"type":"string"},"reason":{"type":"string"}},"required":["placeholder","reason"]}},"plain":{"type":"boolean"},"ready":{"type":"boolean"},"cost":{"type":["string","null"]},"confirm":{"type":"boolean"},"confirmReasons":{"type":"array","items":{"type":"string"}}},"required":["skill","hasTool","missing","invalid","unknown","omitted","unbound","unsafe","plain","ready","cost","confirm","confirmReasons"]}`),
	bigHint: hint("pass shorter values"),
	run:     (*server).fillSkill,
}

// fillResult is fill_skill's structured answer: the loader's Fill as it is
// (so whatever it reports, refusals included, reaches the model), then
// the skill's cost tag and whether a human should confirm.
type fillResult struct {
	*loader.Fill
	Cost           *string  `json:"cost"`
	Confirm        bool     `json:"confirm"`
	ConfirmReasons []string `json:"confirmReasons"`
}

// fillSkill fills the template. A missing input and a value of the wrong
// type are the same kind of answer: ready false, with every problem listed,
// so a model fixes them all in one more call. Only calls that cannot be
// filled at all (unknown skill, no template, values not an object) are
// tool errors.
func (s *server) fillSkill(ctx context.Context, v *version, args map[string]json.RawMessage) (*toolOutcome, error) {
	name := stringArg(args, "name")
	values, problem := fillValues(args["values"])
	if problem != "" {
		return &toolOutcome{text: problem, isError: true}, nil
	}
	f, err := v.agent.Command(name, values)
	if err != nil {
		return s.unknownSkill(v, err, name)
	}
	if !f.HasTool {
		return &toolOutcome{isError: true, text: fmt.Sprintf(
			"skill %s has no command template (tool=) to fill; follow its instructions from get_skill instead", name)}, nil
	}
	cost := ""
	if sk, err := v.agent.Skill(name); err == nil {
		cost = sk.Cost
	}
	res := fillOf(f, cost)
	if tier := stringArg(args, "tier"); tier != "" && !router.Sure(tier) {
		res.ConfirmReasons = append(res.ConfirmReasons, "it was chosen from a "+tier+" route_skill match (no trigger phrase matched and the request does not name it)")
	}
	res.Confirm = len(res.ConfirmReasons) > 0
	return &toolOutcome{text: fillText(res), structured: res}, nil
}

// fillText is fill_skill's text: the command, then what still stops it,
// then whether to ask the user first.
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
	for _, p := range f.Unsafe {
		fmt.Fprintf(&b, "\nunsafe placeholder {%s}: %s", p.Placeholder, p.Reason)
	}
	if len(f.Omitted) > 0 {
		fmt.Fprintf(&b, "\noptional inputs left out: %s", strings.Join(f.Omitted, ", "))
	}
	if len(f.Unknown) > 0 {
		fmt.Fprintf(&b, "\nvalues for undeclared inputs: %s", strings.Join(f.Unknown, ", "))
	}
	if f.Cost != nil {
		fmt.Fprintf(&b, "\ncost: %s", *f.Cost)
	}
	if f.Confirm {
		fmt.Fprintf(&b, "\nconfirm: ask the user before running this command: %s", strings.Join(f.ConfirmReasons, "; "))
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

// fillOf is fill_skill's answer for a fill (prompts/get shows it too):
// the confirm fields from the skill's cost tag.
func fillOf(f *loader.Fill, cost string) fillResult {
	res := fillResult{Fill: f, ConfirmReasons: []string{}}
	if cost != "" {
		res.Cost = &cost
		res.ConfirmReasons = append(res.ConfirmReasons, "the skill is tagged cost="+cost)
	}
	res.Confirm = len(res.ConfirmReasons) > 0
	return res
}
