package skillmd

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// maxYAMLDepth bounds the nesting of frontmatter values. The format uses
// two levels (metadata is a map of strings); the bound only keeps a
// hostile file from costing deep recursion.
const maxYAMLDepth = 32

// Problem is a frontmatter problem at a line of SKILL.md. Rule is one of
// the Rule constants; the folder reader gives it the rule's severity
// (skillsdir.SeverityOf).
type Problem struct {
	Rule string
	Line int
	Msg  string
}

func (p *Problem) Error() string { return fmt.Sprintf("line %d: %s", p.Line, p.Msg) }

// Frontmatter is a parsed SKILL.md head.
type Frontmatter struct {
	// Fields is the whole frontmatter as JSON would carry it.
	Fields map[string]any
	// Root is the YAML mapping, kept for the line of each key.
	Root *yaml.Node
	// BodyOffset is where the Markdown body starts in SKILL.md.
	BodyOffset int64
	// Warnings are problems that do not stop the frontmatter's use.
	Warnings []Problem
	// firstLine is the SKILL.md line of the frontmatter's first line.
	firstLine int
}

// Line maps the line of a node of Root to its SKILL.md line.
func (f *Frontmatter) Line(n *yaml.Node) int {
	if n == nil || n.Line == 0 {
		return f.firstLine
	}
	return f.firstLine + n.Line - 1
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// splitFrontmatter finds the YAML between the opening "---" line and the
// next "---" line (docs/skill-folders.md §2). It returns the
// YAML, the SKILL.md line where it starts and the body's offset. Trailing
// spaces and a CR after either delimiter are allowed; a leading byte order
// mark is skipped.
func splitFrontmatter(data []byte, maxBytes int) (yml []byte, firstLine int, body int64, p *Problem) {
	off := 0
	if bytes.HasPrefix(data, bom) {
		off = len(bom)
	}
	if bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}) {
		// What Windows PowerShell 5 writes with > and Out-File, and
		// Notepad's old "Unicode": no host reads it.
		return nil, 0, 0, &Problem{RuleFrontmatter, 1, "SKILL.md is UTF-16 text; save it as UTF-8"}
	}
	first, next := lineAt(data, off)
	if !isDelimiter(first) {
		return nil, 0, 0, &Problem{RuleFrontmatter, 1, "SKILL.md does not start with a '---' line; put the YAML frontmatter (name, description) between two '---' lines at the top"}
	}
	start := next
	for pos := start; pos < len(data) && pos-start <= maxBytes; {
		l, n := lineAt(data, pos)
		if isDelimiter(l) {
			return data[start:pos], 2, int64(n), nil
		}
		pos = n
	}
	if len(data)-start > maxBytes {
		return nil, 0, 0, &Problem{RuleFrontmatter, 2, fmt.Sprintf("frontmatter is over %d bytes (MaxFrontmatterBytes) or never closed; close it with a '---' line and keep long text in the body", maxBytes)}
	}
	return nil, 0, 0, &Problem{RuleFrontmatter, 1, "the frontmatter opened on line 1 is never closed; add a '---' line after it"}
}

// lineAt returns the line starting at off (without its newline) and the
// offset of the next line.
func lineAt(data []byte, off int) ([]byte, int) {
	i := bytes.IndexByte(data[off:], '\n')
	if i < 0 {
		return data[off:], len(data)
	}
	return data[off : off+i], off + i + 1
}

func isDelimiter(l []byte) bool {
	return string(bytes.TrimRight(l, " \t\r")) == "---"
}

// yamlErrLine finds the line in the YAML library's message, which is
// then dropped from the text: the finding carries the SKILL.md line.
var yamlErrLine = regexp.MustCompile(`^yaml: (?:line (\d+): )?`)

// yamlHint says how to fix a YAML syntax error, given the library's
// message. Most come from a plain (unquoted) value, which YAML reads as
// syntax where a writer meant text: "description: Use when: asked" is the
// classic one.
func yamlHint(msg string) string {
	const quote = `put the value in double quotes (description: "Use when: ..."), or write key: > and the text on indented lines below`
	switch {
	case strings.Contains(msg, "tab character"):
		// YAML indents with spaces only; quoting would not help.
		return "YAML indents with spaces only: replace the tab at the start of this line with spaces (or remove it, for a top-level key)"
	case strings.Contains(msg, "mapping values are not allowed"):
		return "a value holding ': ' must be quoted: " + quote + "; or a key is indented more than the keys above it"
	case strings.Contains(msg, "cannot start any token"):
		return "a value cannot start with @, ` or % unquoted, and indentation must use spaces, not tabs: " + quote
	case strings.Contains(msg, "block sequence entries are not allowed"):
		return "a value starting with '- ' reads as a list: " + quote
	case strings.Contains(msg, "end of stream"), strings.Contains(msg, "did not find expected"):
		return "a quote, [ or { is opened and never closed: close it, or " + quote
	}
	return "quote values that hold ': ' or ' #' or start with a YAML indicator such as [, {, &, *, !, | or >"
}

// Parse reads SKILL.md's frontmatter, at most maxBytes of YAML, into a
// JSON-compatible map. Anchors, aliases and merge keys are refused outright rather than
// expanded, so no document costs more than its size (an alias bomb is
// refused on its first anchor); the YAML library also bounds nesting.
func Parse(data []byte, maxBytes int) (*Frontmatter, *Problem) {
	yml, firstLine, body, p := splitFrontmatter(data, maxBytes)
	if p != nil {
		return nil, p
	}
	f := &Frontmatter{firstLine: firstLine, BodyOffset: body}
	if !utf8.Valid(yml) {
		// Say so plainly: the YAML library's "invalid trailing UTF-8
		// octet" names neither the encoding nor, often, the line.
		n := 0
		for len(yml) > 0 {
			r, size := utf8.DecodeRune(yml)
			if r == utf8.RuneError && size <= 1 {
				break
			}
			if r == '\n' {
				n++
			}
			yml = yml[size:]
		}
		return nil, &Problem{RuleFrontmatter, firstLine + n, "frontmatter is not UTF-8 text (a Latin-1 or Windows-1252 character?); save SKILL.md as UTF-8"}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(yml, &doc); err != nil {
		line, msg := firstLine, err.Error()
		if m := yamlErrLine.FindStringSubmatch(msg); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil {
				line = firstLine + n - 1
			}
			msg = msg[len(m[0]):]
		}
		return nil, &Problem{RuleFrontmatter, line, "frontmatter is not valid YAML: " + msg + "; " + yamlHint(msg)}
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return nil, &Problem{RuleFrontmatter, f.Line(root), "frontmatter must be a YAML mapping of keys (name: ..., description: ...)"}
	}
	v, p := f.toJSON(root, 0)
	if p != nil {
		return nil, p
	}
	f.Fields, f.Root = v.(map[string]any), root
	return f, nil
}

// toJSON converts a YAML node to what a host's YAML parser yields, as JSON
// values: map[string]any, []any, string, int64, float64, bool or nil.
func (f *Frontmatter) toJSON(n *yaml.Node, depth int) (any, *Problem) {
	if depth > maxYAMLDepth {
		return nil, &Problem{RuleYAMLValue, f.Line(n), fmt.Sprintf("frontmatter nests deeper than %d levels", maxYAMLDepth)}
	}
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return nil, &Problem{RuleYAMLAlias, f.Line(n), "frontmatter uses a YAML anchor or alias (& or *); write the value out instead"}
	}
	if t := n.ShortTag(); n.Kind != yaml.ScalarNode && t != "!!map" && t != "!!seq" {
		// A tag on a collection (!!python/object/apply:os.system [..],
		// !!set, !custom {..}) names a type JSON cannot carry, however
		// plain its contents look.
		return nil, &Problem{RuleYAMLValue, f.Line(n), "frontmatter uses the YAML tag " + strconv.Quote(n.Tag) + ", which hosts' parsers refuse; remove it"}
	}
	switch n.Kind {
	case yaml.MappingNode:
		return f.mapping(n, depth)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, p := f.toJSON(c, depth+1)
			if p != nil {
				return nil, p
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.ScalarNode:
		return f.scalar(n)
	}
	return nil, &Problem{RuleYAMLValue, f.Line(n), "frontmatter holds a YAML node JSON cannot carry"}
}

func (f *Frontmatter) mapping(n *yaml.Node, depth int) (any, *Problem) {
	out := make(map[string]any, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.AliasNode || k.Anchor != "" {
			return nil, &Problem{RuleYAMLAlias, f.Line(k), "frontmatter uses a YAML anchor or alias (& or *); write the value out instead"}
		}
		if k.Kind != yaml.ScalarNode {
			return nil, &Problem{RuleYAMLValue, f.Line(k), "frontmatter has a key that is not a plain scalar; JSON keys are strings"}
		}
		if k.ShortTag() == "!!merge" {
			return nil, &Problem{RuleYAMLAlias, f.Line(k), "frontmatter uses a YAML merge key (<<); write the keys out instead"}
		}
		// A host's YAML parser turns a scalar key into its text as a
		// JSON key (1: x gives "1").
		if _, dup := out[k.Value]; dup {
			return nil, &Problem{RuleYAMLValue, f.Line(k), fmt.Sprintf("frontmatter key %q appears twice", k.Value)}
		}
		val, p := f.toJSON(v, depth+1)
		if p != nil {
			return nil, p
		}
		out[k.Value] = val
	}
	return out, nil
}

// YAML11Bool are the plain scalars YAML 1.1 reads as booleans and YAML
// 1.2 as strings (true and false are booleans in both).
var YAML11Bool = map[string]bool{"yes": true, "no": true, "on": true, "off": true, "y": true, "n": true}

func (f *Frontmatter) scalar(n *yaml.Node) (any, *Problem) {
	switch n.ShortTag() {
	case "!!str", "!!binary":
		if n.Style == 0 && YAML11Bool[strings.ToLower(n.Value)] {
			// YAML 1.2 (this library, JavaScript hosts) reads a plain
			// yes as a string, YAML 1.1 (PyYAML) as true: the host and
			// the skills extension's frontmatter would disagree.
			f.Warnings = append(f.Warnings, Problem{RuleYAMLBool, f.Line(n), "unquoted " + strconv.Quote(n.Value) + " reads as a boolean in YAML 1.1 parsers (PyYAML) and a string in YAML 1.2 ones; quote it, or write true or false"})
		}
		return n.Value, nil
	case "!!null":
		return nil, nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return nil, &Problem{RuleYAMLValue, f.Line(n), "frontmatter value " + strconv.Quote(n.Value) + " is not a boolean: " + err.Error()}
		}
		return b, nil
	case "!!int":
		var i int64
		if err := n.Decode(&i); err == nil {
			return i, nil
		}
		fallthrough
	case "!!float":
		var x float64
		if err := n.Decode(&x); err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, &Problem{RuleYAMLValue, f.Line(n), "frontmatter number " + strconv.Quote(n.Value) + " has no JSON form; quote it"}
		}
		return x, nil
	case "!!timestamp":
		f.Warnings = append(f.Warnings, Problem{RuleYAMLTimestamp, f.Line(n), "unquoted date " + strconv.Quote(n.Value) + " reads as a date in some YAML parsers and a string in others; quote it"})
		return n.Value, nil
	}
	return nil, &Problem{RuleYAMLValue, f.Line(n), "frontmatter uses the YAML tag " + strconv.Quote(n.Tag) + ", which hosts' parsers refuse; remove it"}
}

// KeyNode returns the key and value nodes of key in mapping m.
func KeyNode(m *yaml.Node, key string) (k, v *yaml.Node) {
	if m == nil {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

// ParseFrontmatter reads the YAML frontmatter of a SKILL.md as JSON
// values, as the folder reader does (docs/skill-folders.md §2), with the
// default bound on its size.
func ParseFrontmatter(data []byte) (map[string]any, error) {
	fm, p := Parse(data, DefaultMaxBytes)
	if p != nil {
		return nil, p
	}
	return fm.Fields, nil
}
