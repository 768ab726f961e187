package loader

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The fake programs FuzzGuardRun runs commands among. Each is this test
// binary, started under a program's name from a directory that is the
// whole PATH: it parses its arguments the way the real program does
// (GNU getopt, written here apart from the guard's own tables), writes
// what it took as an option, as code and as the program to run to the
// log, and then, as a wrapper, executes that program from PATH. A value
// executed as a program finds a fake under its own name, "pwn", which
// logs that it ran.

// fakeLogEnv names the log; set, it turns the test binary into a fake.
const fakeLogEnv = "A3MD_FAKE_LOG"

func TestMain(m *testing.M) {
	if log := os.Getenv(argvLogEnv); log != "" {
		os.Exit(recordArgv(log)) // shellfill_test.go's recording cat
	}
	if log := os.Getenv(fakeLogEnv); log != "" {
		os.Exit(runFake(filepath.Base(os.Args[0]), os.Args[1:], log))
	}
	os.Exit(m.Run())
}

// fakeSpec is how one fake parses its arguments.
type fakeSpec struct {
	short    string   // getopt string: "+" first stops at the first operand
	long     []string // "name" none, "name=" one, "name?" optional
	code     string   // letters whose argument is code
	codeLong []string
	wrapper  bool   // runs a program named by an operand
	fixed    int    // wrapper: data operands before the program
	assigns  bool   // env: NAME=VALUE operands before the program
	script   bool   // interpreter: the first operand is a script that takes the rest
	stop     string // letters whose argument ends parsing (python3 -c)
	noRun    string // letters after which a wrapper runs nothing (command -v)
	codeRest string // letters that make every operand code (sudo -s); "*" always unless execFlag
	execFlag byte   // watch -x: run the operands as a program
	sub      map[string]fakeSpec
	applet   bool // busybox: the first operand names the program
}

var fakes = map[string]fakeSpec{
	"env":        {short: "+0iu:C:S:P:v", long: []string{"ignore-environment", "null", "unset=", "chdir=", "split-string=", "debug"}, code: "SP", codeLong: []string{"split-string"}, wrapper: true, assigns: true},
	"nice":       {short: "+n:0123456789", long: []string{"adjustment="}, wrapper: true},
	"timeout":    {short: "+k:s:vfp", long: []string{"kill-after=", "signal=", "verbose", "foreground", "preserve-status"}, wrapper: true, fixed: 1},
	"nohup":      {short: "+", wrapper: true},
	"setsid":     {short: "+cfw", long: []string{"ctty", "fork", "wait"}, wrapper: true},
	"stdbuf":     {short: "+i:o:e:", long: []string{"input=", "output=", "error="}, wrapper: true},
	"xargs":      {short: "+0a:d:E:e::I:i::L:l::n:oP:prs:tx", long: []string{"null", "arg-file=", "delimiter=", "max-args=", "max-procs=", "no-run-if-empty", "verbose"}, wrapper: true},
	"flock":      {short: "+sexnw:E:uoc:FhV", long: []string{"shared", "exclusive", "unlock", "nonblock", "timeout=", "command=", "no-fork"}, code: "c", codeLong: []string{"command"}, wrapper: true, fixed: 1},
	"sudo":       {short: "+AbBC:D:Eeg:HiKklnPp:R:r:SsT:t:U:u:Vv", long: []string{"user=", "group=", "preserve-env?", "login", "shell", "chdir="}, wrapper: true, noRun: "elvKV", codeRest: "si"},
	"doas":       {short: "+a:C:Lnsu:", wrapper: true, noRun: "CL", codeRest: "s"},
	"chroot":     {short: "+", long: []string{"userspec=", "groups=", "skip-chdir"}, wrapper: true, fixed: 1},
	"unshare":    {short: "+fmuinpCTUrR:w:S:G:c", long: []string{"fork", "map-root-user", "root=", "wd="}, wrapper: true},
	"nsenter":    {short: "+at:m::u::i::n::p::C::U::T::S:G:r::w::W::eFZ", long: []string{"target=", "mount?", "all"}, wrapper: true},
	"setpriv":    {short: "+d", long: []string{"nnp", "no-new-privs", "reuid=", "regid=", "clear-groups", "reset-env"}, wrapper: true},
	"caffeinate": {short: "+dimsut:w:", wrapper: true},
	"ionice":     {short: "+c:n:tpPu", long: []string{"class=", "classdata="}, wrapper: true, noRun: "pPu"},
	"chrt":       {short: "+abdefimopP:rRT:D:v", wrapper: true, fixed: 1, noRun: "pm"},
	"taskset":    {short: "+acp", wrapper: true, fixed: 1, noRun: "p"},
	"command":    {short: "+pvV", wrapper: true, noRun: "vV"},
	"runuser":    {short: "c:fg:G:lmpPs:u:w:", code: "cs", wrapper: true},
	"watch":      {short: "+bcCd::egn:pq:rtwx", wrapper: true, codeRest: "*", execFlag: 'x'},
	"busybox":    {short: "+", wrapper: true, applet: true},
	"runner":     {short: "+q", wrapper: true}, // a wrapper agent3md does not know

	"python3": {short: "+bBc:dEhiIm:OPqRsStuvVW:xX:", code: "cm", stop: "cm", script: true},
	"node":    {short: "+e:p:r:C:icvh", long: []string{"eval=", "print=", "require=", "no-warnings"}, code: "epr", codeLong: []string{"eval", "print", "require"}, script: true},
	"perl":    {short: "+0::aC::cd::D:e:E:fF:hi::I:lM:m:npsStTuUvVwWx::X", code: "eEMmdI", script: true},
	"grep": {short: "0123456789A:B:C:D:d:e:f:m:X:EFGHhIiJLlNnoPqRrsTUuVvwxyZz",
		long: []string{"regexp=", "file=", "after-context=", "context=", "ignore-case", "line-number", "count", "version", "help"}},
	"rg":   {short: "A:B:C:d:E:e:f:g:j:m:M:r:t:T:abcFHhiIlLnNopPqsSuUvVwxz0", long: []string{"regexp=", "pre=", "smart-case", "json", "glob=", "files"}, codeLong: []string{"pre"}},
	"curl": {short: "A:b:c:C:d:D:e:E:F:H:K:m:o:P:Q:r:t:T:u:U:w:x:X:Y:y:z:#0123456fGgIiJjkLlMNnOpqRsSvVZ", long: []string{"max-time=", "output=", "silent", "engine="}, codeLong: []string{"engine"}},
	"ls":   {short: "aAbBcCdDfFgGhHiI:klLmnNopqQrRsStT:uUvw:xXZ1"},
	"cat":  {short: "AbeEnstTuv"},
	"git": {short: "+C:c:pPhv", code: "c", long: []string{"git-dir=", "no-pager", "exec-path?"}, codeLong: []string{"exec-path"},
		sub: map[string]fakeSpec{"blame": {short: "bL:ltS:sepwM::C::hcfn", long: []string{"porcelain", "root", "contents=", "date="}}}},
	"mytool": {short: "ab:c", long: []string{"flag", "name="}}, // a program agent3md does not know
}

// fakeEvent is one thing a fake took from its arguments: the byte range
// [Lo, Hi) of argument Arg that it read as an option's name ("option"),
// ran as code ("code") or as a program ("exec").
type fakeEvent struct {
	Kind    string
	Arg     int
	Lo, Hi  int
	Comment string `json:",omitempty"`
}

// fakeRecord is one fake's log line: its name, its arguments (bytes: a
// value may not be UTF-8) and events.
type fakeRecord struct {
	Prog   string
	Argv   [][]byte
	Events []fakeEvent
}

func runFake(name string, args []string, log string) int {
	rec := fakeRecord{Prog: name}
	for _, a := range args {
		rec.Argv = append(rec.Argv, []byte(a))
	}
	sp, known := fakes[name]
	var run []int // the arguments a wrapper runs: the program and its own
	switch {
	case !known:
		// A pwn fake: a value ran as a program.
		rec.Events = append(rec.Events, fakeEvent{Kind: "pwn"})
	default:
		run = parseFake(sp, args, &rec)
	}
	writeRecord(log, rec)
	if len(run) == 0 {
		return 0
	}
	path := lookFake(args[run[0]])
	if path == "" {
		return 127
	}
	// GNU getopt permutes: the program gets the operands in order, with
	// the wrapper's "--" and options taken out.
	argv := make([]string, len(run))
	for i, k := range run {
		argv[i] = args[k]
	}
	syscall.Exec(path, argv, os.Environ())
	return 126
}

// parseFake parses args as sp says, filing events, and returns the
// indices of the words a wrapper runs (the program's first), or none.
func parseFake(sp fakeSpec, args []string, rec *fakeRecord) []int {
	operands, stopped, flags := getoptFake(sp, args, rec, 0)
	if len(sp.sub) > 0 && len(operands) > 0 {
		first := operands[0]
		sub, ok := sp.sub[args[first]]
		if !ok {
			return nil
		}
		rest := args[first+1:]
		getoptFake(sub, rest, rec, first+1)
		return nil
	}
	switch {
	case stopped || !sp.wrapper && !sp.applet:
		return nil // data, a script, or code's arguments
	case strings.ContainsAny(flags, sp.noRun) && sp.noRun != "":
		return nil
	case sp.codeRest == "*" && (sp.execFlag == 0 || !strings.ContainsRune(flags, rune(sp.execFlag))),
		sp.codeRest != "" && sp.codeRest != "*" && strings.ContainsAny(flags, sp.codeRest):
		for _, k := range operands {
			rec.Events = append(rec.Events, fakeEvent{Kind: "code", Arg: k, Hi: len(args[k]), Comment: "command line"})
		}
		return nil
	}
	k := 0
	if sp.fixed > 0 {
		k = sp.fixed
	}
	for sp.assigns && k < len(operands) && strings.Contains(args[operands[k]], "=") {
		k++
	}
	if k >= len(operands) {
		return nil
	}
	if sp.fixed > 0 && strings.Contains(flags, "c") && sp.code != "" {
		return nil // flock -c CMD: no program
	}
	p := operands[k]
	rec.Events = append(rec.Events, fakeEvent{Kind: "exec", Arg: p, Hi: len(args[p])})
	return operands[k:]
}

// getoptFake is GNU getopt_long over args (at offset base in the whole
// argument list): it files each option's name as an "option" event and
// each code argument as "code", and returns the operands' indices, whether
// parsing stopped at a stop letter or at a script (the rest is not this
// program's), and the option letters seen.
func getoptFake(sp fakeSpec, args []string, rec *fakeRecord, base int) (operands []int, stopped bool, flags string) {
	permute := !strings.HasPrefix(sp.short, "+")
	opts := strings.TrimPrefix(sp.short, "+")
	ev := func(kind string, k, lo, hi int) {
		rec.Events = append(rec.Events, fakeEvent{Kind: kind, Arg: base + k, Lo: lo, Hi: hi})
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			for j := i + 1; j < len(args); j++ {
				operands = append(operands, base+j)
			}
			return operands, false, flags
		case len(a) < 2 || a[0] != '-':
			operands = append(operands, base+i)
			if sp.script && len(operands) == 1 && sp.sub == nil {
				return operands, true, flags // the script takes the rest
			}
			if !permute {
				for j := i + 1; j < len(args); j++ {
					operands = append(operands, base+j)
				}
				return operands, false, flags
			}
			continue
		case strings.HasPrefix(a, "--"):
			name, _, eq := strings.Cut(a[2:], "=")
			ev("option", i, 0, 2+len(name))
			ar, code := fakeLong(sp, name)
			if ar == 1 && !eq && i+1 < len(args) {
				i++
				if code {
					ev("code", i, 0, len(args[i]))
				}
			} else if code && eq {
				ev("code", i, 3+len(name), len(a))
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			c := a[j]
			lo := j
			if j == 1 {
				lo = 0
			}
			ev("option", i, lo, j+1)
			flags += string(c)
			k := strings.IndexByte(opts, c)
			if k < 0 || c == ':' {
				continue // an unknown option: getopt reports it, the letter is still read as one
			}
			colons := len(opts[k+1:]) - len(strings.TrimLeft(opts[k+1:], ":"))
			if colons == 0 {
				continue
			}
			code := strings.IndexByte(sp.code, c) >= 0
			switch {
			case j+1 < len(a):
				if code {
					ev("code", i, j+1, len(a))
				}
			case colons == 1 && i+1 < len(args):
				i++
				if code {
					ev("code", i, 0, len(args[i]))
				}
			}
			if strings.IndexByte(sp.stop, c) >= 0 {
				return operands, true, flags
			}
			break
		}
	}
	return operands, false, flags
}

// fakeLong returns a long option's arity (0 none, 1 one, 2 optional) and
// whether it runs its argument; GNU getopt takes an unambiguous prefix.
func fakeLong(sp fakeSpec, name string) (int, bool) {
	ar, n := 0, 0
	code := false
	for _, l := range sp.long {
		full := strings.TrimRight(l, "=?")
		if !strings.HasPrefix(full, name) {
			continue
		}
		a := 0
		switch {
		case strings.HasSuffix(l, "="):
			a = 1
		case strings.HasSuffix(l, "?"):
			a = 2
		}
		if full == name {
			ar, n = a, 1
			break
		}
		ar = a
		n++
	}
	for _, l := range sp.codeLong {
		code = code || strings.HasPrefix(l, name)
	}
	if n != 1 {
		return 0, code
	}
	return ar, code
}

func lookFake(name string) string {
	if strings.Contains(name, "/") {
		return name
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	return ""
}

func writeRecord(log string, rec fakeRecord) {
	b, err := json.Marshal(rec)
	if err != nil {
		return
	}
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	f.Write(append(b, '\n'))
	f.Close()
}
