package skillsdir

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestFrontmatter(t *testing.T) {
	tests := []struct {
		name, in string
		want     map[string]any // nil when a problem is wanted
		rule     string
		line     int
	}{
		{"plain", "---\nname: a\ndescription: b\n---\nbody", map[string]any{"name": "a", "description": "b"}, "", 0},
		{"BOM and CRLF", "\ufeff---\r\nname: a\r\n---  \r\nbody", map[string]any{"name": "a"}, "", 0},
		{"typed scalars", "---\nn: 3\nf: 1.5\nb: true\nz: null\ns: '3'\nl: [a, 1]\nm: {k: v}\n---\n",
			map[string]any{"n": int64(3), "f": 1.5, "b": true, "z": nil, "s": "3", "l": []any{"a", int64(1)}, "m": map[string]any{"k": "v"}}, "", 0},
		{"scalar keys become strings", "---\n1: a\ntrue: b\n---\n", map[string]any{"1": "a", "true": "b"}, "", 0},
		{"huge int becomes a float", "---\nn: 123456789012345678901234567890\n---\n", map[string]any{"n": 1.2345678901234568e29}, "", 0},
		{"timestamp kept as text", "---\nd: 2024-01-02\n---\n", map[string]any{"d": "2024-01-02"}, "", 0},
		{"no frontmatter", "# Title\n", nil, RuleFrontmatter, 1},
		{"unclosed", "---\nname: a\n", nil, RuleFrontmatter, 1},
		{"empty", "---\n---\n", nil, RuleFrontmatter, 2},
		{"not a mapping", "---\n- a\n- b\n---\n", nil, RuleFrontmatter, 2},
		{"scalar", "---\njust text\n---\n", nil, RuleFrontmatter, 2},
		{"bad yaml", "---\nname: a\nb: c: d\n---\n", nil, RuleFrontmatter, 3},
		{"anchor", "---\nname: &x a\n---\n", nil, RuleYAMLAlias, 2},
		{"alias", "---\na: 1\nb: *x\n---\n", nil, RuleFrontmatter, 2}, // unknown anchor: a YAML error without a line
		{"merge key", "---\nm:\n  <<: {a: 1}\n---\n", nil, RuleYAMLAlias, 3},
		{"anchored key", "---\n&k a: 1\n---\n", nil, RuleYAMLAlias, 2},
		{"duplicate key", "---\na: 1\na: 2\n---\n", nil, RuleYAMLValue, 3},
		{"complex key", "---\n? [a]\n: 1\n---\n", nil, RuleYAMLValue, 2},
		{"NaN", "---\nx: .nan\n---\n", nil, RuleYAMLValue, 2},
		{"infinity", "---\nx: -.inf\n---\n", nil, RuleYAMLValue, 2},
		{"custom tag", "---\nx: !foo bar\n---\n", nil, RuleYAMLValue, 2},
		// A tag on a list or mapping is as foreign as on a scalar
		// (issue 23: this was a license type error).
		{"python tag on a list", "---\nname: a\nlicense: !!python/object/apply:os.system [\"echo hi\"]\n---\n", nil, RuleYAMLValue, 3},
		{"custom tag on a mapping", "---\nmetadata: !thing {a: b}\n---\n", nil, RuleYAMLValue, 2},
		{"set", "---\nx: !!set {a, b}\n---\n", nil, RuleYAMLValue, 2},
		{"explicit standard tags", "---\nl: !!seq [a]\nm: !!map {k: v}\n---\n", map[string]any{"l": []any{"a"}, "m": map[string]any{"k": "v"}}, "", 0},
		{"too deep", "---\nx: " + strings.Repeat("[", 40) + strings.Repeat("]", 40) + "\n---\n", nil, RuleYAMLValue, 2},
		// The limit (100 here) counts the YAML between the delimiters.
		{"at size limit", "---\n" + "a: " + strings.Repeat("x", 96) + "\n---\n", map[string]any{"a": strings.Repeat("x", 96)}, "", 0},
		{"Latin-1 frontmatter", "---\nname: a\nmetadata:\n  author: \"Jos\xe9\"\n---\n", nil, RuleFrontmatter, 4},
		{"UTF-16 file", "\xff\xfe-\x00-\x00-\x00\n\x00", nil, RuleFrontmatter, 1},
		{"over size limit", "---\n" + "a: " + strings.Repeat("x", 97) + "\n---\n", nil, RuleFrontmatter, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fm, p := parseFrontmatter([]byte(tt.in), 100)
			if tt.want == nil {
				if p == nil || p.rule != tt.rule || p.line != tt.line {
					t.Fatalf("problem %+v, want %s at line %d", p, tt.rule, tt.line)
				}
				return
			}
			if p != nil {
				t.Fatalf("problem %+v", p)
			}
			if !reflect.DeepEqual(fm.fields, tt.want) {
				t.Errorf("fields %#v, want %#v", fm.fields, tt.want)
			}
			if _, err := json.Marshal(fm.fields); err != nil {
				t.Errorf("not JSON: %v", err)
			}
		})
	}
}

// A YAML syntax error says how to fix it: the usual cause is a plain
// value holding ': ' or starting with a YAML indicator.
func TestFrontmatterSyntaxHint(t *testing.T) {
	for _, tt := range []struct{ yaml, want string }{
		{"description: Use when: asked", `double quotes`},
		{"description: @mention it", "cannot start with @"},
		{"description: - item", "reads as a list"},
		{`description: "never closed`, "never closed"},
		{"description: [a, b", "never closed"},
		{"description: caf\xe9", "save SKILL.md as UTF-8"},
		{"\tdescription: x", "replace the tab at the start of this line with spaces"},
		{"", "UTF-16"},
	} {
		in := "---\nname: a\n" + tt.yaml + "\n---\n"
		if tt.yaml == "" {
			in = "\xff\xfe-\x00-\x00-\x00\n\x00"
		}
		_, p := parseFrontmatter([]byte(in), 1000)
		if p == nil || p.rule != RuleFrontmatter || !strings.Contains(p.msg, tt.want) {
			t.Errorf("%q: problem %+v, want a %s finding saying %q", tt.yaml, p, RuleFrontmatter, tt.want)
		}
	}
}

// An alias bomb (each level doubling the last) is refused at its first
// anchor, before anything is expanded.
func TestAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\nname: bomb\ndescription: x\na0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < 30; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	b.WriteString("---\n")
	_, p := parseFrontmatter([]byte(b.String()), DefaultMaxFrontmatterBytes)
	if p == nil || p.rule != RuleYAMLAlias || p.line != 4 {
		t.Fatalf("problem %+v, want %s at line 4", p, RuleYAMLAlias)
	}
	root := t.TempDir()
	write(t, filepath.Join(root, "bomb", "SKILL.md"), b.String())
	c := scan(t, nil, root)
	if c.Len() != 0 || !hasFinding(c.Findings(), RuleYAMLAlias, "SKILL.md") {
		t.Errorf("served %v findings %v", names(c), c.Findings())
	}
}

func TestValidate(t *testing.T) {
	long := strings.Repeat("d", 1025)
	tests := []struct {
		name, folder, extra string // extra frontmatter lines after name/description
		fm                  string // whole frontmatter, replacing the default
		served              bool
		rules               []string
	}{
		{"valid", "ok", "license: MIT\ncompatibility: Python 3\nallowed-tools: Read Bash\n", "", true, nil},
		{"allowed-tools list", "ok", "allowed-tools: [Read, Bash]\n", "", true, nil},
		{"allowed-tools map", "ok", "allowed-tools: {a: b}\n", "", true, []string{RuleAllowedTools}},
		{"compatibility too long", "ok", "compatibility: " + strings.Repeat("c", 501) + "\n", "", true, []string{RuleCompatibility}},
		{"compatibility at limit", "ok", "compatibility: " + strings.Repeat("c", 500) + "\n", "", true, nil},
		{"license not a string", "ok", "license: [MIT]\n", "", true, []string{RuleLicense}},
		{"metadata not a map", "ok", "metadata: x\n", "", true, []string{RuleMetadata}},
		{"metadata number", "ok", "metadata:\n  v: 1\n  w: \"2\"\n", "", true, []string{RuleMetadata}},
		{"metadata triggers list", "ok", "metadata:\n  triggers: [a, b]\n", "", false, []string{RuleMetadataKey}},
		{"metadata tool number", "ok", "metadata:\n  tool: 1\n", "", false, []string{RuleMetadataKey}},
		{"metadata other list", "ok", "metadata:\n  trigger-keywords: [a, b]\n", "", true, []string{RuleMetadata}},
		{"unknown key", "ok", "version: \"1\"\n", "", true, []string{RuleUnknownKey}},
		{"input type", "ok", "metadata:\n  inputs: \"p:path\"\n", "", false, []string{RuleInputs}},
		{"undeclared placeholder", "ok", "metadata:\n  command: \"rg {p}\"\n", "", false, []string{RuleTool}},
		{"tool and command differ", "ok", "metadata:\n  inputs: p\n  tool: \"a {p}\"\n  command: \"b {p}\"\n", "", false, []string{RuleTool}},
		{"missing name", "ok", "", "description: x\n", false, []string{RuleName}},
		{"name not a string", "ok", "", "name: 1\ndescription: x\n", false, []string{RuleName}},
		{"name uppercase", "Ok", "", "name: Ok\ndescription: x\n", false, []string{RuleName}},
		{"name double hyphen", "a--b", "", "name: a--b\ndescription: x\n", false, []string{RuleName}},
		{"name leading hyphen", "-a", "", "name: -a\ndescription: x\n", false, []string{RuleName}},
		{"name at 64", strings.Repeat("n", 64), "", "name: " + strings.Repeat("n", 64) + "\ndescription: x\n", true, nil},
		{"name at 65", strings.Repeat("n", 65), "", "name: " + strings.Repeat("n", 65) + "\ndescription: x\n", false, []string{RuleName}},
		{"name mismatch", "ok", "", "name: other\ndescription: x\n", false, []string{RuleNameMismatch}},
		{"missing description", "ok", "", "name: ok\n", false, []string{RuleDescription}},
		{"blank description", "ok", "", "name: ok\ndescription: \"  \"\n", false, []string{RuleDescription}},
		{"description with an escape", "ok", "", "name: ok\ndescription: \"a \\e[2J b\"\n", true, []string{RuleDescriptionControl}},
		{"description with a NUL", "ok", "", "name: ok\ndescription: \"a \\0 b\"\n", true, []string{RuleDescriptionControl}},
		{"description at 1024", "ok", "", "name: ok\ndescription: " + long[:1024] + "\n", true, nil},
		{"description at 1025", "ok", "", "name: ok\ndescription: " + long + "\n", true, []string{RuleDescriptionLength}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fm := tt.fm
			if fm == "" {
				fm = "name: " + tt.folder + "\ndescription: x\n" + tt.extra
			}
			f, p := parseFrontmatter([]byte("---\n"+fm+"---\nbody\n"), DefaultMaxFrontmatterBytes)
			if p != nil {
				t.Fatalf("parse: %+v", p)
			}
			c := &checker{fm: f, skill: tt.folder, path: "SKILL.md"}
			s := &Skill{}
			served := validate(s, f, c)
			var rules []string
			for _, x := range c.out {
				rules = append(rules, x.Rule)
				if x.Line < 2 {
					t.Errorf("finding without a frontmatter line: %v", x)
				}
			}
			if served != tt.served || !slices.Equal(slices.Compact(rules), tt.rules) {
				t.Errorf("served %v rules %v, want %v %v: %v", served, rules, tt.served, tt.rules, c.out)
			}
		})
	}
}

func TestSplitTriggers(t *testing.T) {
	got := splitTriggers(" a, b ,\n c\n\n,d ")
	if want := []string{"a", "b", "c", "d"}; !slices.Equal(got, want) {
		t.Errorf("%q", got)
	}
}

func FuzzFrontmatter(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "tree", "*", "SKILL.md"))
	for _, p := range seeds {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("---\na: &x [1]\nb: *x\n---\n"))
	f.Add([]byte("\ufeff---\r\nname: a\r\n---\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		const limit = 4096
		fm, p := parseFrontmatter(data, limit)
		if p != nil {
			if p.line < 1 || p.rule == "" || p.msg == "" {
				t.Fatalf("problem without position or rule: %+v", p)
			}
			_ = p.Error()
			return
		}
		if _, err := json.Marshal(fm.fields); err != nil {
			t.Fatalf("frontmatter not JSON: %v", err)
		}
		if fm.bodyOffset > int64(len(data)) || fm.bodyOffset < 4 {
			t.Fatalf("body offset %d of %d", fm.bodyOffset, len(data))
		}
		c := &checker{fm: fm, skill: "x", path: "SKILL.md"}
		validate(&Skill{}, fm, c)
		for _, x := range c.out {
			if x.Line < 1 {
				t.Fatalf("finding without a line: %v", x)
			}
			_ = x.String()
		}
	})
}

// An unquoted yes, no, on or off is a string here and to JavaScript hosts
// but a boolean to PyYAML: kept as the string, with a warning.
func TestYAML11Bool(t *testing.T) {
	for _, tt := range []struct {
		yaml string
		warn bool
	}{
		{"x: yes", true}, {"x: Off", true}, {"x: n", true},
		{"x: 'yes'", false}, {`x: "on"`, false}, {"x: true", false}, {"x: yesterday", false},
	} {
		fm, p := parseFrontmatter([]byte("---\n"+tt.yaml+"\n---\n"), 1000)
		if p != nil {
			t.Fatalf("%s: %+v", tt.yaml, p)
		}
		got := len(fm.warnings) == 1 && fm.warnings[0].rule == RuleYAMLBool && fm.warnings[0].line == 2
		if got != tt.warn || (!tt.warn && len(fm.warnings) != 0) {
			t.Errorf("%s: warnings %+v, want a %s warning: %v", tt.yaml, fm.warnings, RuleYAMLBool, tt.warn)
		}
		if _, ok := fm.fields["x"].(string); !ok && tt.yaml != "x: true" {
			t.Errorf("%s: x = %#v, want the string", tt.yaml, fm.fields["x"])
		}
	}
}

// An invalid name's finding suggests a valid one, and a number says to
// quote it.
func TestNameSuggestion(t *testing.T) {
	for _, tt := range []struct{ folder, fm, want string }{
		{"zoho_mail-automation", "name: zoho_mail-automation\n", `rename the skill and its folder "zoho-mail-automation"`},
		{"PDF Tools", "name: PDF Tools\n", `rename the skill and its folder "pdf-tools"`},
		{"123", "name: 123\n", `write name: "123"`},
	} {
		fm, p := parseFrontmatter([]byte("---\n"+tt.fm+"description: x\n---\n"), 1000)
		if p != nil {
			t.Fatal(p)
		}
		s := &Skill{}
		c := &checker{skill: tt.folder, path: "SKILL.md", fm: fm}
		validate(s, fm, c)
		if len(c.out) == 0 || !strings.Contains(c.out[0].Msg, tt.want) {
			t.Errorf("%s: findings %v, want one saying %q", tt.fm, c.out, tt.want)
		}
	}
	if got := nameFor("---"); got != "" {
		t.Errorf(`nameFor("---") = %q, want ""`, got)
	}
}

// A Claude Code field is warned of as outside the format, but not with
// the advice to move it under metadata, which would turn it off.
func TestClaudeCodeKeys(t *testing.T) {
	for _, tt := range []struct{ key, want, not string }{
		{"disable-model-invocation: true", "is a Claude Code field", "move it under metadata"},
		{"argument-hint: \"[issue]\"", "is a Claude Code field", "move it under metadata"},
		{"version: \"1\"", "move it under metadata", "Claude Code"},
	} {
		fm, p := parseFrontmatter([]byte("---\nname: ok\ndescription: x\n"+tt.key+"\n---\n"), 1000)
		if p != nil {
			t.Fatal(p)
		}
		c := &checker{skill: "ok", path: "SKILL.md", fm: fm}
		validate(&Skill{}, fm, c)
		if len(c.out) != 1 || c.out[0].Rule != RuleUnknownKey || !strings.Contains(c.out[0].Msg, tt.want) || strings.Contains(c.out[0].Msg, tt.not) {
			t.Errorf("%s: findings %v, want one %s saying %q, not %q", tt.key, c.out, RuleUnknownKey, tt.want, tt.not)
		}
	}
}

// TestTaggedValueIsYAMLValue: a SKILL.md whose license is a
// !!python/object/apply list is broken by the yaml-value rule
// (docs/skill-folders.md §2, §3), not reported as a license of the wrong
// type (issue 23).
func TestTaggedValueIsYAMLValue(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "evil")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: evil\ndescription: Runs nothing.\nlicense: !!python/object/apply:os.system [\"touch /tmp/x\"]\n---\nBody.\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	cat, err := Scan(context.Background(), []string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cat.Len() != 0 {
		t.Error("the skill is served")
	}
	var rules []string
	for _, f := range cat.Findings() {
		rules = append(rules, f.Rule)
	}
	if len(rules) != 1 || rules[0] != RuleYAMLValue {
		t.Errorf("findings %q, want one %s", rules, RuleYAMLValue)
	}
}

// TestParseFrontmatter: the exported reading sync uses takes what the
// folder reader takes and refuses what it refuses.
func TestParseFrontmatter(t *testing.T) {
	fm, err := ParseFrontmatter([]byte("---\nname: x\nmetadata:\n  z: \"3\"\n---\nbody\n"))
	if err != nil || fm["name"] != "x" || fm["metadata"].(map[string]any)["z"] != "3" {
		t.Errorf("ParseFrontmatter = %v, %v", fm, err)
	}
	if _, err := ParseFrontmatter([]byte("no frontmatter\n")); err == nil {
		t.Error("ParseFrontmatter took a file without frontmatter")
	}
	if _, err := ParseFrontmatter([]byte("---\na: &x 1\nb: *x\n---\n")); err == nil {
		t.Error("ParseFrontmatter took an alias")
	}
}
