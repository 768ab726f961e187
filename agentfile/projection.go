package agentfile

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The agent3md/1 JSON projection is a compatibility format: clients and the
// Swift and Rust loaders read what the reference implementation's exporter
// writes, so every field here follows the reference's reading of the file,
// including its edge cases (an empty title or label is kept as "", tool is
// trimmed, a skill name given twice collapses to one entry). It is computed
// straight from the catalog for that reason, not from Agent, whose reading
// serves routing and validation. cmd/agent3md/testdata/export/ holds the
// reference's own output for every bundled and conformance agent.

// Projection is the agent3md/1 JSON projection of an agent file, what
// 'agent3md export' prints and the agent3md://manifest resource serves.
type Projection struct {
	Schema string            `json:"schema"`
	Agent  projectionAgent   `json:"agent"`
	Skills []projectionSkill `json:"skills"`
	Bodies *orderedBodies    `json:"bodies,omitempty"`
}

type projectionAgent struct {
	Name    string   `json:"name"`
	Model   string   `json:"model"`
	Tools   []string `json:"tools"`
	Persona string   `json:"persona"` // "" when the frontmatter has none
}

type projectionSkill struct {
	Name string   `json:"name"`
	Z    jsNumber `json:"z"`
	// Triggers and Inputs are never null: consumers index them directly.
	Triggers []string `json:"triggers"`
	// Inputs are the declared input names, in order; the typed form is
	// InputSchema.
	Inputs      []string      `json:"inputs"`
	InputSchema []inputSchema `json:"inputSchema"`
	Tool        *string       `json:"tool"`
	Cost        *string       `json:"cost"`
	Deps        []jsNumber    `json:"deps"`

	plane int // index in Catalog.Planes, for its body
}

type inputSchema struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Required bool   `json:"required"`
}

// jsNumber is a float64 written the way JavaScript's JSON.stringify writes
// a number: -0 as 0 and a non-finite value (a link target too long for a
// double) as null. Go's float encoding already follows the ES6 number
// format otherwise.
type jsNumber float64

func (n jsNumber) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return []byte("null"), nil
	}
	if f == 0 {
		f = 0 // drops the sign of -0
	}
	return json.Marshal(f)
}

// String is the number as JavaScript's String(n) spells it, which is how
// the reference names a skill without a label ("skill-1.5" for z=1.50).
func (n jsNumber) String() string {
	b, _ := n.MarshalJSON()
	return string(b)
}

// orderedBodies is the name → body map, written in the order a JavaScript
// object keeps its keys, as the reference prints it: names that are array
// indexes ("0", "12") first, ascending, then the others in skill order.
// JSON objects are unordered, but a person diffing two exports is not.
type orderedBodies struct {
	names  []string
	bodies map[string]string
}

// arrayIndex reports whether JavaScript takes name for an array index: the
// canonical decimal form of an integer below 2^32-1.
func arrayIndex(name string) (uint64, bool) {
	if name == "" || len(name) > 10 || (name[0] == '0' && name != "0") {
		return 0, false
	}
	n, err := strconv.ParseUint(name, 10, 64)
	return n, err == nil && n < 1<<32-1
}

func (o *orderedBodies) MarshalJSON() ([]byte, error) {
	names := slices.Clone(o.names)
	slices.SortStableFunc(names, func(x, y string) int {
		nx, ix := arrayIndex(x)
		ny, iy := arrayIndex(y)
		switch {
		case ix && iy:
			return cmp.Compare(nx, ny)
		case ix:
			return -1
		case iy:
			return 1
		}
		return 0
	})
	var b bytes.Buffer
	b.WriteByte('{')
	for i, name := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshalNoEscape(name)
		if err != nil {
			return nil, err
		}
		v, err := marshalNoEscape(o.bodies[name])
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func marshalNoEscape(s string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// depLink is the agent layer's dependency link: an integer target, and any
// text up to the first ']' (newlines included) after a '|'.
var depLink = regexp.MustCompile(`\[\[z=([0-9]+)(?:\|[^\]]*)?\]\]`)

// Project builds the projection of cat. Bodies are read from r: the
// dependency links are found in them, so even without withBodies every
// skill body is read once (and checked against the scan's checksum).
func Project(cat *Catalog, r io.ReaderAt, withBodies bool) (*Projection, error) {
	p := &Projection{Schema: "agent3md/1", Agent: projectAgent(cat), Skills: []projectionSkill{}}
	identity := identityPlane(cat)
	// A name given twice is one entry, at the first one's place, holding
	// the last one's fields: the reference keys its skills by name.
	at := map[string]int{}
	for i := range cat.Planes {
		if i == identity {
			continue
		}
		s, err := projectSkill(cat, i, r)
		if err != nil {
			return nil, err
		}
		if j, ok := at[s.Name]; ok {
			p.Skills[j] = s
			continue
		}
		at[s.Name] = len(p.Skills)
		p.Skills = append(p.Skills, s)
	}
	if withBodies {
		o := &orderedBodies{bodies: make(map[string]string, len(p.Skills))}
		for _, s := range p.Skills {
			body, err := planeBody(cat, s.plane, r)
			if err != nil {
				return nil, err
			}
			o.names = append(o.names, s.Name)
			o.bodies[s.Name] = body
		}
		p.Bodies = o
	}
	return p, nil
}

func projectAgent(cat *Catalog) projectionAgent {
	a := projectionAgent{Name: "agent", Model: "unknown", Tools: nonNil(SplitList(cat.Metadata["tools"]))}
	if cat.HasTitle {
		a.Name = cat.Title
	} else if v, ok := cat.Metadata["agent"]; ok {
		a.Name = v
	}
	if v, ok := cat.Metadata["model"]; ok {
		a.Model = v
	}
	a.Persona = cat.Metadata["persona"]
	return a
}

// identityPlane is the first kind=identity plane, else the first plane; -1
// when there are none.
func identityPlane(cat *Catalog) int {
	for i := range cat.Planes {
		if cat.Planes[i].Attributes.Value("kind") == "identity" {
			return i
		}
	}
	if len(cat.Planes) == 0 {
		return -1
	}
	return 0
}

func projectSkill(cat *Catalog, i int, r io.ReaderAt) (projectionSkill, error) {
	s := projectSkillAttrs(cat, i)
	body, err := planeBody(cat, i, r)
	if err != nil {
		return s, err
	}
	s.Deps = []jsNumber{}
	for _, m := range depLink.FindAllStringSubmatch(body, -1) {
		// Digits only, so the one failure is a value past float64's
		// range: +Inf, which the reference writes as null too.
		f, _ := strconv.ParseFloat(m[1], 64)
		s.Deps = append(s.Deps, jsNumber(f))
	}
	return s, nil
}

// ProjectLinked is the projection of an agent whose dependencies are
// already known, an agent served from skill folders: the synthesized
// catalog's attributes, and as deps the z of each skill its SKILL.md links
// to (docs/skill-folders.md §5), with no body to scan.
func ProjectLinked(cat *Catalog, info *AgentInfo) *Projection {
	p := &Projection{Schema: "agent3md/1", Agent: projectAgent(cat), Skills: make([]projectionSkill, 0, len(info.Skills))}
	for _, sk := range info.Skills {
		s := projectSkillAttrs(cat, sk.Plane)
		s.Deps = make([]jsNumber, len(sk.Deps))
		for k, z := range sk.Deps {
			s.Deps[k] = jsNumber(z)
		}
		p.Skills = append(p.Skills, s)
	}
	return p
}

// projectSkillAttrs is a skill's projection without its deps, from the
// plane's label and attributes.
func projectSkillAttrs(cat *Catalog, i int) projectionSkill {
	pl := &cat.Planes[i]
	s := projectionSkill{plane: i, Name: pl.Label, Z: jsNumber(pl.Z), Triggers: nonNil(SplitList(pl.Attributes.Value("triggers")))}
	if !pl.HasLabel {
		s.Name = "skill-" + s.Z.String()
	}
	s.InputSchema = projectInputs(pl.Attributes.Value("inputs"))
	s.Inputs = make([]string, len(s.InputSchema))
	for k, in := range s.InputSchema {
		s.Inputs[k] = in.Name
	}
	if v := strings.TrimSpace(pl.Attributes.Value("tool")); v != "" {
		s.Tool = &v
	}
	if v, ok := pl.Attributes.Get("cost"); ok {
		s.Cost = &v
	}
	return s
}

// projectInputs reads an inputs list: each item is name, name:type or
// either with a trailing '?' (optional); the type is lowercased, "string"
// when missing or empty; an item with no name is dropped.
func projectInputs(v string) []inputSchema {
	out := []inputSchema{}
	for _, item := range SplitList(v) {
		in := inputSchema{Required: true}
		if rest, ok := strings.CutSuffix(item, "?"); ok {
			in.Required, item = false, strings.TrimRight(rest, " \t\n\r\f\v")
		}
		name, typ, _ := strings.Cut(item, ":")
		in.Name = strings.TrimSpace(name)
		in.Type = strings.ToLower(strings.TrimSpace(typ))
		if in.Type == "" {
			in.Type = "string"
		}
		if in.Name != "" {
			out = append(out, in)
		}
	}
	return out
}

func planeBody(cat *Catalog, i int, r io.ReaderAt) (string, error) {
	pl := &cat.Planes[i]
	b, err := ReadSpan(r, pl.Body, pl.CRC)
	if err != nil {
		return "", fmt.Errorf("reading the body of the plane at line %d: %w", pl.Line, err)
	}
	return string(b), nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
