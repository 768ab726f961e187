package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/router"
	"github.com/google/jsonschema-go/jsonschema"
)

// fillSkillTool is fill_skill: a skill's command filled, never run.
var fillSkillTool = newTool[fillSkillInput, fillResult](toolSpec[fillSkillInput]{
	name:  toolFillSkill,
	title: "Fill a skill's command",
	desc: "Fill a skill's command template with input values and get back the shell-quoted command, whether it is ready to run, and every problem in one answer: required inputs missing, values of the wrong type, placeholders no input declares. " +
		"It never runs anything. When the answer says confirm, ask the user before running the command: the skill carries a cost tag, or you chose it from a relaxed or runner-up route_skill match (pass tier).",
	schema: func(p map[string]*jsonschema.Schema) {
		p["tier"].Enum = []any{router.TierPhrase, router.TierName, router.TierDescribed, router.TierRelaxed, router.TierRunnerUp}
	},
	listed: func(tj *toolJSON, _, inputs string) { tj.InputSchema = withArgDesc(tj.InputSchema, "values", inputs) },
	// One catalog entry and one template: cheap at any size.
	inline:  func(*server, json.RawMessage) bool { return true },
	bigHint: hint("pass shorter values"),
	run:     (*server).fillSkill,
})

// fillSkillInput is fill_skill's arguments.
type fillSkillInput struct {
	Name   string          `json:"name" jsonschema:"the skill's name, as list_skills or route_skill gives it"`
	Values json.RawMessage `json:"values,omitempty" jsonschema:"input name -> value (strings, numbers or booleans; objects and arrays are passed as compact JSON text)."`
	Tier   string          `json:"tier,omitempty" jsonschema:"the tier of the route_skill match you chose this skill from, if any: a relaxed or runner-up match needs the user's confirmation"`
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
func (s *server) fillSkill(ctx context.Context, v *generation, in *fillSkillInput) (*toolOutcome, error) {
	name := in.Name
	values, problem := fillValues(in.Values)
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
	res := fillOf(f, cost, in.Tier)
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

// fillOf is fill_skill's answer for a fill (prompts/get shows it too):
// the skill's cost tag, whether the user must confirm before the command
// runs (loader.NeedsConfirmation) and why. tier is the tier of the
// route_skill match the model chose the skill from ("" when none): any
// but a sure one (router.Sure) is a guess.
func fillOf(f *loader.Fill, cost, tier string) fillResult {
	guess := tier != "" && !router.Sure(tier)
	res := fillResult{Fill: f, Confirm: loader.NeedsConfirmation(cost, guess), ConfirmReasons: []string{}}
	if cost != "" {
		res.Cost = &cost
		res.ConfirmReasons = append(res.ConfirmReasons, "the skill is tagged cost="+cost)
	}
	if guess {
		res.ConfirmReasons = append(res.ConfirmReasons, "it was chosen from a "+tier+" route_skill match (no trigger phrase matched and the request does not name it)")
	}
	return res
}
