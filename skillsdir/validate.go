package skillsdir

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/internal/textclip"
	"github.com/agent3md/agent3md/skillsdir/folderwrite"
	"github.com/agent3md/agent3md/skillsdir/skillmd"
	yaml "go.yaml.in/yaml/v3"
)

// maxCompatibilityLen is the Agent Skills bound on compatibility, in
// characters (docs/skill-folders.md §3).
const maxCompatibilityLen = 500

// knownKeys are the top-level frontmatter keys of the Agent Skills format.
var knownKeys = map[string]bool{
	"name": true, "description": true, "license": true,
	"compatibility": true, "metadata": true, "allowed-tools": true,
}

// checker collects one skill's findings.
type checker struct {
	fm      *skillmd.Frontmatter
	skill   string // folder name
	path    string // SKILL.md as found
	out     []Finding
	skipped bool
}

// add records a finding with its rule's severity; an error makes the
// skill broken.
func (c *checker) add(rule string, n *yaml.Node, format string, args ...any) {
	line := 0
	if n != nil {
		line = c.fm.Line(n)
	}
	f := newFinding(rule, c.skill, c.path, line, fmt.Sprintf(format, args...))
	c.out = append(c.out, f)
	if f.Breaks() {
		c.skipped = true
	}
}

// validate applies the Agent Skills rules to a parsed frontmatter and fills
// s's routing fields. It reports whether the skill is served.
func validate(s *Skill, fm *skillmd.Frontmatter, c *checker) bool {
	for _, w := range fm.Warnings {
		c.out = append(c.out, newFinding(w.Rule, c.skill, c.path, w.Line, w.Msg))
	}
	c.name(s, fm)
	c.description(s, fm)
	c.optional(fm)
	c.metadata(s, fm)
	c.unknownKeys(fm)
	return !c.skipped
}

func (c *checker) name(s *Skill, fm *skillmd.Frontmatter) {
	k, v := skillmd.KeyNode(fm.Root, "name")
	name, ok := fm.Fields["name"].(string)
	switch {
	case k == nil:
		c.add(RuleName, fm.Root, "frontmatter has no name; add name: %s", c.skill)
	case !ok:
		// name: 123 is a number; quoting makes it the string.
		c.add(RuleName, v, "name must be a string; write name: %s", strconv.Quote(c.skill))
	case !folderwrite.ValidName(name):
		fix := ""
		if sug := nameFor(name); sug != "" {
			fix = fmt.Sprintf("; rename the skill and its folder %s", strconv.Quote(sug))
		}
		c.add(RuleName, v, "name %s is not 1-64 characters of a-z, 0-9 and single inner '-'%s", strconv.Quote(textclip.Bytes(name, 80)), fix)
	case name != c.skill:
		c.add(RuleNameMismatch, v, "name %q differs from its folder %q; rename one so they match", name, c.skill)
	default:
		s.Name = name
	}
}

func (c *checker) description(s *Skill, fm *skillmd.Frontmatter) {
	k, v := skillmd.KeyNode(fm.Root, "description")
	d, ok := fm.Fields["description"].(string)
	if k != nil {
		s.DescriptionLine = fm.Line(k)
	}
	switch {
	case k == nil:
		c.add(RuleDescription, fm.Root, "frontmatter has no description; say what the skill does and when to use it")
	case !ok || strings.TrimSpace(d) == "":
		c.add(RuleDescription, v, "description must be a non-empty string")
	case utf8.RuneCountInString(d) > skillmd.MaxDescription:
		// A warning (docs/skill-folders.md §3): our tools serve it well,
		// and a host handed it over the skills extension decides as it
		// would reading the folder itself.
		c.add(RuleDescriptionLength, v, "description has %d characters, over the Agent Skills limit of %d: agent3md serves it, but hosts that apply the limit refuse the skill; shorten it and move details into the body, or give such hosts the copy import then export --skills-dir make, which cuts it at %d", utf8.RuneCountInString(d), skillmd.MaxDescription, skillmd.MaxDescription)
		s.Description = d
	default:
		s.Description = d
	}
	if i := strings.IndexFunc(d, controlChar); ok && i >= 0 {
		// Hosts show a description to people and put it in prompts: an
		// escape sequence can rewrite a terminal, a NUL breaks XML.
		r, _ := utf8.DecodeRuneInString(d[i:])
		c.add(RuleDescriptionControl, v, "description holds the control character %U at character %d; remove it (hosts print descriptions and put them in XML)", r, utf8.RuneCountInString(d[:i])+1)
	}
}

// nameFor suggests a valid name for an invalid one: lower case, every
// run of other characters one '-', at most 64 characters ("" when
// nothing is left).
func nameFor(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
		if b.Len() >= 64 {
			break
		}
	}
	out := strings.Trim(b.String()[:min(b.Len(), 64)], "-")
	if !folderwrite.ValidName(out) {
		return ""
	}
	return out
}

// controlChar reports a control character other than the tab and line
// breaks a folded or literal description holds.
func controlChar(r rune) bool {
	return (r < 0x20 || r >= 0x7f && r < 0xa0) && r != '\t' && r != '\n' && r != '\r'
}

// optional checks license, compatibility and allowed-tools.
func (c *checker) optional(fm *skillmd.Frontmatter) {
	if _, v := skillmd.KeyNode(fm.Root, "license"); v != nil {
		if _, ok := fm.Fields["license"].(string); !ok {
			c.add(RuleLicense, v, "license must be a string (a license name or a bundled file)")
		}
	}
	if _, v := skillmd.KeyNode(fm.Root, "compatibility"); v != nil {
		s, ok := fm.Fields["compatibility"].(string)
		if n := utf8.RuneCountInString(s); !ok || n == 0 || n > maxCompatibilityLen {
			c.add(RuleCompatibility, v, "compatibility must be a string of 1-%d characters", maxCompatibilityLen)
		}
	}
	if _, v := skillmd.KeyNode(fm.Root, "allowed-tools"); v != nil {
		ok := false
		switch t := fm.Fields["allowed-tools"].(type) {
		case string:
			ok = true
		case []any:
			ok = true
			for _, e := range t {
				if _, isStr := e.(string); !isStr {
					ok = false
				}
			}
		}
		if !ok {
			c.add(RuleAllowedTools, v, "allowed-tools must be a space-separated string or a list of strings")
		}
	}
}

// claudeCodeKeys are the top-level SKILL.md fields Claude Code reads
// beyond the Agent Skills format.
var claudeCodeKeys = map[string]bool{
	"argument-hint": true, "disable-model-invocation": true, "user-invocable": true,
	"model": true, "effort": true, "context": true, "agent": true, "hooks": true,
}

func (c *checker) unknownKeys(fm *skillmd.Frontmatter) {
	for i := 0; i+1 < len(fm.Root.Content); i += 2 {
		k := fm.Root.Content[i]
		switch {
		case knownKeys[k.Value]:
		case claudeCodeKeys[k.Value]:
			// Moving it under metadata, the usual advice, would turn off
			// what it does in Claude Code.
			c.add(RuleUnknownKey, k, "top-level key %q is a Claude Code field, not part of the Agent Skills format: Claude Code reads it, other hosts ignore it and skills-ref refuses it; keep it if the skill is for Claude Code", textclip.Bytes(k.Value, 80))
		default:
			c.add(RuleUnknownKey, k, "top-level key %q is not part of the Agent Skills format; move it under metadata", textclip.Bytes(k.Value, 80))
		}
	}
}

// agent3mdKeys are the metadata keys agent3md reads (docs/skill-folders.md
// §4), with what each gives the skill.
var agent3mdKeys = map[string]string{
	"triggers": "routing triggers", "inputs": "inputs", "tool": "command", "command": "command",
}

// metadata checks the string-to-string map and reads the routing and
// command conventions from it (docs/skill-folders.md §4).
func (c *checker) metadata(s *Skill, fm *skillmd.Frontmatter) {
	_, v := skillmd.KeyNode(fm.Root, "metadata")
	if v == nil {
		return
	}
	m, ok := fm.Fields["metadata"].(map[string]any)
	if !ok {
		c.add(RuleMetadata, v, "metadata must be a mapping of string keys to string values; it is served as written, but skills-ref refuses it and agent3md reads no triggers, inputs or tool from it")
		return
	}
	str := func(key string) (string, bool) {
		x, ok := m[key].(string)
		return x, ok
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := m[k].(string); ok {
			continue
		}
		kn, _ := skillmd.KeyNode(v, k)
		if what, ok := agent3mdKeys[k]; ok {
			// Served without it, the skill would route or run otherwise
			// than its author wrote.
			c.add(RuleMetadataKey, kn, "metadata %q must be a string: agent3md reads the skill's %s from it; write it as one string (join a list with commas)", k, what)
			continue
		}
		c.add(RuleMetadata, kn, "metadata %q must be a string (the Agent Skills format maps strings to strings, and skills-ref refuses it); quote numbers and join lists", textclip.Bytes(k, 80))
	}
	if t, ok := str("triggers"); ok {
		s.Triggers = skillmd.SplitTriggers(t)
		k, _ := skillmd.KeyNode(v, "triggers")
		s.TriggersLine = fm.Line(k)
	}
	if in, ok := str("inputs"); ok {
		s.Inputs = agentfile.ParseInputs(in)
		_, n := skillmd.KeyNode(v, "inputs")
		for _, x := range s.Inputs {
			if !agentfile.ValidInputType(x.Type) {
				c.add(RuleInputs, n, "input %q has type %q; use one of %s", x.Name, x.Type, strings.Join(agentfile.InputTypes, ", "))
			}
		}
	}
	c.tool(s, v, str)
}

// tool reads the command template: metadata "tool" (what export writes,
// docs/format.md §15) or "command"; both present must agree.
func (c *checker) tool(s *Skill, meta *yaml.Node, str func(string) (string, bool)) {
	t, hasT := str("tool")
	cmd, hasC := str("command")
	if hasT && hasC && t != cmd {
		_, n := skillmd.KeyNode(meta, "command")
		c.add(RuleTool, n, "metadata tool and command differ; keep one")
	}
	if !hasT {
		t, hasT = cmd, hasC
	}
	if !hasT {
		return
	}
	s.Tool, s.HasTool = t, true
	declared := map[string]bool{}
	for _, in := range s.Inputs {
		declared[in.Name] = true
	}
	for _, ph := range agentfile.Placeholders(t) {
		if !declared[ph] {
			_, n := skillmd.KeyNode(meta, "tool")
			if n == nil {
				_, n = skillmd.KeyNode(meta, "command")
			}
			c.add(RuleTool, n, "command uses {%s}, which metadata inputs does not declare", ph)
		}
	}
}
