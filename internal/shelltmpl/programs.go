package shelltmpl

import "strings"

// What the guard knows about programs (docs/run-guard.md §2). Nothing in a
// template says what a program does with its arguments: whether it runs
// another program named by one of them (env, sudo, timeout, xargs: a
// wrapper), runs one as code (sh -c, python3 -c, eval), or which of its
// options take an argument (grep -e takes one, so "grep -e -- {f}" gives
// "--" to -e and the value after it is an option again). A "--" proves a
// value is no option only when it ends the options of the very program
// that reads the value, so the guard must know that program: a program
// it has no spec for may be a wrapper, and its "--" proves nothing.

// rest says what the words after a program's options are.
type rest uint8

const (
	// restData: operands the program reads as data (rg, grep, git blame).
	restData rest = iota
	// restProgram: after the spec's data operands (timeout's duration) and
	// NAME=VALUE words (env), the next word names a program that reads the
	// rest: a wrapper.
	restProgram
	// restScript: the first operand names a script the program runs, and
	// the words after it are the script's, not the program's
	// (python3 script.py args).
	restScript
	// restCode: every operand is code or a command line (eval, watch
	// without -x, ssh's remote command, su's shell arguments).
	restCode
	// restFirstCode: the first operand is code (sh -c's command string,
	// awk's and sed's program text); the rest are data.
	restFirstCode
	// restCodeArgs: the operands are arguments of code the template gave
	// in an option (python3 -c CODE args): that code reads them.
	restCodeArgs
)

// arity is how many argument words an option takes.
type arity uint8

const (
	argUnknown  arity = iota // not in the spec: it may take one
	argNone                  // a flag
	argOne                   // a required argument: glued, or the next word
	argOptional              // an optional argument, only when glued
	argTwo                   // two argument words (jq --arg name value)
)

// modeSwitch is an option that changes what the operands are: sh -c makes
// the first operand code, watch -x makes the operands a program again,
// command -v runs nothing. stop: option parsing ends after the option's
// argument (python3 -c CODE, -m MODULE): the rest belongs to that code.
type modeSwitch struct {
	opt  string // "-c" or "--command"
	rest rest
	stop bool
}

// spec is what the guard knows about how one program reads its arguments.
type spec struct {
	// short lists the single-letter options getopt-style: "a" takes no
	// argument, "a:" one, "a::" an optional glued one. A letter not listed
	// is unknown: it may take an argument.
	short string
	// long lists the long options: "name" takes none, "name=" one,
	// "name?" an optional glued one, "name==" two words.
	long []string
	// code lists the short letters, and codeLong the long names, whose
	// argument is code or names a program, a script or a library to load.
	code     string
	codeLong []string
	modes    []modeSwitch
	rest     rest
	operands int // restProgram, restCode: data operands before the program or the code
	// codeOperands: those operands choose what runs (chroot's root).
	codeOperands bool
	assigns      bool // restProgram: NAME=VALUE words before the program (env)
	// permute: options may follow operands (GNU getopt, argparse, clap,
	// pflag). A program that stops at its first operand is modelled so
	// only where that matters (wrappers, interpreters).
	permute bool
	// dashdash: a "--" word ends its options.
	dashdash bool
	// noOpts: it parses no options at all (eval, pwsh's command line).
	noOpts bool
	// plus: "+x" is an option too (the shells' set options).
	plus bool
	// subs are the subcommands the guard knows (git blame); a first
	// operand not listed leaves the reader unknown. nil: no subcommands.
	subs map[string]*spec
	// special handles what getopt cannot say: find's -exec, flock's
	// "FILE -c CMD", runuser's -u.
	special specialKind
	// longIdx is long by name, for the exact lookups nearly every word
	// needs (built once, by indexLongs).
	longIdx map[string]arity
}

// indexLongs builds each spec's longIdx.
func indexLongs(specs map[string]*spec) {
	var index func(s *spec)
	index = func(s *spec) {
		if s.longIdx != nil {
			return
		}
		s.longIdx = make(map[string]arity, len(s.long))
		for _, l := range s.long {
			n, a := splitLong(l)
			s.longIdx[n] = a
		}
		for _, sub := range s.subs {
			index(sub)
		}
	}
	for _, s := range specs {
		index(s)
	}
}

type specialKind uint8

const (
	specialNone  specialKind = iota
	specialFind              // find: -exec PROG … ; in its expression
	specialFlock             // flock FILE -c CMD
)

// lookupProgram returns the spec of the program a command word names, by
// its base name, or nil when the guard does not know it.
func lookupProgram(word string) *spec {
	base := word
	if i := strings.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
	}
	if s, ok := programs[base]; ok {
		return s
	}
	// python3.12, pypy3.10: versioned interpreter names.
	for _, p := range []string{"python", "pypy"} {
		if strings.HasPrefix(base, p) && versionSuffix(base[len(p):]) {
			return programs["python3"]
		}
	}
	return nil
}

func versionSuffix(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) && s[i] != '.' {
			return false
		}
	}
	return true
}

// shortArity is the arity of the single-letter option c.
func (s *spec) shortArity(c byte) arity {
	if c == ':' {
		return argUnknown
	}
	i := strings.IndexByte(s.short, c)
	if i < 0 {
		return argUnknown
	}
	switch {
	case strings.HasPrefix(s.short[i+1:], "::"):
		return argOptional
	case strings.HasPrefix(s.short[i+1:], ":"):
		return argOne
	}
	return argNone
}

// longArity is the arity of the long option name (without "--"). getopt
// and argparse accept an unambiguous prefix of a name, so a prefix of
// listed names counts when they all agree.
func (s *spec) longArity(name string) arity {
	if name == "" {
		return argUnknown
	}
	if a, ok := s.longIdx[name]; ok {
		return a
	}
	found := argUnknown
	for _, l := range s.long {
		n, a := splitLong(l)
		switch {
		case n == name:
			return a
		case strings.HasPrefix(n, name):
			if found != argUnknown && found != a {
				return argUnknown
			}
			found = a
		}
	}
	return found
}

func splitLong(l string) (string, arity) {
	switch {
	case strings.HasSuffix(l, "=="):
		return l[:len(l)-2], argTwo
	case strings.HasSuffix(l, "="):
		return l[:len(l)-1], argOne
	case strings.HasSuffix(l, "?"):
		return l[:len(l)-1], argOptional
	}
	return l, argNone
}

// shortCode reports a letter whose argument is code.
func (s *spec) shortCode(c byte) bool { return strings.IndexByte(s.code, c) >= 0 }

// longCode reports a long option, or a prefix of one, whose argument is
// code: "--pr" may be rg's --pre.
func (s *spec) longCode(name string) bool {
	for _, l := range s.codeLong {
		if strings.HasPrefix(l, name) && name != "" {
			return true
		}
	}
	return false
}

// mode returns the mode switch for option opt ("-c", "--command"), if any.
func (s *spec) mode(opt string) (modeSwitch, bool) {
	for _, m := range s.modes {
		if m.opt == opt || (strings.HasPrefix(opt, "--") && len(opt) > 2 && strings.HasPrefix(m.opt, opt)) {
			return m, true
		}
	}
	return modeSwitch{}, false
}
