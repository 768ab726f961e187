package skillmd

import (
	"encoding/json"
	"fmt"
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
		// A tag on a list or mapping is as foreign as on a scalar: a
		// yaml-value finding, not a license of the wrong type.
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
			fm, p := Parse([]byte(tt.in), 100)
			if tt.want == nil {
				if p == nil || p.Rule != tt.rule || p.Line != tt.line {
					t.Fatalf("problem %+v, want %s at line %d", p, tt.rule, tt.line)
				}
				return
			}
			if p != nil {
				t.Fatalf("problem %+v", p)
			}
			if !reflect.DeepEqual(fm.Fields, tt.want) {
				t.Errorf("fields %#v, want %#v", fm.Fields, tt.want)
			}
			if _, err := json.Marshal(fm.Fields); err != nil {
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
		_, p := Parse([]byte(in), 1000)
		if p == nil || p.Rule != RuleFrontmatter || !strings.Contains(p.Msg, tt.want) {
			t.Errorf("%q: problem %+v, want a %s finding saying %q", tt.yaml, p, RuleFrontmatter, tt.want)
		}
	}
}

func TestSplitTriggers(t *testing.T) {
	got := SplitTriggers(" a, b ,\n c\n\n,d ")
	if want := []string{"a", "b", "c", "d"}; !slices.Equal(got, want) {
		t.Errorf("%q", got)
	}
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
		fm, p := Parse([]byte("---\n"+tt.yaml+"\n---\n"), 1000)
		if p != nil {
			t.Fatalf("%s: %+v", tt.yaml, p)
		}
		got := len(fm.Warnings) == 1 && fm.Warnings[0].Rule == RuleYAMLBool && fm.Warnings[0].Line == 2
		if got != tt.warn || (!tt.warn && len(fm.Warnings) != 0) {
			t.Errorf("%s: warnings %+v, want a %s warning: %v", tt.yaml, fm.Warnings, RuleYAMLBool, tt.warn)
		}
		if _, ok := fm.Fields["x"].(string); !ok && tt.yaml != "x: true" {
			t.Errorf("%s: x = %#v, want the string", tt.yaml, fm.Fields["x"])
		}
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

// An alias bomb (each level doubling the last) is refused at its first
// anchor, before anything is expanded.
func TestAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\nname: bomb\ndescription: x\na0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < 30; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	b.WriteString("---\n")
	_, p := Parse([]byte(b.String()), DefaultMaxBytes)
	if p == nil || p.Rule != RuleYAMLAlias || p.Line != 4 {
		t.Fatalf("problem %+v, want %s at line 4", p, RuleYAMLAlias)
	}
}
