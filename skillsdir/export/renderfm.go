package export

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/internal/textclip"
	"github.com/agent3md/agent3md/skillsdir/skillmd"
)

// renderedFM is the ordered content of a SKILL.md frontmatter.
type renderedFM struct {
	name, description string
	top               []fmEntry // topKeys set on the plane, in that order, then other keys
	metadata          []fmEntry // agent3md's keys in a fixed order, then other keys
}

// fmEntry is one key of a frontmatter and its value: a string, a bool, or,
// from a skill's other frontmatter kept by import, any JSON value
// (json.Number for numbers).
type fmEntry struct {
	key   string
	value any
}

func (f renderedFM) asMap() map[string]any {
	meta := make(map[string]any, len(f.metadata))
	for _, e := range f.metadata {
		meta[e.key] = yamlValue(e.value)
	}
	m := map[string]any{"name": f.name, "description": f.description, "metadata": meta}
	for _, e := range f.top {
		m[e.key] = yamlValue(e.value)
	}
	return m
}

// yamlValue is v as a YAML parser reads it back from writeFrontmatter:
// integers as int, other numbers as float64.
func yamlValue(v any) any {
	switch v := v.(type) {
	case json.Number:
		if n, err := v.Int64(); err == nil && int64(int(n)) == n {
			return int(n)
		}
		f, _ := v.Float64()
		return f
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = yamlValue(x)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = yamlValue(x)
		}
		return out
	}
	return v
}

// topKeys are the Agent Skills frontmatter fields a plane can carry as
// attributes of the same name, which import writes so that they survive a
// round trip (docs/format.md §15): the agent format has no field of its
// own for them. Not allowed-tools, which import keeps too: in a SKILL.md
// it pre-approves tools for the host, and nobody reading an agent file
// expects an attribute the format ignores to grant that.
//
// The Claude Code fields that only restrict or describe the skill come
// back too (a deploy skill marked disable-model-invocation must not turn
// auto-invoked by a round trip); hooks, which run commands, do not.
var topKeys = []string{"license", "compatibility", "argument-hint", "disable-model-invocation", "user-invocable", "model", "effort"}

// boolKeys are the topKeys written as YAML booleans: Claude Code reads
// "true" in quotes as a string.
var boolKeys = map[string]bool{"disable-model-invocation": true, "user-invocable": true}

// neverWritten are the frontmatter keys no rendering writes, whatever a
// plane says: they pre-approve tools or run commands in the host.
var neverWritten = map[string]bool{"allowed-tools": true, "hooks": true}

// frontmatter builds skill i's frontmatter (docs/format.md §15: metadata is a
// string-to-string map, so numbers are strings and lists are joined). A
// skill-frontmatter attribute (what import kept of a SKILL.md that the
// other attributes do not say) adds its keys, and gives its exact value
// wherever the plane still says the same thing.
func (d *Doc) frontmatter(i int) renderedFM {
	s := &d.Agent.Skills[i]
	pl := &d.Catalog.Planes[s.Plane]
	extra := extraOf(pl)
	f := renderedFM{name: d.Slugs[i], description: d.Description(i)}
	if d := strings.Join(strings.Fields(clean(pl.Attributes.Value("description"))), " "); d != "" {
		// The whole Agent Skills description, which the body's first
		// paragraph holds only to docs/format.md §5's 500 characters.
		f.description = textclip.Runes(d, skillmd.MaxDescription)
	}
	if ed, ok := extra["description"].(string); ok && utf8.RuneCountInString(ed) <= skillmd.MaxDescription &&
		strings.Join(strings.Fields(clean(ed)), " ") == f.description {
		f.description = clean(ed) // line breaks and spacing as written
	}
	for _, k := range topKeys {
		v := clean(pl.Attributes.Value(k))
		ev, inExtra := extra[k]
		switch {
		case strings.TrimSpace(v) != "" && boolKeys[k] && (v == "true" || v == "false"):
			f.top = append(f.top, fmEntry{k, v == "true"})
		case strings.TrimSpace(v) != "" && !boolKeys[k]:
			if es, ok := ev.(string); ok && strings.TrimSpace(es) == v {
				f.top = append(f.top, fmEntry{k, es})
			} else {
				f.top = append(f.top, fmEntry{k, v})
			}
		case inExtra:
			f.top = append(f.top, fmEntry{k, ev})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		if k != "name" && k != "description" && k != "metadata" && !slices.Contains(topKeys, k) && !neverWritten[k] {
			f.top = append(f.top, fmEntry{k, extra[k]})
		}
	}
	f.metadata = d.metadata(s, pl, extra)
	return f
}

// metadata is a skill's frontmatter metadata: label, z, triggers, inputs,
// tool and cost as strings, empty ones left out, each as the kept
// frontmatter wrote it when it says the same; then the kept frontmatter's
// other metadata keys.
func (d *Doc) metadata(s *agentfile.Skill, pl *agentfile.Plane, extra map[string]any) []fmEntry {
	em, _ := extra["metadata"].(map[string]any)
	var out []fmEntry
	written := map[string]bool{}
	add := func(k, v string) {
		if v = clean(v); v == "" {
			return
		}
		if ev, ok := em[k].(string); ok && sameMeta(k, ev, v) {
			v = ev
		}
		if c, ok := em["command"].(string); k == "tool" && ok && c == v && em["tool"] == nil {
			return // written as command, as the skill had it
		}
		out = append(out, fmEntry{k, v})
		written[k] = true
	}
	if pl.HasLabel {
		add("label", pl.Label)
	}
	add("z", FormatZ(s.Z))
	add("triggers", strings.Join(s.Triggers, ", "))
	add("inputs", FormatInputs(s.Inputs))
	if s.HasTool {
		add("tool", s.Tool)
	}
	add("cost", s.Cost)
	for _, k := range slices.Sorted(maps.Keys(em)) {
		if !written[k] {
			out = append(out, fmEntry{k, em[k]})
		}
	}
	return out
}

// sameMeta reports whether metadata key k written as kept says what v
// says, as import reads it.
func sameMeta(k, kept, v string) bool {
	switch k {
	case "triggers":
		return strings.Join(skillmd.SplitTriggers(kept), ", ") == v
	case "inputs":
		return FormatInputs(agentfile.ParseInputs(kept)) == v
	case "z":
		n, ok := agentfile.ParseNumber(strings.TrimSpace(kept))
		return ok && FormatZ(n) == v
	case "cost":
		return strings.TrimSpace(kept) == v
	}
	return kept == v
}

// extraOf reads a plane's skill-frontmatter attribute; nil when it has
// none, or one that is not a JSON object.
func extraOf(pl *agentfile.Plane) map[string]any {
	raw, ok := pl.Attributes.Get(SkillFrontmatterAttr)
	if !ok {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil || dec.More() {
		return nil
	}
	return m
}

// writeYAMLValue writes a frontmatter value: strings double-quoted
// (yamlQuote), lists and mappings in flow style, mappings by sorted key.
func writeYAMLValue(b *bytes.Buffer, v any) {
	switch v := v.(type) {
	case string:
		b.WriteString(yamlQuote(clean(v)))
	case bool:
		if v {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case json.Number:
		b.WriteString(v.String())
	case nil:
		b.WriteString("null")
	case []any:
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			writeYAMLValue(b, x)
		}
		b.WriteByte(']')
	case map[string]any:
		b.WriteByte('{')
		for i, k := range slices.Sorted(maps.Keys(v)) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(yamlQuote(clean(k)))
			b.WriteString(": ")
			writeYAMLValue(b, v[k])
		}
		b.WriteByte('}')
	default:
		b.WriteString("null") // no other kind comes out of JSON
	}
}

// SkillFrontmatterAttr is the plane attribute that keeps, as a JSON object,
// what of a SKILL.md frontmatter the other attributes do not say exactly,
// so that export writes it back (docs/skill-folders.md §11).
const SkillFrontmatterAttr = "skill-frontmatter"

// FormatInputs writes inputs as SKILL.md metadata and plane attributes
// carry them (docs/format.md §9): name:type, with "?" when optional,
// joined with ", ".
func FormatInputs(ins []agentfile.Input) string {
	parts := make([]string, len(ins))
	for i, in := range ins {
		parts[i] = in.Name + ":" + in.Type
		if in.Optional {
			parts[i] += "?"
		}
	}
	return strings.Join(parts, ", ")
}
