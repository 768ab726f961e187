package loader

import (
	"math/rand"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agent3md/agent3md/agentfile"
)

func skillWith(tool string, hasTool bool, inputs ...string) *agentfile.Skill {
	return &agentfile.Skill{
		Name:    "s",
		Tool:    tool,
		HasTool: hasTool,
		Inputs:  agentfile.ParseInputs(strings.Join(inputs, ",")),
	}
}

func TestFill(t *testing.T) {
	tests := []struct {
		name   string
		skill  *agentfile.Skill
		values map[string]string
		want   Fill
	}{
		{
			name:   "all valued",
			skill:  skillWith("rg --line-number {pattern} {path}", true, "pattern", "path:string"),
			values: map[string]string{"pattern": "it's", "path": "a b"},
			want:   Fill{Command: `rg --line-number 'it'\''s' 'a b'`, Plain: true, Ready: true},
		},
		{
			name:   "required missing stays visible",
			skill:  skillWith("rg {pattern} {path}", true, "pattern", "path"),
			values: map[string]string{"path": "."},
			want:   Fill{Command: "rg {pattern} '.'", Missing: []string{"pattern"}, Plain: true},
		},
		{
			name:   "optional without value dropped with its option word",
			skill:  skillWith("db query {question} --limit {limit}", true, "question", "limit:number?"),
			values: map[string]string{"question": "how many?"},
			want:   Fill{Command: "db query 'how many?'", Omitted: []string{"limit"}, Plain: true, Ready: true},
		},
		{
			name:   "optional with value",
			skill:  skillWith("db query {question} --limit {limit}", true, "question", "limit:number?"),
			values: map[string]string{"question": "q", "limit": "10"},
			want:   Fill{Command: "db query 'q' --limit '10'", Plain: true, Ready: true},
		},
		{
			name:   "optional in an --opt= word drops the word only",
			skill:  skillWith("ls --color={c} -l {dir}", true, "c?", "dir"),
			values: map[string]string{"dir": "/"},
			want:   Fill{Command: "ls -l '/'", Omitted: []string{"c"}, Plain: true, Ready: true},
		},
		{
			name:   "end of options marker is kept",
			skill:  skillWith("rg -- {pattern}", true, "pattern?"),
			values: map[string]string{},
			want:   Fill{Command: "rg --", Omitted: []string{"pattern"}, Plain: true, Ready: true},
		},
		{
			name:   "optional mixed into a word keeps the rest",
			skill:  skillWith("curl {host}:{port}/x", true, "host", "port:number?"),
			values: map[string]string{"host": "h"},
			want:   Fill{Command: "curl 'h':/x", Omitted: []string{"port"}, Plain: true, Ready: true},
		},
		{
			name:   "placeholder inside quotes is quoted for its context",
			skill:  skillWith(`echo 'x {a} y' && echo "x {b} y"`, true, "a", "b"),
			values: map[string]string{"a": "$(id)'", "b": "`id`"},
			want:   Fill{Command: `echo 'x ''$(id)'\'''' y' && echo "x "'` + "`id`" + `'" y"`, Ready: true},
		},
		{
			name:   "escaped brace is literal",
			skill:  skillWith(`echo \{a} {a}`, true, "a"),
			values: map[string]string{"a": "v"},
			want:   Fill{Command: `echo \{a} 'v'`, Ready: true},
		},
		{
			name:   "typed checks",
			skill:  skillWith("t {n} {b} {o} {r} {s}", true, "n:number", "b:boolean", "o:object", "r:array", "s"),
			values: map[string]string{"n": "1e999", "b": "yes", "o": "[1]", "r": "{}", "s": "a\x00b"},
			want: Fill{
				Command: "t {n} {b} {o} {r} {s}", Plain: true,
				Invalid: []InputProblem{
					{"n", "number", "not a finite decimal number (examples: 3, -0.5, 1e3)"},
					{"b", "boolean", `not a boolean: use "true" or "false"`},
					{"o", "object", "not a JSON object"},
					{"r", "array", "not a JSON array"},
					{"s", "string", nulReason},
				},
			},
		},
		{
			name:   "typed values that pass",
			skill:  skillWith("cat -- {n} {b} {o} {r}", true, "n:number", "b:boolean", "o:object", "r:array"),
			values: map[string]string{"n": "-0.5e3", "b": "false", "o": ` {"a":[1]}`, "r": "[]"},
			want:   Fill{Command: `cat -- '-0.5e3' 'false' ' {"a":[1]}' '[]'`, Plain: true, Ready: true},
		},
		{
			name:   "unknown values listed, sorted, and still fill their placeholder",
			skill:  skillWith("t {x} {extra}", true, "x"),
			values: map[string]string{"x": "1", "zeta": "z", "extra": "e", "alpha": "a\x00"},
			want: Fill{
				Command: "t '1' 'e'", Unknown: []string{"alpha", "extra", "zeta"}, Plain: true,
				Invalid: []InputProblem{{"alpha", "undeclared", nulReason}},
			},
		},
		{
			name:   "undeclared placeholder without value is unbound",
			skill:  skillWith("t {x} {y} {y}", true, "x"),
			values: map[string]string{"x": "1"},
			want:   Fill{Command: "t '1' {y} {y}", Unbound: []string{"y"}, Plain: true},
		},
		{
			name:   "no tool",
			skill:  skillWith("", false, "q"),
			values: map[string]string{},
			want:   Fill{Missing: []string{"q"}},
		},
		{
			name:   "blank tool is no tool",
			skill:  skillWith("  ", true),
			values: nil,
			want:   Fill{},
		},
		{
			name:   "empty string is a value",
			skill:  skillWith("t {q}", true, "q"),
			values: map[string]string{"q": ""},
			want:   Fill{Command: "t ''", Plain: true, Ready: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fill(tt.skill, tt.values)
			want := tt.want
			want.Skill = "s"
			want.HasTool = tt.skill.HasTool && strings.TrimSpace(tt.skill.Tool) != ""
			for _, p := range []*[]string{&want.Missing, &want.Unknown, &want.Omitted, &want.Unbound} {
				if *p == nil {
					*p = []string{}
				}
			}
			if want.Invalid == nil {
				want.Invalid = []InputProblem{}
			}
			if want.Unsafe == nil {
				want.Unsafe = []TemplateProblem{}
			}
			got.argv = nil // Argv is checked by checkLiteral
			if !reflect.DeepEqual(*got, want) {
				t.Fatalf("fill:\n got %+v\nwant %+v", *got, want)
			}
		})
	}
}

func TestCommandVectors(t *testing.T) {
	a := openPath(t, vector("valid-command.3md"))
	f, err := a.Command("search", map[string]string{"pattern": "TODO", "path": "src"})
	if err != nil {
		t.Fatal(err)
	}
	if f.Command != "rg --line-number 'TODO' 'src'" || !f.Ready || !f.HasTool {
		t.Fatalf("Command = %+v", f)
	}
	a = openPath(t, vector("valid-cost.3md"))
	f, err = a.Command("query", map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	if f.HasTool || f.Command != "" || f.Ready || !reflect.DeepEqual(f.Missing, []string{"question"}) {
		t.Fatalf("no-tool Command = %+v", f)
	}
}

func TestExpandTemplate(t *testing.T) {
	got := ExpandTemplate("t {a} {b} {a}", map[string]string{"a": "x'y"})
	if want := `t 'x'\''y' {b} 'x'\''y'`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// nastyValues are hand-picked shell-hostile values.
var nastyValues = []string{
	"", " ", "'", "''", `"`, `\`, `\'`, "'\\''", "$(id)", "`id`", "${HOME}", "$HOME",
	"a\nb", "\n", "\t", "a b  c", "*", "?", "[a]", "~", "-n", "--", ";", "|", "&&", "#x",
	"!", "héllo wörld", "日本語", "🙂", "\r", "a\rb", "%s", "\\n", "'; rm -rf / #", "{a}", "{b}",
}

// TestCommandShellRoundTrip runs filled commands through sh -c and checks
// that every value comes back verbatim: arbitrary values can never escape
// their quoting. Seeded, so failures reproduce.
func TestCommandShellRoundTrip(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	tmpls := []string{
		`printf '%s\n' {a} {b}`,
		`printf '%s\n' "{a}" '{b}'`,
		`printf '%s\n' pre{a}post {b}`,
	}
	wrap := map[string][2]string{
		tmpls[0]: {"", ""}, tmpls[1]: {"", ""}, tmpls[2]: {"pre", "post"},
	}
	rng := rand.New(rand.NewSource(3))
	var pairs [][2]string
	for _, a := range nastyValues {
		pairs = append(pairs, [2]string{a, nastyValues[rng.Intn(len(nastyValues))]})
	}
	n := 150
	if testing.Short() {
		n = 20
	}
	for range n {
		pairs = append(pairs, [2]string{randomValue(rng), randomValue(rng)})
	}
	for _, tmpl := range tmpls {
		s := skillWith(tmpl, true, "a", "b")
		for _, p := range pairs {
			f := fill(s, map[string]string{"a": p[0], "b": p[1]})
			if !f.Ready {
				// Only the option rule may refuse these values.
				for _, in := range f.Invalid {
					v := p[0]
					if in.Name == "b" {
						v = p[1]
					}
					if !strings.HasPrefix(v, "-") || !strings.Contains(in.Reason, "as an option") {
						t.Fatalf("not ready for %q: %+v", p, f)
					}
				}
				continue
			}
			out, err := exec.Command(sh, "-c", f.Command).Output()
			if err != nil {
				t.Fatalf("sh -c %q: %v", f.Command, err)
			}
			w := wrap[tmpl]
			want := w[0] + p[0] + w[1] + "\n" + p[1] + "\n"
			if string(out) != want {
				t.Fatalf("template %q values %q:\ncommand %s\n    got %q\n   want %q", tmpl, p, f.Command, out, want)
			}
		}
	}
}

// randomValue builds a value from shell metacharacters, quotes, blanks,
// newlines and a few multi-byte runes (never NUL, which no argument holds).
func randomValue(rng *rand.Rand) string {
	alphabet := []rune("ab '\"\\$`(){}[];|&<>*?!#~\n\t\r-=%é日🙂")
	n := rng.Intn(12)
	var b strings.Builder
	for range n {
		b.WriteRune(alphabet[rng.Intn(len(alphabet))])
	}
	s := b.String()
	if !utf8.ValidString(s) {
		panic("invalid")
	}
	return s
}

func TestIsNumber(t *testing.T) {
	for _, v := range []string{"0", "-1", "+2", "3.", ".5", "1e3", "1E-3", "-0.5e+2", "007"} {
		if !isNumber(v) {
			t.Errorf("isNumber(%q) = false", v)
		}
	}
	for _, v := range []string{"", "-", ".", "e3", "1e", "0x10", "1_000", "1,000", "inf", "NaN", "Infinity", " 1", "1 ", "1e999", "--1"} {
		if isNumber(v) {
			t.Errorf("isNumber(%q) = true", v)
		}
	}
}

// TestFillProblems: a fill that is not ready says why, one phrase a
// cause, in the order missing, invalid, unbound; a ready one says nothing.
func TestFillProblems(t *testing.T) {
	for _, tt := range []struct {
		name   string
		skill  *agentfile.Skill
		values map[string]string
		want   []string
	}{
		{"ready", skillWith("rg {pattern}", true, "pattern"), map[string]string{"pattern": "x"}, nil},
		{"missing", skillWith("rg {pattern} {path}", true, "pattern", "path"), nil,
			[]string{"missing required inputs: pattern, path (add pattern=… path=…)"}},
		{"invalid and unbound", skillWith("db {n} {typo}", true, "n:number"), map[string]string{"n": "ten"}, []string{
			"input n (number): ",
			"the template uses {typo}, which no input declares (a typo in the agent file? agent3md validate reports it as tool-input)"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := fill(tt.skill, tt.values).Problems()
			if len(got) != len(tt.want) {
				t.Fatalf("Problems() = %q, want %q", got, tt.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("Problems()[%d] = %q, want it to start %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestFillNotes: an unsafe template's note names the skill and each
// placeholder with its reason; the ignored-values note lists the unknown
// names sorted and what the skill takes. Both are empty when there is
// nothing to say.
func TestFillNotes(t *testing.T) {
	f := &Fill{Skill: "s", Unsafe: []TemplateProblem{{Placeholder: "x", Reason: "inside $(…)"}, {Reason: "a here-document"}}}
	want := "skill s's command template is unsafe to fill, so nothing was substituted (agent3md validate reports it as tool-quote):\n  {x}: inside $(…)\n  a here-document\n"
	if got := f.UnsafeNote(); got != want {
		t.Errorf("UnsafeNote:\n%q\nwant\n%q", got, want)
	}
	f = &Fill{Skill: "s", Unknown: []string{"zeta", "alpha"}}
	inputs := []agentfile.Input{{Name: "path"}, {Name: "limit", Optional: true}}
	if got, want := f.IgnoredNote(inputs), "ignored values for undeclared inputs: alpha, zeta; s takes path, limit?"; got != want {
		t.Errorf("IgnoredNote = %q, want %q", got, want)
	}
	if got, want := f.IgnoredNote(nil), "ignored values for undeclared inputs: alpha, zeta; s takes no inputs"; got != want {
		t.Errorf("IgnoredNote(no inputs) = %q, want %q", got, want)
	}
	if f.Unknown[0] != "zeta" {
		t.Error("IgnoredNote sorted the fill's own Unknown")
	}
	if (&Fill{}).UnsafeNote() != "" || (&Fill{}).IgnoredNote(inputs) != "" {
		t.Error("a fill with nothing to say has a note")
	}
}
