package importer

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/skillsdir"
	"github.com/agent3md/agent3md/skillsdir/export"
	"github.com/agent3md/agent3md/skillsdir/skillmd"
)

// metaString returns the string metadata key of a skill's frontmatter.
func metaString(s *skillsdir.Skill, key string) (string, bool) {
	m, ok := s.Frontmatter["metadata"].(map[string]any)
	if !ok {
		return "", false
	}
	v, ok := m[key].(string)
	return v, ok
}

// planeAttrs are a skill's plane attributes after z and kind: label,
// triggers, inputs, tool and cost (docs/skill-folders.md §4). A value no
// directive can hold (a line break, over the attribute limit) is left out
// with a warning.
func planeAttrs(it *importedSkill, warn func(string, ...any), maxBytes int) [][2]string {
	s := it.s
	var out [][2]string
	if it.hasLabel {
		out = append(out, [2]string{"label", it.label})
	}
	// field adds k=v, what naming the value in a warning.
	field := func(what, k, v string) {
		if _, ok := attrValue(v); !ok {
			warn("%s holds a line break or NUL, which a plane's %s= cannot; left out", what, k)
			return
		}
		if maxBytes > 0 && len(v) > maxBytes {
			warn("%s is %d bytes, over the attribute limit of %d (--max-attribute-bytes); left out", what, len(v), maxBytes)
			return
		}
		out = append(out, [2]string{k, v})
	}
	add := func(k, v string) {
		if v != "" {
			field("metadata "+k, k, v)
		}
	}
	triggers := s.Triggers
	if len(triggers) == 0 && it.exported == nil {
		// Routing goes by triggers (docs/format.md §10): without one the
		// skill could only be found by relevance. (A skill an export
		// writes without triggers has none in its agent file.)
		triggers = []string{strings.ReplaceAll(s.Name, "-", " ")}
	}
	add("triggers", strings.Join(triggers, ", "))
	add("inputs", export.FormatInputs(s.Inputs))
	if s.HasTool {
		add("tool", s.Tool)
	}
	if cost, ok := metaString(s, "cost"); ok {
		add("cost", strings.TrimSpace(cost))
	}
	// Frontmatter fields the agent format has no place for travel as
	// attributes of the same name, which export writes back
	// (docs/format.md §15): the whole description when the body's first
	// paragraph would cut it, license, compatibility and allowed-tools.
	if d := strings.Join(strings.Fields(s.Description), " "); utf8.RuneCountInString(d) > agentfile.MaxDescriptionRunes {
		field("description", "description", d)
	}
	// Also the Claude Code fields export writes back (docs/format.md §15):
	// a skill marked disable-model-invocation must stay so.
	for _, k := range []string{"license", "compatibility", "argument-hint", "model", "effort"} {
		if v, ok := s.Frontmatter[k].(string); ok && strings.TrimSpace(v) != "" {
			field(k, k, strings.TrimSpace(v))
		}
	}
	for _, k := range []string{"disable-model-invocation", "user-invocable"} {
		if v, ok := s.Frontmatter[k].(bool); ok {
			field(k, k, strconv.FormatBool(v))
		}
	}
	switch v := s.Frontmatter["allowed-tools"].(type) {
	case string:
		if strings.TrimSpace(v) != "" {
			field("allowed-tools", "allowed-tools", strings.TrimSpace(v))
		}
	case []any:
		// A list stays a list: as a JSON array, since an item may hold
		// the spaces or commas a joined string would split on.
		if j, ok := jsonStrings(v); ok {
			field("allowed-tools", "allowed-tools", j)
		}
	}
	if extra := extraFrontmatter(it); extra != nil {
		j, err := json.Marshal(extra)
		if err == nil {
			field("the frontmatter's other keys", export.SkillFrontmatterAttr, string(j))
		}
	}
	return out
}

// extraFrontmatter is the part of it's frontmatter that its other plane
// attributes (planeAttrs) would not give back exactly: keys of no meaning
// to agent3md, values written otherwise than export writes them (a
// description with line breaks, triggers separated by newlines, a license
// that is a number), metadata keys of no meaning here. Never allowed-tools
// or hooks, which export does not write (docs/format.md §15). nil when
// nothing is left.
func extraFrontmatter(it *importedSkill) map[string]any {
	s := it.s
	extra := map[string]any{}
	for k, v := range s.Frontmatter {
		if k == "name" || k == "allowed-tools" || k == "hooks" || k == "metadata" || reproducedTop(k, v) {
			continue
		}
		extra[k] = v
	}
	if meta, ok := s.Frontmatter["metadata"].(map[string]any); ok {
		m := map[string]any{}
		for k, v := range meta {
			if !reproducedMeta(it, k, v) {
				m[k] = v
			}
		}
		if len(m) > 0 {
			extra["metadata"] = m
		}
	} else if v, ok := s.Frontmatter["metadata"]; ok {
		extra["metadata"] = v
	}
	if len(extra) == 0 {
		return nil
	}
	return extra
}

// reproducedTop reports whether export writes top-level key k back as v
// from the plane's other attributes.
func reproducedTop(k string, v any) bool {
	str, isStr := v.(string)
	switch k {
	case "description":
		return isStr && str == strings.Join(strings.Fields(str), " ") && utf8.RuneCountInString(str) <= skillmd.MaxDescription && utf8.ValidString(str)
	case "license", "compatibility", "argument-hint", "model", "effort":
		return isStr && str != "" && str == strings.TrimSpace(str)
	case "disable-model-invocation", "user-invocable":
		_, isBool := v.(bool)
		return isBool
	}
	return false
}

// reproducedMeta reports whether export writes metadata key k back as v
// from it's other attributes.
func reproducedMeta(it *importedSkill, k string, v any) bool {
	str, ok := v.(string)
	if !ok {
		return false
	}
	s := it.s
	switch k {
	case "triggers":
		return len(s.Triggers) > 0 && str == strings.Join(s.Triggers, ", ")
	case "inputs":
		return len(s.Inputs) > 0 && str == export.FormatInputs(s.Inputs)
	case "tool":
		return s.HasTool && str == s.Tool
	case "cost":
		return str != "" && str == strings.TrimSpace(str)
	case "label":
		return it.hasLabel && str == it.label
	case "z":
		return str == strconv.Itoa(it.z)
	}
	return false
}

// jsonStrings writes a list of strings as a JSON array, HTML characters
// as they are; ok is false when an item is not a string.
func jsonStrings(l []any) (string, bool) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, v := range l {
		if _, ok := v.(string); !ok {
			return "", false
		}
	}
	if enc.Encode(l) != nil {
		return "", false
	}
	return strings.TrimSuffix(b.String(), "\n"), true
}
