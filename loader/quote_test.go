package loader

import (
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agent3md/agent3md/internal/shelltmpl"
)

// TestNestedQuotingRefused reproduces the nested-quoting hole: a template
// that puts a placeholder inside "$(… "{v}" …)", "`…`" or "${X:-…}" used to
// be filled with single quotes the shell does not honour there, so a value
// like $(touch FILE) ran. Such templates are now refused: nothing is
// substituted, and even running what Command returns creates nothing.
func TestNestedQuotingRefused(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	tools := []string{
		`echo \"Subject: $(echo \"{msg}\" | head -1)\"`,
		"echo \\\"`echo {msg}`\\\"",
		`echo \"${X:-{msg}}\"`,
	}
	for _, tool := range tools {
		t.Run(tool, func(t *testing.T) {
			marker := filepath.Join(t.TempDir(), "pwned")
			a := openText(t, "---\n3md: 1.0\ntitle: Mail\n---\n@plane z=0 kind=identity\nHi.\n\n"+
				"@plane z=1 label=\"mail\" kind=skill triggers=\"mail\" inputs=\"msg\" tool=\""+tool+"\"\nSend it.\n")
			for _, v := range []string{"$(touch " + marker + ")", "`touch " + marker + "`", `"; touch ` + marker + `; "`} {
				f, err := a.Command("mail", map[string]string{"msg": v})
				if err != nil {
					t.Fatal(err)
				}
				if f.Ready || len(f.Unsafe) != 1 || f.Unsafe[0].Placeholder != "msg" || strings.Contains(f.Command, "touch") {
					t.Fatalf("fill = %+v, want it refused with the template unfilled", f)
				}
				if out, err := exec.Command(sh, "-c", f.Command).CombinedOutput(); err != nil {
					t.Fatalf("sh -c %q: %v\n%s", f.Command, err, out)
				}
				if _, err := os.Stat(marker); err == nil {
					t.Fatalf("value %q ran: %s exists", v, marker)
				}
			}
		})
	}
}

// TestOptionInjectionRefused pins which placeholders may receive a value
// starting with "-": only where the template proves it is no option —
// after a "--" of the very program that reads the value, as the argument
// of an option that program is known to take one, after "--name=" in its
// word, or behind literal text that is not an option — never a
// positional argument, the word after an option nothing says takes it,
// or a value after a "--" that belongs to another program (a wrapper's)
// or to a program agent3md does not know. unsafe lists the placeholders
// refused with the whole template (the value would name a program, be
// code, or choose an option whatever it is).
func TestOptionInjectionRefused(t *testing.T) {
	const evil = "--pre=/tmp/evil.sh"
	tests := []struct {
		tool   string
		values map[string]string
		refuse string // inputs refused, comma-separated; "" for none
		unsafe string // placeholders the template is refused for
	}{
		{"go test -count=1 -run {pattern} {packages}", map[string]string{"pattern": "X", "packages": "-exec=/tmp/evil.sh"}, "packages", ""},
		{"go test -count=1 -run {pattern} {packages}", map[string]string{"pattern": "-X", "packages": "./..."}, "pattern", ""},
		{"go test -count=1 --run={pattern} -- {packages}", map[string]string{"pattern": "-X", "packages": "-y"}, "packages", ""},
		{"rg {p} .", map[string]string{"p": evil}, "p", ""},
		{"rg -- {p} .", map[string]string{"p": evil}, "", ""},
		{"rg --json --smart-case {pattern} {path}", map[string]string{"pattern": evil, "path": "."}, "pattern", ""},
		{"rg --json --smart-case --regexp={pattern} -- {path}", map[string]string{"pattern": evil, "path": "-x"}, "", ""},
		{"rg -l {p} .", map[string]string{"p": evil}, "p", ""},
		{"rg -e {p} .", map[string]string{"p": "--pre=x"}, "", ""},
		{"rg -e{p} .", map[string]string{"p": "-x"}, "", ""},
		{"rg -l{p} .", map[string]string{"p": "x"}, "", "p"},
		{`rg "-e{p}" .`, map[string]string{"p": "-x"}, "", ""},
		{"rg --regexp={p} .", map[string]string{"p": evil}, "", ""},
		{"rg -- -e{p} .", map[string]string{"p": "-x"}, "", ""},
		{"rg --pre={p} .", map[string]string{"p": "x"}, "", "p"},
		{"git log --format=%H {rev}", map[string]string{"rev": "--output=/tmp/x"}, "rev", ""},
		{"curl -o {out} {url}", map[string]string{"out": "-", "url": "-o/etc/passwd"}, "url", ""},
		{"curl -o {out} -- {url}", map[string]string{"out": "-", "url": "-o/etc/passwd"}, "", ""},
		// The runs: a "--" of env or nice, or one that is -e's
		// argument, does not end the options of the program that reads
		// the value.
		{"env -- python3 {script}", map[string]string{"script": `-cimport os;os.system("touch /tmp/x")`}, "script", ""},
		{"nice -n 10 -- python3 {script}", map[string]string{"script": "-cimport os"}, "script", ""},
		{"grep -e -- {file}", map[string]string{"file": "-V"}, "file", ""},
		{"env python3 -- {script}", map[string]string{"script": "-c"}, "", ""},
		{"t -- {v}", map[string]string{"v": "-x"}, "v", ""},
		{"t --flag={v}", map[string]string{"v": "-x"}, "", ""},
		{"t -n={v}", map[string]string{"v": "-x"}, "", "v"},
		{"t --={v}", map[string]string{"v": "-x"}, "", "v"},
		{"t x{v}", map[string]string{"v": "-x"}, "", ""},
		{"t ./{v}", map[string]string{"v": "-x"}, "", ""},
		{"t name:{v}", map[string]string{"v": "-x"}, "", ""},
		{`t "{v}"`, map[string]string{"v": "-x"}, "v", ""},
		{`t "a {v}"`, map[string]string{"v": "-x"}, "", ""},
		{"t {a}{b}", map[string]string{"a": "", "b": "-x"}, "b", ""},
		{"t {a}{b}", map[string]string{"a": "x", "b": "-x"}, "", ""},
		{"t {a}-e{b}", map[string]string{"a": "", "b": "x"}, "b", ""},
		{"t {a}-e{b}", map[string]string{"a": "x", "b": "-x"}, "", ""},
		{"{c} x", map[string]string{"c": "-x"}, "", "c"},
		{"X={v} t > {f}", map[string]string{"v": "-x", "f": "-y"}, "", ""},
		{"t -n=1 {v}", map[string]string{"v": "-x"}, "v", ""},
		{"t {n}", map[string]string{"n": "-1"}, "n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			var inputs []string
			for k := range tt.values {
				inputs = append(inputs, k)
			}
			sort.Strings(inputs)
			f := fill(skillWith(tt.tool, true, inputs...), tt.values)
			var refused, unsafe []string
			for _, p := range f.Invalid {
				refused = append(refused, p.Name)
				if !strings.Contains(p.Reason, "{"+p.Name+"}") || !strings.Contains(p.Reason, "--") {
					t.Errorf("reason does not say how to pass it: %s", p.Reason)
				}
			}
			for _, p := range f.Unsafe {
				unsafe = append(unsafe, p.Placeholder)
			}
			if strings.Join(unsafe, ",") != tt.unsafe {
				t.Fatalf("unsafe %v, want [%s]: %+v", unsafe, tt.unsafe, f)
			}
			if tt.refuse == "" && tt.unsafe == "" {
				if !f.Ready {
					t.Fatalf("refused: %+v", f)
				}
				return
			}
			if f.Ready || strings.Join(refused, ",") != tt.refuse {
				t.Fatalf("refused %v, want [%s]: %+v", refused, tt.refuse, f)
			}
			for _, n := range refused {
				if !strings.Contains(f.Command, "{"+n+"}") {
					t.Errorf("a refused value reached the command: %s", f.Command)
				}
			}
		})
	}
}

// TestOptionReasons pins the fix each refusal names, and that it names
// the program that reads the value: -- of that program for a positional
// when agent3md knows it, the long option glued with = otherwise.
func TestOptionReasons(t *testing.T) {
	tests := []struct{ tool, want string }{
		{"rg {p} .", "rg could read it as an option, not as the {p} argument"},
		{"rg {p} .", "put a -- of rg right before {p} (rg -- {p} .)"},
		{"t --smart-case {p} .", "nothing proves --smart-case takes {p} as its argument"},
		{"t --smart-case {p} .", "pass it as --smart-case={p}: agent3md does not know t"},
		{"t -l {p} .", "pass it as --name={p} (the option's long name glued with =)"},
		{"env -- python3 {p}", "so python3 could read it as an option, not as the {p} argument (the -- before it belongs to env, not to python3, which reads the value)"},
		{"env -- python3 {p}", "put a -- of python3 right before {p} (env -- python3 -- {p})"},
		{"nice -n 10 -- python3 {p}", "(the -- before it belongs to nice, not to python3, which reads the value)"},
		// The issue: with no -- at all the message blamed nice.
		{"nice -n 10 python3 {p}", "starts with \"-\", so python3 could read it as an option, not as the {p} argument; give a value that does not start with \"-\" (to accept such values, the skill's template must put a -- of python3 right before {p} (nice -n 10 python3 -- {p})"},
		{"grep -e -- {p}", "(the -- before it is the argument of -e (grep's -e takes one), so it ends no options)"},
		{"t -- {p}", "agent3md does not know t, so the -- before it proves nothing"},
		{"t {a}-e{p} .", "is glued to an option in its word when {a} before it is empty"},
	}
	for _, tt := range tests {
		values := map[string]string{"p": "-x"}
		if strings.Contains(tt.tool, "{a}") {
			values = map[string]string{"a": "", "p": "x"}
		}
		f := fill(skillWith(tt.tool, true, "a", "p"), values)
		if len(f.Invalid) != 1 || !strings.Contains(f.Invalid[0].Reason, tt.want) {
			t.Errorf("%s: %+v\nwant a reason with %q", tt.tool, f.Invalid, tt.want)
		}
	}
}

func TestOptionRefusalOnDevtools(t *testing.T) {
	a := openPath(t, "../examples/devtools.3md")
	f, err := a.Command("run-tests", map[string]string{"pattern": "TestX", "packages": "-exec=/tmp/evil.sh"})
	if err != nil {
		t.Fatal(err)
	}
	if f.Ready || len(f.Invalid) != 1 || f.Invalid[0].Name != "packages" || !strings.Contains(f.Invalid[0].Reason, "go could read it as an option") {
		t.Fatalf("fill = %+v", f)
	}
}

// literalTemplates are safe templates with the words a shell must see
// after filling: each {a} and {b} in a word stands for the value itself.
var literalTemplates = []struct {
	tool  string
	words []string
}{
	{`printf '%s\n' {a} {b}`, []string{"printf", `%s\n`, "{a}", "{b}"}},
	{`printf '%s\n' "{a}" '{b}'`, []string{"printf", `%s\n`, "{a}", "{b}"}},
	{`printf '%s\n' pre{a}post "x {b} y" 'q {a} r' "\"{b}\""`, []string{"printf", `%s\n`, "pre{a}post", "x {b} y", "q {a} r", `"{b}"`}},
	{`cmd --flag={a} -e {b} -- {a}{b} && cmd2 x"{b}" || cmd3 '{a}'z`, []string{"cmd", "--flag={a}", "-e", "{b}", "--", "{a}{b}", "cmd2", "x{b}", "cmd3", "{a}z"}},
	{"cmd {a}:{b}/x", []string{"cmd", "{a}:{b}/x"}},
}

// checkLiteral fills each literal template with a and b, parses the result
// with a shell parser, and checks that it holds no expansion at all and
// that its words are exactly the expected ones: no value can add, split,
// join or expand a word. A value refused by the option rule is skipped.
func checkLiteral(t *testing.T, a, b string) {
	t.Helper()
	r := strings.NewReplacer("{a}", a, "{b}", b)
	for _, lt := range literalTemplates {
		f := fill(skillWith(lt.tool, true, "a", "b"), map[string]string{"a": a, "b": b})
		if !f.Ready {
			for _, p := range f.Invalid {
				if !strings.Contains(p.Reason, "as an option") {
					t.Fatalf("%s with %q, %q: %+v", lt.tool, a, b, f)
				}
			}
			continue
		}
		want := make([]string, len(lt.words))
		for i, w := range lt.words {
			want[i] = r.Replace(w)
		}
		got, err := literalWords(f.Command)
		if err != nil {
			t.Fatalf("%s with %q, %q: command %s: %v", lt.tool, a, b, f.Command, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s with %q, %q:\ncommand %s\n    got %q\n   want %q", lt.tool, a, b, f.Command, got, want)
		}
		if f.Plain {
			argv, ok := f.Argv()
			if !ok || !reflect.DeepEqual(argv, want) {
				t.Fatalf("Argv(%s) = %q, %v; want %q", f.Command, argv, ok, want)
			}
		}
	}
}

// literalWords parses a command line and returns the literal text of every
// command word, failing on anything a shell would expand or interpret.
func literalWords(cmd string) ([]string, error) {
	// The parser drops a carriage return before a newline where sh keeps
	// it; carry it through as a marker (a real sh run is in
	// TestCommandShellRoundTrip).
	const cr = "\x01CR\x01"
	if strings.Contains(cmd, cr) {
		return nil, os.ErrInvalid
	}
	cmd = strings.ReplaceAll(cmd, "\r", cr)
	file, err := shelltmpl.Parse(cmd)
	if err != nil {
		return nil, err
	}
	var words []string
	var bad syntax.Node
	syntax.Walk(file, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			for _, w := range n.Args {
				s, ok := wordText(w)
				if !ok {
					bad = w
				}
				words = append(words, s)
			}
		case *syntax.CmdSubst, *syntax.ParamExp, *syntax.ArithmExp, *syntax.ProcSubst, *syntax.ExtGlob, *syntax.Redirect, *syntax.Assign:
			bad = n
		}
		return bad == nil
	})
	if bad != nil {
		return nil, &os.PathError{Op: "shell syntax", Path: cmd, Err: os.ErrInvalid}
	}
	for i := range words {
		words[i] = strings.ReplaceAll(words[i], cr, "\r")
	}
	return words, nil
}

func wordText(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, "*?[~") {
				return "", false // a glob or tilde the shell would expand
			}
			b.WriteString(unescapeAll(p.Value, "")) // every \x is x outside quotes
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok || p.Dollar {
					return "", false
				}
				b.WriteString(unescapeAll(l.Value, "$`\"\\\n"))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unescapeAll drops the backslash before each character in only (or before
// any character when only is "").
func unescapeAll(s, only string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (only == "" || strings.IndexByte(only, s[i+1]) >= 0) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func TestFillStaysLiteral(t *testing.T) {
	rng := rand.New(rand.NewSource(12))
	for _, a := range nastyValues {
		for _, b := range nastyValues {
			checkLiteral(t, a, b)
		}
	}
	n := 2000
	if testing.Short() {
		n = 200
	}
	for range n {
		checkLiteral(t, randomValue(rng), randomValue(rng))
	}
}

// FuzzFillStaysLiteral is TestFillStaysLiteral's property under the fuzzer.
func FuzzFillStaysLiteral(f *testing.F) {
	for i, v := range nastyValues {
		f.Add(v, nastyValues[(i*7+3)%len(nastyValues)])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if strings.IndexByte(a, 0) >= 0 || strings.IndexByte(b, 0) >= 0 {
			return // refused as invalid: never substituted
		}
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			// The parser that checks the result reads UTF-8 only; sh takes
			// any bytes in '…', which TestCommandShellRoundTrip runs.
			return
		}
		checkLiteral(t, a, b)
	})
}

// TestExamplesTakeNoOption fills every bundled skill with values that
// start with "-" (rg's --pre=, a negative number) and checks each fill is
// refused or leaves every option word before "--" as the template wrote
// it, or a value behind its literal "--name=". The examples once let
// --pre= through rg --smart-case {pattern}.
// takesArgument are the options of the examples' programs that take the
// next word as their argument (their man pages say so), so a value there
// is that argument, not an option: git blame -L, curl --max-time.
var takesArgument = map[string]bool{"git -L": true, "curl --max-time": true}

func TestExamplesTakeNoOption(t *testing.T) {
	paths, err := filepath.Glob("../examples/*.3md")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	var refused []string
	for _, path := range paths {
		a := openPath(t, path)
		for _, s := range a.Skills() {
			if s.Tool == "" {
				continue
			}
			values := map[string]string{}
			for _, in := range s.Inputs {
				values[in.Name] = map[string]string{"number": "-1", "boolean": "true"}[in.Type]
				if values[in.Name] == "" {
					values[in.Name] = "--pre=/tmp/evil.sh"
				}
			}
			f, err := a.Command(s.Name, values)
			if err != nil {
				t.Fatal(err)
			}
			if !f.Ready {
				for _, p := range f.Invalid {
					if !strings.Contains(p.Reason, "starts with \"-\"") {
						t.Errorf("%s: %s refused for another reason: %s", s.Name, p.Name, p.Reason)
					}
					refused = append(refused, s.Name+"."+p.Name)
				}
				continue
			}
			argv, ok := f.Argv()
			tmpl := strings.Fields(s.Tool)
			if !ok || len(argv) != len(tmpl) {
				t.Fatalf("%s: %q is not a plain command of %d words", s.Name, f.Command, len(tmpl))
			}
			for i, w := range argv {
				if w == "--" {
					break
				}
				tw := tmpl[i]
				head, _, _ := strings.Cut(tw, "{")
				ok := !strings.HasPrefix(w, "-") || w == tw ||
					(strings.HasPrefix(head, "--") && strings.Index(head, "=") > 2 && strings.HasPrefix(w, head)) ||
					(i > 0 && takesArgument[tmpl[0]+" "+tmpl[i-1]])
				if !ok {
					t.Errorf("%s: %q from %q reaches %s as an option", s.Name, w, tw, tmpl[0])
				}
			}
		}
	}
	// Where the tool has a --name= form or takes --, the examples use it,
	// so a value starting with "-" is text. These remain refused: values
	// no real input starts with "-" (revisions, package patterns, IDs,
	// counts), and tools without a safe form here (duckdb -c, promtool).
	want := "run-query.sql run-query.database run-tests.packages review-diff.base bisect-regression.bad bisect-regression.good " +
		"flaky-test.package bump-dependency.module query-metrics.server query-metrics.expr cancel-subscription.subscription"
	if got := strings.Join(refused, " "); got != want {
		t.Errorf("refused %s\nwant    %s", got, want)
	}
}

// TestGuardJudgesTheCommandThatRuns: an optional input without a value
// drops its word, which can move the words after it: "flock {lock} {cmd}"
// without {lock} makes {cmd} the lock file and the next word the program
// flock runs; "grep -e {p} -- {f}" without {p} drops -e with it and keeps
// the -- grep's. The guard judges the command as it will run.
func TestGuardJudgesTheCommandThatRuns(t *testing.T) {
	for _, tt := range []struct {
		tool   string
		inputs []string
		values map[string]string
		unsafe string // substring of the one unsafe reason, or ""
		ready  bool
	}{
		{"flock {lock} ls -- {x}", []string{"lock?", "x"}, map[string]string{"lock": "f", "x": "-y"}, "", true},
		{"flock {lock} ls {x}", []string{"lock?", "x"}, map[string]string{"x": "y"}, "it names the program flock runs, so the value would run as a program: whoever fills the skill chooses what runs; name the program in the template and pass {x} to it as an argument (with {lock} left out, the command is flock ls {x})", false},
		{"timeout {t} ls {x}", []string{"t?", "x"}, map[string]string{"x": "y"}, "names the program timeout runs", false},
		{"timeout {t} cat --regexp={x}", []string{"t?", "x"}, map[string]string{"x": " -y"}, "names the program timeout runs", false},
		{"grep -e {p} -- {f}", []string{"p?", "f"}, map[string]string{"f": "-y"}, "", true},
		{"grep -i -e {p} -- {f}", []string{"p?", "f"}, map[string]string{"f": "-y"}, "", true},
	} {
		f := fill(skillWith(tt.tool, true, tt.inputs...), tt.values)
		var reasons []string
		for _, p := range f.Unsafe {
			reasons = append(reasons, p.Reason)
		}
		if f.Ready != tt.ready || (tt.unsafe == "") != (len(reasons) == 0) || (tt.unsafe != "" && !strings.Contains(strings.Join(reasons, "\n"), tt.unsafe)) {
			t.Errorf("%s with %q: ready %v, unsafe %q; want ready %v, unsafe %q", tt.tool, tt.values, f.Ready, reasons, tt.ready, tt.unsafe)
		}
	}
}
