package agentfile

import (
	"iter"
	"strings"
)

// InputTypes are the canonical agent3md/1 input types.
var InputTypes = []string{"string", "number", "boolean", "object", "array"}

// AgentInfo is the agent3md/1 reading of a Catalog: who the agent is and
// which planes are skills. It holds no bodies either. (The open agent, with
// bodies and rescans, is package loader's Agent.)
type AgentInfo struct {
	// Name is title, else frontmatter agent, else "agent"; Named is false
	// when neither title nor agent is set (the validator's frontmatter rule).
	Name  string
	Named bool
	// Model defaults to "unknown".
	Model string
	// Tools and Triggers are the frontmatter comma lists, trimmed, empties
	// dropped.
	Tools    []string
	Triggers []string
	Persona  string
	Version  string
	// Entry is the raw frontmatter entry value; HasEntry tells "" from none.
	Entry    string
	HasEntry bool
	// Identity is the index in Catalog.Planes of the identity plane: the
	// first plane with kind=identity, else the first plane; -1 when the
	// document has no planes.
	Identity int
	// Skills are all other planes, in source order.
	Skills []Skill
}

// Skill is one skill plane in agent3md/1 terms.
type Skill struct {
	// Plane is the index of the skill's plane in Catalog.Planes.
	Plane int
	// Name is the plane's label, or "skill-<z>" when it has none.
	Name string
	Z    float64
	// Triggers are the trigger phrases (comma list, trimmed, empties dropped).
	Triggers []string
	// Inputs are the declared inputs in order; InputErrors holds the raw
	// entries that could not be read as name[:type][?].
	Inputs []Input
	// Tool is the command template ("" when the skill has none); HasTool
	// tells tool="" (an empty binding) from no tool attribute.
	Tool    string
	HasTool bool
	// Cost is the optional cost tag.
	Cost string
	// Deps are the integer targets of the body's [[z=<digits>]] links, in
	// body order (duplicates kept, as written).
	Deps []float64
}

// Input is one declared skill input.
type Input struct {
	Name string `json:"name"`
	// Type is lowercased; "string" when the declaration has none.
	Type     string `json:"type"`
	Optional bool   `json:"optional"`
}

// Agent returns the agent3md/1 reading of the catalog. It is computed on
// each call; callers that need it often keep the result.
func (c *Catalog) Agent() *AgentInfo {
	a := &AgentInfo{Name: "agent", Model: "unknown", Identity: -1}
	if c.HasTitle && c.Title != "" {
		a.Name, a.Named = c.Title, true
	} else if v := c.Metadata["agent"]; v != "" {
		a.Name, a.Named = v, true
	}
	if v := c.Metadata["model"]; v != "" {
		a.Model = v
	}
	a.Tools = SplitList(c.Metadata["tools"])
	a.Triggers = SplitList(c.Metadata["triggers"])
	a.Persona = c.Metadata["persona"]
	a.Version = c.Metadata["version"]
	a.Entry, a.HasEntry = c.Metadata["entry"]
	for i := range c.Planes {
		if c.Planes[i].Attributes.Value("kind") == "identity" {
			a.Identity = i
			break
		}
	}
	if a.Identity < 0 && len(c.Planes) > 0 {
		a.Identity = 0
	}
	if len(c.Planes) > 1 {
		a.Skills = make([]Skill, 0, len(c.Planes)-1)
	}
	// Every skill's triggers, inputs and deps are cut from one array each
	// (capped, so appending to one never writes into the next): at 100,000
	// skills that is a handful of allocations instead of half a million,
	// on every start.
	var ar skillArena
	for i := range c.Planes {
		if i != a.Identity {
			ar.reserve(&c.Planes[i])
		}
	}
	ar.alloc()
	for i := range c.Planes {
		if i != a.Identity {
			a.Skills = append(a.Skills, newSkill(c, i, &ar))
		}
	}
	return a
}

// skillArena holds the backing arrays newSkill cuts slices from.
type skillArena struct {
	nTrig, nIn, nDeps int
	trig              []string
	in                []Input
	deps              []float64
}

// reserve counts what pl's skill may need (an upper bound: empty list
// items are dropped later).
func (ar *skillArena) reserve(pl *Plane) {
	if v := pl.Attributes.Value("triggers"); v != "" {
		ar.nTrig += strings.Count(v, ",") + 1
	}
	if v := pl.Attributes.Value("inputs"); v != "" {
		ar.nIn += strings.Count(v, ",") + 1
	}
	ar.nDeps += len(pl.Links)
}

func (ar *skillArena) alloc() {
	ar.trig = make([]string, 0, ar.nTrig)
	ar.in = make([]Input, 0, ar.nIn)
	ar.deps = make([]float64, 0, ar.nDeps)
}

// cut returns the items appended to a since start, capped, or nil.
func cut[T any](a []T, start int) []T {
	if len(a) == start {
		return nil
	}
	return a[start:len(a):len(a)]
}

func newSkill(c *Catalog, i int, ar *skillArena) Skill {
	pl := &c.Planes[i]
	s := Skill{Plane: i, Z: pl.Z, Name: pl.Label, Cost: pl.Attributes.Value("cost")}
	if !pl.HasLabel || pl.Label == "" {
		s.Name = "skill-" + pl.ZText
	}
	start := len(ar.trig)
	ar.trig = appendList(ar.trig, pl.Attributes.Value("triggers"))
	s.Triggers = cut(ar.trig, start)
	start = len(ar.in)
	ar.in = appendInputs(ar.in, pl.Attributes.Value("inputs"))
	s.Inputs = cut(ar.in, start)
	s.Tool, s.HasTool = pl.Attributes.Get("tool")
	start = len(ar.deps)
	for _, l := range pl.Links {
		if l.IntegerTarget() {
			ar.deps = append(ar.deps, l.TargetZ)
		}
	}
	s.Deps = cut(ar.deps, start)
	return s
}

// SplitList splits a comma list, trimming items and dropping empty ones.
func SplitList(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	out := appendList(make([]string, 0, strings.Count(s, ",")+1), s)
	if len(out) == 0 {
		return nil
	}
	return out
}

// appendList appends SplitList(s)'s items to dst.
func appendList(dst []string, s string) []string {
	for item := range listItems(s) {
		dst = append(dst, item)
	}
	return dst
}

// listItems yields the items of a comma list, trimmed, skipping empty ones.
func listItems(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for s != "" {
			item, rest, _ := strings.Cut(s, ",")
			s = rest
			if item = strings.TrimSpace(item); item != "" && !yield(item) {
				return
			}
		}
	}
}

// ParseInputs reads an inputs= list: "name", "name:type", "name:type?"
// (also "name?"). Types are lowercased; a bare name is a required string.
// Unknown types are kept as written for the validator to report.
func ParseInputs(s string) []Input {
	out := appendInputs(nil, s)
	if len(out) == 0 {
		return nil
	}
	return out
}

// appendInputs appends ParseInputs(s)'s inputs to dst.
func appendInputs(dst []Input, s string) []Input {
	for item := range listItems(s) {
		in := Input{Type: "string"}
		name, typ, hasType := strings.Cut(item, ":")
		if hasType {
			typ = strings.TrimSpace(typ)
			if strings.HasSuffix(typ, "?") {
				in.Optional, typ = true, strings.TrimSpace(strings.TrimSuffix(typ, "?"))
			}
			in.Type = strings.ToLower(typ)
		} else if strings.HasSuffix(name, "?") {
			in.Optional, name = true, strings.TrimSuffix(name, "?")
		}
		in.Name = strings.TrimSpace(name)
		dst = append(dst, in)
	}
	return dst
}

// ValidInputType reports whether t is a canonical agent3md/1 input type.
func ValidInputType(t string) bool {
	for _, v := range InputTypes {
		if t == v {
			return true
		}
	}
	return false
}
