package shelltmpl

import (
	"strings"
	"testing"
)

// outcome is what the guard does with one placeholder: "refused" (the
// template is unsafe: the value would name a program, be code or choose
// an option), "nodash" (a value starting with "-" is refused), "free"
// (any value is text); then who reads it, and a piece of the reason or of
// the void note.
type outcome struct {
	verdict, program, says string
}

// judgeAll returns each placeholder's outcome, by name.
func judgeAll(tmpl string) map[string]outcome {
	a := Analyze(tmpl)
	got := map[string]outcome{}
	for _, p := range a.Problems {
		got[p.Name] = outcome{"refused", "", p.Reason}
	}
	for _, p := range a.Placeholders {
		v := "free"
		if p.Role == Positional || p.Role == OptionArgument || p.Role == GluedOption {
			v = "nodash"
		}
		got[p.Name] = outcome{v, p.Program, p.Void}
	}
	return got
}

// outcomeCase is a template and what the guard does with its {x}.
type outcomeCase struct {
	tmpl string
	want outcome
}

// checkOutcomes requires each template's {x} to get the outcome wanted:
// its verdict and program exactly, and the piece of its reason or note.
func checkOutcomes(t *testing.T, cases []outcomeCase) {
	t.Helper()
	for _, tt := range cases {
		got := judgeAll(tt.tmpl)["x"]
		if got.verdict != tt.want.verdict || got.program != tt.want.program || !strings.Contains(got.says, tt.want.says) {
			t.Errorf("%s: {x} %+v\nwant %+v", tt.tmpl, got, tt.want)
		}
	}
}

// TestChainDashDashOfAnotherProgram: a "--" that belongs to a
// wrapper (env, nice) or that is an option's argument (grep -e, --regexp,
// -f) ends no options of the program reading the value, and the outcome
// names that program, not the wrapper.
func TestChainDashDashOfAnotherProgram(t *testing.T) {
	checkOutcomes(t, []outcomeCase{
		{"env -- python3 {x}", outcome{"nodash", "python3", "the -- before it belongs to env, not to python3, which reads the value"}},
		{"nice -n 10 -- python3 {x}", outcome{"nodash", "python3", "the -- before it belongs to nice, not to python3"}},
		{"grep -e -- {x}", outcome{"nodash", "grep", "the -- before it is the argument of -e (grep's -e takes one)"}},
		{"grep --regexp -- {x}", outcome{"nodash", "grep", "the -- before it is the argument of --regexp"}},
		{"grep -f -- {x}", outcome{"nodash", "grep", "the -- before it is the argument of -f"}},
		{"grep -ie -- {x}", outcome{"nodash", "grep", "the -- before it is the argument of -ie"}},
		{"grep -e{p} -- {x}", outcome{"nodash", "grep", "the -- before it is the argument of -e"}}, // {p} empty: -e takes the --
		{"mytool -- {x}", outcome{"nodash", "mytool", "agent3md does not know mytool, so the -- before it proves nothing"}},
		{"mytool -x -- {x}", outcome{"nodash", "mytool", "agent3md does not know mytool"}},
		{"rg --xyz -- {x}", outcome{"nodash", "rg", "the -- before it may be the argument of --xyz (agent3md does not know whether rg's --xyz takes one)"}},
		{"python3 -- script.py {x}", outcome{"nodash", "the script script.py that python3 runs", "the -- before it belongs to python3"}},
		{"python3 script.py -- {x}", outcome{"nodash", "the script script.py that python3 runs", "agent3md does not know the script script.py that python3 runs"}},
		// The fixes the messages suggest: the program's own --.
		{"env python3 -- {x}", outcome{"free", "python3", ""}},
		{"nice -n 10 python3 -- {x}", outcome{"free", "python3", ""}},
		{"grep -e pat -- {x}", outcome{"free", "grep", ""}},
		{"grep --regexp=pat -- {x}", outcome{"free", "grep", ""}},
		{"grep -i -- {x}", outcome{"free", "grep", ""}},
		{"rg --json --smart-case --regexp=x -- {x}", outcome{"free", "rg", ""}},
		{"git blame -w -C -L 1,2 -- {x}", outcome{"free", "git blame", ""}},
		{"python3 -- {x}", outcome{"free", "python3", ""}},
		// No -- at all: the program that reads the value is named.
		{"nice -n 10 python3 {x}", outcome{"nodash", "python3", ""}},
		{"grep -e {x}", outcome{"free", "grep", ""}}, // -e's argument, whatever it is
		{"mytool -e {x}", outcome{"nodash", "mytool", ""}},
	})
}

// TestChainWrappers walks every wrapper the guard knows with its own
// options and operands: a -- of the wrapper proves nothing about the
// program it runs; a -- of that program does; a value in the program's
// place names the program and is refused.
func TestChainWrappers(t *testing.T) {
	for _, w := range []struct {
		name, prefix string // the wrapper with its options and operands
		dashed       string // the same with the wrapper's own "--" ("" to skip)
	}{
		{"env", "env -u HOME -i A=B", "env -i -- A=B"},
		{"nice", "nice -n 10", "nice -n 10 --"},
		{"nice (legacy)", "nice -10", "nice -10 --"},
		{"timeout", "timeout -s KILL -k 1 5s", "timeout -s KILL -- 5s"},
		{"sudo", "sudo -u root -E", "sudo -u root --"},
		{"doas", "doas -u root", ""},
		{"xargs", "xargs -0 -n 1 -I {}", "xargs -0 --"},
		{"nohup", "nohup", "nohup --"},
		{"time (the shell's)", "time -p", ""},
		{"time (GNU)", "/usr/bin/time -p -o /tmp/t", "/usr/bin/time -p --"},
		{"command", "command -p", "command --"},
		{"exec", "exec -a name", "exec --"},
		{"stdbuf", "stdbuf -oL -e 0", "stdbuf -oL --"},
		{"ionice", "ionice -c 3", "ionice -c 3 --"},
		{"chrt", "chrt -o 0", "chrt -o -- 0"},
		{"taskset", "taskset 0x1", "taskset -- 0x1"},
		{"setsid", "setsid -w", "setsid -w --"},
		{"flock", "flock -n /tmp/lock", "flock -n -- /tmp/lock"},
		{"watch -x", "watch -x -n 1", "watch -x -n 1 --"},
		{"busybox", "busybox", ""},
		{"chroot", "chroot --userspec=1:1 /srv", "chroot -- /srv"},
		{"unshare", "unshare -r --fork", "unshare -r --"},
		{"nsenter", "nsenter -t 1 -m", "nsenter -t 1 -m --"},
		{"runuser", "runuser -u bob --", ""},
		{"setpriv", "setpriv --nnp --reuid=1", "setpriv --nnp --"},
		{"caffeinate", "caffeinate -i -t 5", "caffeinate -i --"},
		{"find -exec", "find . -name x -exec", ""},
		{"nested", "env A=B nice -n 5 timeout 3 sudo -u x", "env -- nice -n 5 -- timeout -- 3 sudo -u x --"},
	} {
		t.Run(w.name, func(t *testing.T) {
			end := ""
			if w.name == "find -exec" {
				end = " ;"
			}
			if got := judgeAll(w.prefix + " ls -- {x}" + end)["x"]; got != (outcome{"free", "ls", ""}) {
				t.Errorf("%s ls -- {x}: %+v, want the value free after ls's own --", w.prefix, got)
			}
			if got := judgeAll(w.prefix + " ls {x}" + end)["x"]; got.verdict != "nodash" || got.program != "ls" {
				t.Errorf("%s ls {x}: %+v, want ls to read it and a leading - refused", w.prefix, got)
			}
			if got := judgeAll(w.prefix + " {x} -l" + end)["x"]; got.verdict != "refused" || !strings.Contains(got.says, "would run as a program") {
				t.Errorf("%s {x}: %+v, want it refused as the program", w.prefix, got)
			}
			if got := judgeAll(w.prefix + " sh -c {x}" + end)["x"]; got.verdict != "refused" || !strings.Contains(got.says, "the code sh runs") {
				t.Errorf("%s sh -c {x}: %+v, want it refused as code", w.prefix, got)
			}
			if w.dashed == "" {
				return
			}
			got := judgeAll(w.dashed + " ls {x}")["x"]
			if got.verdict != "nodash" || got.program != "ls" || !strings.Contains(got.says, "belongs to") || !strings.Contains(got.says, "not to ls, which reads the value") {
				t.Errorf("%s ls {x}: %+v, want the wrapper's -- to prove nothing for ls", w.dashed, got)
			}
		})
	}
}

// TestChainCode: a value in a place where it runs is refused with the
// template, whatever the value is.
func TestChainCode(t *testing.T) {
	for _, tt := range []struct{ tmpl, says string }{
		{"{x} --version", "it is the command's name"},
		{"./{x} run", "it is the command's name"},
		{"echo a; {x}", "it is the command's name"},
		{"echo a | {x} -l", "it is the command's name"},
		{"sh -c {x}", "it is the code sh runs"},
		{"bash -lc {x}", "it is the code bash runs"},
		{"bash -c -- {x}", "it is the code bash runs"},
		{"dash -ec 'ls {x}'", "it is the code dash runs"},
		{"sh -c \"grep {x} f\"", "it is the code sh runs"},
		{"python3 -c {x}", "the argument of python3's -c"},
		{"python3 -c{x}", "glued to -c, whose argument python3 runs"},
		{"python3.12 -c {x}", "the argument of python3.12's -c"},
		{"python3 -m {x}", "the argument of python3's -m"},
		{"node -e {x}", "the argument of node's -e"},
		{"node --eval={x}", "glued to --eval="},
		{"perl -e {x}", "the argument of perl's -e"},
		{"ruby -e {x}", "the argument of ruby's -e"},
		{"php -r {x}", "the argument of php's -r"},
		{"awk {x} file", "it is the code awk runs"},
		{"sed {x} file", "it is the code sed runs"},
		{"pwsh -c {x}", "the command line pwsh runs"},
		{"eval {x}", "the command line eval runs"},
		{"eval echo {x}", "the command line eval runs"},
		{"trap {x} EXIT", "it is the code trap runs"},
		{"unset {x}", "the command line unset runs"},
		{"su -c {x}", "the argument of su's -c"},
		{"su root {x}", "the command line su runs"},
		{"su root -c {x}", "the argument of su's -c"},
		{"sudo -s {x}", "the command line sudo runs"},
		{"env -S {x}", "the argument of env's -S"},
		{"env --split-string={x}", "glued to --split-string="},
		{"env {x} ls", "it may be a NAME=VALUE for env or the name of the program"},
		{"flock /tmp/l -c {x}", "the command line flock -c runs"},
		{"flock -c {x} /tmp/l", "flock's -c, which runs it as code"},
		{"watch {x}", "the command line watch runs"},
		{"watch ls {x}", "the command line watch runs"},
		{"ssh host ls {x}", "the command line ssh runs"},
		{"busybox {x}", "it names the program busybox runs"},
		{"builtin {x}", "it names the program builtin runs"},
		{"find . -exec {x} ;", "it names the program find -exec runs"},
		{"find . -exec sh -c {x} ;", "it is the code sh runs"},
		{"xargs sh -c {x}", "it is the code sh runs"},
		{"git {x} HEAD", "it names the git subcommand to run"},
		{"git -c {x} log", "the argument of git's -c"},
		{"rg --pre={x} pat", "glued to --pre=, whose argument rg runs"},
		{"rg --pre {x} pat", "the argument of rg's --pre"},
		{"rg --pr={x} pat", "glued to --pr=, whose argument rg runs"}, // an abbreviation
		{"sort --compress-program={x} f", "glued to --compress-program="},
		{"runuser -u bob ls {x}", "runuser reads the program's options as its own"},
		{"sudo -h host ls {x}", "agent3md cannot tell"},
		{"rg -l{x} .", "nothing proves that rg's -l takes an argument"},
		{"mysql -u{x} db", "nothing proves that mysql's -u takes an argument"},
		{"t --x{x}", "part of the option's name"},
		{"t -n={x}", "nothing proves that t's -n= takes an argument"},
		// After a program agent3md does not know, which may be a wrapper:
		// the found by FuzzGuardRun (runner sh -c {x} ran the value).
		{"runner sh -c {x}", "agent3md does not know runner, which may run sh as a wrapper does, and then it is the code sh runs"},
		{"mytool run env {x} ls", "agent3md does not know mytool, which may run env"},
		{"python3 x.py node -e {x}", "which may run node as a wrapper does"},
		{"sh -c 'exec \"$@\"' sh python3 -c {x}", "agent3md does not know the code sh runs, which may run python3"},
		{"runner -- timeout 5 {x}", "which may run timeout as a wrapper does, and then it names the program timeout runs"},
		// A wrapper stops at its first operand: the word after timeout's
		// duration is the program, whatever it starts with (the fuzzer
		// found timeout cat --regexp={x}, {cat} being an optional input
		// left out, running the value).
		{"timeout 5 --regexp={x}", "it names the program timeout runs"},
		{"env A=B -{x}", "it names the program env runs"},
		{"runner rg --pre={x} p", "glued to --pre="},
		// A directory a program is then found in chooses what runs.
		{"chroot {x} ls", "it is the root directory chroot finds the program in"},
		{"env -C {x} ./run", "the argument of env's -C"},
		{"sudo -D {x} ./run", "the argument of sudo's -D"},
		{"unshare --root={x} ls", "glued to --root="},
		{"node --env-file={x} app.js", "glued to --env-file="},
		{"perl -F{x} -ane1 f", "glued to -F"},
	} {
		got := judgeAll(tt.tmpl)["x"]
		if got.verdict != "refused" || !strings.Contains(got.says, tt.says) {
			t.Errorf("%s: {x} %+v\nwant refused, saying %q", tt.tmpl, got, tt.says)
		}
	}
}

// TestChainData: values the programs read as data stay fillable, with
// the outcome the program's parsing proves.
func TestChainData(t *testing.T) {
	checkOutcomes(t, []outcomeCase{
		{"python3 {x}", outcome{"nodash", "python3", ""}}, // the script's name
		{"python3 -- {x}", outcome{"free", "python3", ""}},
		{"sh -c 'echo \"$1\"' sh {x}", outcome{"nodash", "the code sh runs", ""}},
		{"timeout {x} ls", outcome{"nodash", "timeout", ""}},
		{"sudo -u {x} ls", outcome{"free", "sudo", ""}}, // -u's argument
		{"env -u {x} ls", outcome{"free", "env", ""}},
		{"env A={x} ls", outcome{"free", "env", ""}},
		{"nice -n {x} ls", outcome{"free", "nice", ""}},
		{"flock {x} ls", outcome{"nodash", "flock", ""}},
		{"curl --max-time {x} -- u", outcome{"free", "curl", ""}},
		{"git blame -L {x} -- f", outcome{"free", "git blame", ""}},
		{"git log -- {x}", outcome{"free", "git log", ""}},
		{"find {x} -name y", outcome{"nodash", "find", ""}},
		{"find . -name {x}", outcome{"free", "find", ""}},
		{"jq --arg a {x} .", outcome{"nodash", "jq", ""}},
		{"chroot /srv ls -- {x}", outcome{"free", "ls", ""}},
		// After its first operand env reads no options: -u is the program.
		{"env A=B -u HOME {x}", outcome{"nodash", "-u", ""}},
		{"awk -f prog.awk -- {x}", outcome{"free", "awk", ""}},
		{"sed -e p -- {x}", outcome{"free", "sed", ""}},
		{"ssh {x} uptime", outcome{"nodash", "ssh", ""}},
		{"echo {x}", outcome{"nodash", "echo", ""}},
		{"echo -- {x}", outcome{"nodash", "echo", "echo does not take -- as the end of its options"}},
		{"csvlook --max-rows=3 -- {x}", outcome{"free", "csvlook", ""}},
		{"golangci-lint run --fix=true -- {x}", outcome{"free", "golangci-lint run", ""}},
		{"git -C /r blame -- {x}", outcome{"free", "git blame", ""}},
		{"git bisect run -- {x}", outcome{"nodash", "git bisect", "agent3md does not know git bisect"}},
		{"X={x} ls", outcome{"free", "", ""}},
		// A program agent3md does not know, then words that name no
		// program it could run: data, though no -- proves anything.
		{"db query {x} --limit 3", outcome{"nodash", "db", ""}},
		{"mytool read {x}", outcome{"nodash", "mytool", ""}},
		{"mytool test -run {x}", outcome{"nodash", "mytool", ""}},
		{"runner python3 {x}", outcome{"nodash", "runner", ""}},
		{"ls > {x}", outcome{"free", "", ""}},
	})
}

// TestChainParsesEveryState: where an option's arity is unknown, the
// walk keeps both readings, so a word after it is no option only when
// neither reading makes it one.
func TestChainParsesEveryState(t *testing.T) {
	checkOutcomes(t, []outcomeCase{
		// --zzz may take the -- (then {x} is an option again) or not.
		{"rg --zzz -- {x}", outcome{"nodash", "rg", "may be the argument of --zzz"}},
		// -e takes "-x" as its argument, then -- ends the options.
		{"grep -e -x -- {x}", outcome{"free", "grep", ""}},
		// jq's --arg takes two words: name and value; then -- ends.
		{"jq --arg n v -- {x}", outcome{"nodash", "jq", "does not know jq"}},
		// Optional arguments are glued only: -C alone takes nothing.
		{"git blame -C -- {x}", outcome{"free", "git blame", ""}},
		// A short cluster ending in a letter that takes an argument.
		{"grep -iA -- {x}", outcome{"nodash", "grep", "the argument of -iA"}},
		{"grep -iA3 -- {x}", outcome{"free", "grep", ""}},
	})
}
