package skillsdir

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestRulesTableComplete: every Rule constant of findings.go, and of
// skillmd/rules.go (the frontmatter problems), has a row in the rules
// table, once, so no finding is made with a severity the table does not
// decide (SeverityOf would call an unknown rule an error).
func TestRulesTableComplete(t *testing.T) {
	fromSkillMD := ruleConsts(t, "skillmd/rules.go", nil)
	if len(fromSkillMD) < 5 {
		t.Fatalf("found only %d Rule constants in skillmd/rules.go: %v", len(fromSkillMD), fromSkillMD)
	}
	ruleConsts(t, "findings.go", fromSkillMD)
	consts := slices.Compact(slices.Sorted(maps.Values(fromSkillMD)))
	if len(consts) < 30 {
		t.Fatalf("found only %d Rule constants: %v", len(consts), consts)
	}
	table := Rules()
	for _, c := range consts {
		if n := rowsOf(table, c); n != 1 {
			t.Errorf("rule %s is in the rules table %d times, want once", c, n)
		}
	}
	if len(table) != len(consts) {
		t.Errorf("the rules table has %d rows for %d Rule constants", len(table), len(consts))
	}
	if got := SeverityOf("no-such-rule"); got != SeverityError {
		t.Errorf("an unknown rule is %s, want error (the skill left out)", got)
	}
}

// ruleConsts adds to seen (name to value) the string Rule constants of
// the Go file path, reading a value named from skillmd (skillmd.RuleX) as
// seen already holds it.
func ruleConsts(t *testing.T, path string, seen map[string]string) map[string]string {
	t.Helper()
	if seen == nil {
		seen = map[string]string{}
	}
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || !strings.HasPrefix(vs.Names[0].Name, "Rule") || len(vs.Values) != 1 {
			return true
		}
		switch v := vs.Values[0].(type) {
		case *ast.BasicLit:
			if v.Kind == token.STRING {
				seen[vs.Names[0].Name], _ = strconv.Unquote(v.Value)
			}
		case *ast.SelectorExpr:
			if pkg, ok := v.X.(*ast.Ident); !ok || pkg.Name != "skillmd" || seen[v.Sel.Name] == "" {
				t.Errorf("%s: %s = %s.%s is not a Rule constant of skillmd/rules.go", path, vs.Names[0].Name, pkg, v.Sel.Name)
			} else {
				seen[vs.Names[0].Name] = seen[v.Sel.Name]
			}
		}
		return true
	})
	return seen
}

func rowsOf(s []string, v string) int {
	n := 0
	for _, x := range s {
		if x == v {
			n++
		}
	}
	return n
}

// docsRow is a row of docs/skill-folders.md §3's table: | `rule` | severity | ...
var docsRow = regexp.MustCompile("^\\| `([a-z0-9-]+)` \\| (error|warning) \\|")

// TestRulesMatchDocs: docs/skill-folders.md §3 has one row per rule, in
// the table's order, with the table's severity, so what a user reads is
// what every command does.
func TestRulesMatchDocs(t *testing.T) {
	data, err := os.ReadFile("../docs/skill-folders.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	start := strings.Index(text, "## §3 ")
	end := strings.Index(text, "## §4 ")
	if start < 0 || end < start {
		t.Fatal("docs/skill-folders.md has no §3 before §4")
	}
	var rules []string
	for _, line := range strings.Split(text[start:end], "\n") {
		m := docsRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		rules = append(rules, m[1])
		if want := SeverityOf(m[1]); string(want) != m[2] {
			t.Errorf("docs say %s is a%s %s; the rules table says %s", m[1], map[bool]string{true: "n"}[m[2] == "error"], m[2], want)
		}
	}
	if !slices.Equal(rules, Rules()) {
		t.Errorf("docs §3 rows %v\nwant the rules table's %v", rules, Rules())
	}
}
