package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/router"
)

// guardAgent is an agent whose commands run "fake", a script that logs
// its arguments one per line and exits with $FAKE_EXIT.
const guardAgent = `---
3md: 1.0
title: Guard
tools: fake
---
@plane z=0 label="guard" kind=identity
Test agent.

@plane z=1 label="echo-args" kind=skill triggers="echo args" inputs="a, b?" tool="fake {a} {b}"
# Echo args
Repeats the arguments it gets, like a parrot would.

@plane z=2 label="drop-table" kind=skill triggers="drop the table" inputs="t" cost=prod-write tool="fake drop {t}"
Drops a table.

@plane z=3 label="piped" kind=skill triggers="pipe it" inputs="a" tool="fake \"{a}\" | cat"
Through a shell.

@plane z=4 label="nested" kind=skill triggers="nested quotes" inputs="a" tool="fake \"$(echo \"{a}\")\""
Unsafe.

@plane z=5 label="typo" kind=skill triggers="typo here" inputs="a" tool="fake {a} {tpyo}"
Unbound.

@plane z=6 label="tests" kind=skill triggers="run tests" inputs="pattern, packages" tool="fake test -count=1 -run {pattern} {packages}"
Tests.

@plane z=9 label="safe-tests" kind=skill triggers="run safe tests" inputs="pattern, packages" tool="rg --regexp={pattern} -- {packages}"
A search, with a dash allowed in both values: rg is a program agent3md
knows, so its own -- proves the value after it is no option.

@plane z=10 label="wrapped" kind=skill triggers="run it wrapped" inputs="script" tool="env -- fake {script}"
The -- is env's, not fake's.

@plane z=7 label="advice" kind=skill triggers="give advice"
No tool.

@plane z=8 label="missing-binary" kind=skill triggers="no binary" inputs="a" tool="no-such-command-a3md {a}"
Not installed.
`

func TestRunGuard(t *testing.T) {
	dir := t.TempDir()
	agent := filepath.Join(dir, "guard.3md")
	if err := os.WriteFile(agent, []byte(guardAgent), 0o644); err != nil {
		t.Fatal(err)
	}
	fake := filepath.Join(dir, "bin", "fake")
	if err := os.MkdirAll(filepath.Dir(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > \"$FAKE_LOG\"\nexit ${FAKE_EXIT:-0}\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// rg here is the same logging script, under a name agent3md knows.
	if err := os.WriteFile(filepath.Join(filepath.Dir(fake), "rg"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Dir(fake)+string(os.PathListSeparator)+os.Getenv("PATH"))
	const noLog = "\x00none"
	tests := []struct {
		name   string
		args   []string
		exit   string // FAKE_EXIT
		code   int
		stderr []string // substrings
		log    string   // the fake's argv, one per line; noLog: it never ran
	}{
		{"no match", []string{"FILE", "qqq zzz"}, "", exitNoMatch, []string{"no skill matched"}, noLog},
		{"print only", []string{"FILE", "echo args", "a=x"}, "", 0, []string{"→ echo-args (phrase: echo args)"}, noLog},
		{"exec plain as argv", []string{"--exec", "FILE", "echo args", "a=it's $(x) *", "b=q r"}, "", 0, []string{"$ fake"}, "fake\nit's $(x) *\nq r\n"},
		{"exec passes the exit status", []string{"--exec", "FILE", "echo args", "a=x"}, "7", 7, nil, "x\n"},
		{"relaxed match refused", []string{"--exec", "FILE", "args repeated by a parrot", "a=x"}, "", exitRefused, []string{"→ echo-args (relaxed:", "add --skill echo-args"}, noLog},
		{"named skill runs, every k=v a value", []string{"--exec", "--skill", "echo-args", "FILE", "a=1", "b=2"}, "", 0, []string{"named by --skill"}, "1\n2\n"},
		{"cost refused", []string{"--exec", "FILE", "drop the table", "t=users"}, "", exitRefused, []string{"[cost=prod-write]", "add --yes", "not run: fake drop 'users'"}, noLog},
		{"cost with --yes", []string{"--exec", "--yes", "FILE", "drop the table", "t=users"}, "", 0, nil, "drop\nusers\n"},
		{"missing input", []string{"--exec", "FILE", "echo args"}, "", exitNotReady, []string{"missing required inputs: a", "add a=…"}, noLog},
		{"unbound placeholder", []string{"--exec", "FILE", "typo here", "a=x"}, "", exitNotReady, []string{"{tpyo}"}, noLog},
		{"unsafe template", []string{"--exec", "FILE", "nested quotes", "a=$(id)"}, "", exitRefused, []string{"tool-quote", "command substitution"}, noLog},
		{"unsafe template print only", []string{"FILE", "nested quotes", "a=$(id)"}, "", exitRefused, []string{"tool-quote"}, noLog},
		{"option injection", []string{"--exec", "FILE", "run tests", "pattern=TestX", "packages=-exec=/tmp/evil.sh"}, "", exitNotReady, []string{"input packages", "fake could read it as an option", "agent3md does not know fake", "--name={packages}", "not run: fake test"}, noLog},
		{"option argument refused", []string{"--exec", "FILE", "run tests", "pattern=-X", "packages=./..."}, "", exitNotReady, []string{"input pattern", "nothing proves -run takes {pattern}", "--name={pattern}"}, noLog},
		{"--name= and a known program's -- allow a dash", []string{"--exec", "FILE", "run safe tests", "pattern=-X", "packages=-y"}, "", 0, nil, "fake\n--regexp=-X\n--\n-y\n"},
		// The issue's B2: env's -- does not end the options of the
		// program env runs, and the message names that program.
		{"a wrapper's -- proves nothing", []string{"--exec", "FILE", "run it wrapped", "script=-cimport os"}, "", exitNotReady, []string{"input script", "so fake could read it as an option", "the -- before it belongs to env, not to fake", "not run: env -- fake {script}"}, noLog},
		{"a wrapper's -- proves nothing, print only", []string{"FILE", "run it wrapped", "script=-cimport os"}, "", exitNotReady, []string{"agent3md: wrapped's command is not ready to run: input script (string): starts with \"-\", so fake could read it as an option"}, noLog},
		{"a wrapped program still gets a plain value", []string{"--exec", "FILE", "run it wrapped", "script=x.py"}, "", 0, nil, "fake\nx.py\n"},
		{"through sh", []string{"--exec", "FILE", "pipe it", "a=a\"b $(c)"}, "", 0, nil, "a\"b $(c)\n"},
		{"no tool", []string{"--exec", "FILE", "give advice"}, "", exitRefused, []string{"guidance only"}, noLog},
		{"not installed", []string{"--exec", "FILE", "no binary", "a=x"}, "", 127, []string{"cannot run"}, noLog},
		// A value given twice silently kept the last one.
		{"value given twice", []string{"--exec", "FILE", "echo args", "a=x", "a=y"}, "", exitUsage, []string{"agent3md: input a is given twice (a=x and a=y)"}, noLog},
		// The request text forgotten: the value was routed as the text
		// and the message said only that nothing matched.
		{"text forgotten", []string{"--exec", "FILE", "a=x"}, "", exitNoMatch, []string{`"a=x" was read as the request TEXT, which comes right after FILE`}, noLog},
		// A printed fill that is not ready said so without the
		// "agent3md:" line every refusal has, and without what to add.
		{"print only, missing input", []string{"FILE", "echo args"}, "", exitNotReady, []string{"\nagent3md: echo-args's command is not ready to run: missing required inputs: a (add a=…)"}, noLog},
		{"print only, option value", []string{"FILE", "run tests", "pattern=x", "packages=-x"}, "", exitNotReady, []string{"\nagent3md: tests's command is not ready to run: input packages (string): starts with"}, noLog},
		// Issue 29: the "$ <cmd>" echo wrote a value's ESC bytes raw
		// (a terminal retitled, a line faked); it goes through
		// termsafe.Show, like the cost prompt.
		{"echo escapes a value's controls", []string{"--exec", "FILE", "echo args", "a=\x1b]0;pwned\x07x\n$ rm -rf ~"}, "", 0, []string{"$ fake '\\x1b]0;pwned\\x07x\\x0a$ rm -rf ~'\n"}, "fake\n\x1b]0;pwned\x07x\n$ rm -rf ~\n"},
		{"not-run line escapes a value's controls", []string{"--exec", "FILE", "drop the table", "t=\x1b[2Jx"}, "", exitRefused, []string{"not run: fake drop '\\x1b[2Jx'"}, noLog},
		{"misspelt input named", []string{"FILE", "echo args", "A=x"}, "", exitNotReady, []string{"ignored values for undeclared inputs: A; echo-args takes a, b?"}, noLog},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "log")
			t.Setenv("FAKE_LOG", log)
			t.Setenv("FAKE_EXIT", tt.exit)
			args := []string{"run", "--no-cache"}
			for _, a := range tt.args {
				if a == "FILE" {
					a = agent
				}
				args = append(args, a)
			}
			code, _, errOut := cli(t, args...)
			if strings.ContainsAny(errOut, "\x1b\x07") {
				t.Errorf("stderr holds raw control bytes: %q", errOut)
			}
			if code != tt.code {
				t.Fatalf("%v: exit %d, want %d\n%s", args, code, tt.code, errOut)
			}
			for _, s := range tt.stderr {
				if !strings.Contains(errOut, s) {
					t.Errorf("stderr lacks %q:\n%s", s, errOut)
				}
			}
			if !strings.HasPrefix(errOut, "→ ") && tt.code != exitNoMatch && tt.code != exitUsage {
				t.Errorf("stderr does not start with the chosen skill:\n%s", errOut)
			}
			got, err := os.ReadFile(log)
			switch {
			case tt.log == noLog && err == nil:
				t.Errorf("the command ran: %q", got)
			case tt.log != noLog && string(got) != strings.TrimPrefix(tt.log, "fake\n"):
				t.Errorf("the command got %q, want %q", got, strings.TrimPrefix(tt.log, "fake\n"))
			}
		})
	}
}

func TestRunGuardConfirm(t *testing.T) {
	f := &loader.Fill{Skill: "drop-table", Command: "fake drop 'x'", HasTool: true, Ready: true}
	ch := &choice{name: "drop-table", tier: router.TierPhrase, hits: []string{"drop the table"}}
	for _, tt := range []struct {
		answer string
		ok     bool
	}{{"y\n", true}, {"YES\nrest", true}, {"n\n", false}, {"\n", false}, {"", false}, {"yy\n", false}} {
		var prompt strings.Builder
		in := strings.NewReader(tt.answer)
		g := &runGuard{tty: true, in: in, out: &prompt}
		err := g.check(ch, "prod-write", f)
		if (err == nil) != tt.ok {
			t.Errorf("answer %q: err %v, want ok=%v", tt.answer, err, tt.ok)
		}
		if !strings.Contains(prompt.String(), "drop-table is tagged cost=prod-write. It would run:\n  $ fake drop 'x'\nRun it? [y/N] ") {
			t.Errorf("prompt %q", prompt.String())
		}
		if tt.answer == "YES\nrest" && in.Len() != len("rest") {
			t.Errorf("the confirmation read past its line: %d bytes left", in.Len())
		}
	}
	// Off a terminal nothing is read: the answer must come from --yes.
	in := strings.NewReader("y\n")
	if err := (&runGuard{in: in, out: &strings.Builder{}}).check(ch, "prod-write", f); err == nil || in.Len() != 2 {
		t.Errorf("without a terminal: err %v, %d bytes left", err, in.Len())
	}
}

// TestShowCommand: the cost prompt shows the command a yes runs through
// termsafe.Show (tested there), escapes and all.
func TestShowCommand(t *testing.T) {
	f := &loader.Fill{Skill: "drop-table", Command: "fake drop 'x\x1b[2K\r'", HasTool: true, Ready: true}
	var prompt strings.Builder
	g := &runGuard{tty: true, in: strings.NewReader("n\n"), out: &prompt}
	if err := g.check(&choice{name: "drop-table"}, "prod-write", f); err == nil {
		t.Fatal("a no ran the command")
	}
	if want := "It would run:\n  $ fake drop 'x\\x1b[2K\\x0d'\n  (bytes a terminal would not show as text are written as \\xNN or \\uNNNN)\nRun it? [y/N] "; !strings.Contains(prompt.String(), want) ||
		strings.ContainsAny(prompt.String(), "\x1b\r") {
		t.Errorf("prompt %q\nwant %q", prompt.String(), want)
	}
}

func TestRunArgsSplit(t *testing.T) {
	for _, tt := range []struct {
		rest  []string
		named bool
		text  string
		pairs []string
	}{
		{[]string{"run tests", "a=1"}, false, "run tests", []string{"a=1"}},
		{[]string{"a=1", "b=2"}, false, "a=1", []string{"b=2"}},
		{[]string{"a=1", "b=2"}, true, "", []string{"a=1", "b=2"}},
		{[]string{"", "a=1"}, true, "", []string{"a=1"}},
		{[]string{"some words", "a=1"}, true, "some words", []string{"a=1"}},
		{nil, true, "", nil},
	} {
		text, pairs, err := splitRunArgs(tt.rest, tt.named)
		if err != nil || text != tt.text || !reflect.DeepEqual(pairs, tt.pairs) {
			t.Errorf("splitRunArgs(%q, %v) = %q, %q, %v", tt.rest, tt.named, text, pairs, err)
		}
	}
	if _, _, err := splitRunArgs(nil, false); err == nil {
		t.Error("no text and no --skill: want a usage error")
	}
}

// TestRunPlainIsArgv pins that a template of plain words runs without a
// shell, its argv taken from the template's syntax tree, and anything else
// through sh -c with the filled line.
func TestRunPlainIsArgv(t *testing.T) {
	agent := filepath.Join(t.TempDir(), "a.3md")
	src := guardAgent + `
@plane z=11 label="plain" kind=skill triggers="plain words" inputs="a, b" tool="fake {a} --x={b}"
Plain.
`
	if err := os.WriteFile(agent, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ag, err := loader.Open(agent, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ag.Close()
	for _, tt := range []struct {
		skill string
		a     string
		args  []string
	}{
		{"plain", "a b", []string{"fake", "a b", "--x=it's"}},
		{"piped", "a", []string{"sh", "-c", `fake ""'a'"" | cat`}},
	} {
		f, err := ag.Command(tt.skill, map[string]string{"a": tt.a, "b": "it's"})
		if err != nil {
			t.Fatal(err)
		}
		cmd := f.Cmd()
		if cmd == nil || !reflect.DeepEqual(cmd.Args, tt.args) {
			t.Errorf("%s: %+v, want args %q", tt.skill, cmd, tt.args)
		}
	}
	if cmd := (&loader.Fill{Command: "fake {a}", HasTool: true, Plain: true}).Cmd(); cmd != nil {
		t.Errorf("a fill that is not ready gave a process: %q", cmd.Args)
	}
}

// TestRunIssueRepro replays the two runs the issue reported: an option
// smuggled in through a positional value, and a relaxed match on a skill
// tagged cost=prod-write. Neither runs anything now.
func TestRunIssueRepro(t *testing.T) {
	code, _, errOut := cli(t, "run", "--no-cache", "--exec", "--skill", "run-tests", devtools, "", "pattern=TestX", "packages=-exec=/tmp/evil.sh")
	if code != exitNotReady || strings.Count(errOut, "input packages") != 1 || !strings.Contains(errOut, "go could read it as an option") {
		t.Errorf("option injection: exit %d\n%s", code, errOut)
	}
	code, _, errOut = cli(t, "run", "--no-cache", "--exec", "../../examples/oncall.3md", "the release looks bad, go back", "service=api", "namespace=prod", "revision=3")
	if code != exitRefused || !strings.HasPrefix(errOut, "→ rollback-deploy (relaxed: ") || !strings.Contains(errOut, "add --skill rollback-deploy") {
		t.Errorf("relaxed prod-write match: exit %d\n%s", code, errOut)
	}
	code, _, errOut = cli(t, "run", "--no-cache", "--exec", "--skill", "rollback-deploy", "../../examples/oncall.3md", "service=api", "namespace=prod", "revision=3")
	if code != exitRefused || !strings.Contains(errOut, "cost=prod-write; add --yes") {
		t.Errorf("named prod-write skill without --yes: exit %d\n%s", code, errOut)
	}
}

// TestRunSearchCodePre replays rg's --pre= smuggled into search-code.
// Under the template it had, rg --json --smart-case {pattern} {path},
// {pattern} followed --smart-case and passed for its argument, so the fill
// was ready; now it is refused. The bundled template passes the pattern as
// --regexp=, where the same value is only a pattern to search for.
func TestRunSearchCodePre(t *testing.T) {
	const fixed = `tool="rg --json --smart-case --regexp={pattern} -- {path}"`
	src, err := os.ReadFile(devtools)
	if err != nil || !strings.Contains(string(src), fixed) {
		t.Fatalf("devtools.3md has no %s (%v)", fixed, err)
	}
	old := filepath.Join(t.TempDir(), "devtools.3md")
	if err := os.WriteFile(old, []byte(strings.Replace(string(src), fixed, `tool="rg --json --smart-case {pattern} {path}"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, exec := range []string{"", "--exec"} {
		args := []string{"run", "--no-cache", exec, "--skill", "search-code", old, "pattern=--pre=/tmp/evil.sh", "path=."}
		if exec == "" {
			args = append(args[:2], args[3:]...)
		}
		code, out, errOut := cli(t, args...)
		if code != exitNotReady || strings.Contains(out+errOut, "evil") || strings.Count(errOut, "input pattern") != 1 ||
			!strings.Contains(errOut, "rg could read it as an option") || !strings.Contains(errOut, "(rg --json --smart-case -- {pattern} {path})") {
			t.Errorf("%v: exit %d, want %d\nstdout %q\n%s", args, code, exitNotReady, out, errOut)
		}
	}
	code, out, errOut := cli(t, "run", "--no-cache", "--skill", "search-code", devtools, "pattern=--pre=/tmp/evil.sh", "path=.")
	if want := "rg --json --smart-case --regexp='--pre=/tmp/evil.sh' -- '.'"; code != 0 || !strings.Contains(out, want) {
		t.Errorf("bundled search-code: exit %d, stdout %q, want %q\n%s", code, out, want, errOut)
	}
}
