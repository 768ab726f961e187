package shelltmpl

import "strings"

// The chain analysis: which program reads each word of a simple command.
// The command word names a program; a wrapper (env, nice -n 10, sudo -u
// x) reads its own options and operands and then names the next program;
// an interpreter runs a script or code that reads the words after it. The
// analysis walks the words with the programs' specs (programs_table.go),
// keeping every way the words could be parsed when an option's arity is
// unknown, and files each word under the program that reads it: whether
// a "--" of that very program comes before it, whether it is an option's
// argument, or whether it names a program or is code.

// argWord is one word of a simple command as the chain analysis sees it.
type argWord struct {
	lit  bool   // it holds no placeholder
	text string // lit: the word as the command sees it; else its first literal text ("" when none)
	lead bool   // !lit: a placeholder comes before text, so a value may start the word
	tail bool   // !lit: only placeholders follow text: with them all empty the word is text
	ph   string // !lit: the name of its first placeholder
}

type slotKind uint8

const (
	slotArg     slotKind = iota // an argument its reader reads
	slotProgram                 // it names the program to run
	slotCode                    // it is code, or part of a command line, that runs
	slotLost                    // the guard cannot tell whether it names a program or is code
)

type readerKind uint8

const (
	readProgram readerKind = iota // the program (name), or its subcommand (name sub)
	readScript                    // the script program name runs (sub: its operand)
	readCode                      // code the template gave program name in an option
)

// reader is the program that reads a word.
type reader struct {
	kind  readerKind
	name  string // the program's word, as the command sees it
	sub   string // a subcommand (readProgram), or the script operand (readScript)
	subPh bool   // sub is the name of a placeholder
	known bool   // the guard has a spec for it
}

// String names the reader for a message.
func (r reader) String() string {
	switch r.kind {
	case readScript:
		if r.subPh {
			return "the script {" + r.sub + "} that " + r.name + " runs"
		}
		return "the script " + r.sub + " that " + r.name + " runs"
	case readCode:
		return "the code " + r.name + " runs"
	}
	if r.sub != "" {
		return r.name + " " + r.sub
	}
	return r.name
}

type glueVerdict uint8

const (
	glueNone     glueVerdict = iota // the word is no option with a value glued to it
	glueProven                      // the value is the argument of an option known to take one
	glueUnproven                    // nothing proves the value is the option's argument
	glueName                        // the value is part of a long option's name
	glueCode                        // the value is the argument of an option that runs it
)

type dashNote uint8

const (
	dashEnds     dashNote = iota // it ends its reader's options
	dashArgument                 // it is the argument of the option before it
	dashMaybeArg                 // it may be the argument of the option before it
	dashUnknown                  // its reader is a program the guard does not know
	dashNoEnd                    // its reader does not take "--" as the end of its options
	dashLost                     // the guard cannot tell which program reads it
)

// wordSlot is what the chain analysis files for one word.
type wordSlot struct {
	kind slotKind
	who  reader
	// free: no way of parsing reads the word as an option of who: it
	// follows who's own "--" (end), or is the argument of an option
	// known to take one.
	free, end bool
	opt       string // an option word whose argument it may be
	glue      glueVerdict
	dash      int    // the last "--" word before it, -1 when none
	why       string // slotProgram, slotCode: what runs it
	// For a "--" word: what it is to its reader, and the option whose
	// argument it is or may be.
	note    dashNote
	noteOpt string
}

// pstate is the set of states a getopt-style parse can be in before a
// word: options are read (free), a known option waits for its argument
// (want, wantN words), an option that may take one waits (maybe), the
// program's "--" came (end), or a program that stops at its first operand
// (getopt's "+": timeout, env, every wrapper) has met it (stopped): it
// reads no more options, but nothing proves the words are no options of
// the program they go to next.
type pstate struct {
	free, want, maybe, end, stopped bool
	wantOpt, maybeOpt               string
	wantN                           int
	wantCode                        bool
}

func (s pstate) certain() bool {
	n := 0
	for _, b := range [...]bool{s.free, s.want, s.maybe, s.end, s.stopped} {
		if b {
			n++
		}
	}
	return n == 1 && !s.maybe
}

// chainer walks one simple command's words.
type chainer struct {
	ws     []argWord
	out    []wordSlot
	n      int    // the words from n on are not this command's (find -exec … ;)
	dash   int    // the last "--" word met
	runner string // the wrapper whose program the next word names
}

// chain files every word of a simple command (ws[0] is the command word)
// into out, which has len(ws) slots.
func chain(ws []argWord, out []wordSlot) {
	chainCore(ws, out)
	wrappedSuffixes(ws, out)
}

// wrappedSuffixes covers what a program the guard does not know may do
// with the words after it: run them, as a wrapper does. Where one of those
// words names a program the guard knows and can be executed ("runner sh
// -c {p}", "python3 x.py env {p}"), the words from there on are walked as
// that program's command too, and a placeholder that would then name a
// program or be code is refused. (A placeholder right after the unknown
// program, "runner {p}", cannot be judged: most programs are no wrappers,
// docs/run-guard.md §2.) It walks each such suffix apart, so it needs no
// recursion, and allocates only when there is one.
func wrappedSuffixes(ws []argWord, out []wordSlot) {
	var scratch []wordSlot
	for j := 1; j < len(ws); j++ {
		if !ws[j].lit || out[j].kind != slotArg || out[j].who.known || ws[j].text == "" || ws[j].text[0] == '-' || !executable(ws[j].text) {
			continue
		}
		if scratch == nil {
			scratch = make([]wordSlot, len(ws))
		}
		sub := scratch[:len(ws)-j]
		chainCore(ws[j:], sub)
		for k := range sub {
			w := j + k
			if ws[w].lit || out[w].kind != slotArg {
				continue
			}
			switch {
			case sub[k].kind != slotArg:
				out[w].kind = slotCode
				out[w].why = "agent3md does not know " + out[j].who.String() + ", which may run " + ws[j].text + " as a wrapper does, and then " + sub[k].why
			case sub[k].glue == glueCode:
				out[w].glue = glueCode
			}
		}
	}
}

// executable reports a program the guard knows that exists as a file to
// run, not only as a shell builtin.
func executable(name string) bool {
	base := name[strings.LastIndexByte(name, '/')+1:]
	if executables[base] {
		return true
	}
	return (strings.HasPrefix(base, "python") || strings.HasPrefix(base, "pypy")) && lookupProgram(base) == interpreters["python3"] // python3.12
}

// chainCore is chain without wrappedSuffixes.
func chainCore(ws []argWord, out []wordSlot) {
	c := chainer{ws: ws, out: out, n: len(ws), dash: -1}
	for i := range out {
		out[i] = wordSlot{dash: -1}
	}
	for i := 0; i < c.n; {
		i = c.program(i)
	}
}

// program files word i, which names a program (run by c.runner, "" for
// the command word itself), and the words that program reads. It returns the
// index of the next program's word, or len(ws).
func (c *chainer) program(i int) int {
	runner := c.runner
	c.runner = ""
	w := c.ws[i]
	sl := &c.out[i]
	sl.kind, sl.dash = slotProgram, c.dash
	if !w.lit {
		sl.why = "it is the command's name"
		if runner != "" {
			sl.why = "it names the program " + runner + " runs"
		}
		c.unknown(i+1, reader{name: "{" + w.ph + "}"})
		return c.n
	}
	sp := lookupProgram(w.text)
	if sp == nil {
		c.unknown(i+1, reader{name: w.text})
		return c.n
	}
	if sp.special == specialFind {
		return c.find(i, reader{name: w.text, known: true})
	}
	return c.args(i, sp, reader{name: w.text, known: true})
}

// unknown files the words from k on as read by who, a program or script
// the guard has no spec for: no "--" ends its options as far as the guard
// can prove, and any word may be an option or an option's argument.
func (c *chainer) unknown(k int, who reader) {
	who.known = false
	for ; k < c.n; k++ {
		w := c.ws[k]
		sl := &c.out[k]
		sl.who, sl.dash = who, c.dash
		if w.lit {
			if w.text == "--" {
				c.setDash(k, dashUnknown, "")
			}
			continue
		}
		if p := c.ws[k-1]; p.lit && isOptionText(p.text, true) {
			sl.opt = p.text
		}
		if strings.HasPrefix(w.text, "-") {
			sl.glue = glueUnproven
			if strings.HasPrefix(w.text, "--") && strings.IndexByte(w.text, '=') < 0 {
				sl.glue = glueName
			}
		}
	}
}

// lost files the placeholders from k on as code: the guard cannot tell
// which of these words names the program or the command line runner runs.
func (c *chainer) lost(k int, why string) {
	for ; k < c.n; k++ {
		sl := &c.out[k]
		sl.dash = c.dash
		if c.ws[k].lit {
			if c.ws[k].text == "--" {
				c.setDash(k, dashLost, "")
			}
			continue
		}
		sl.kind, sl.why = slotLost, why
	}
}

func (c *chainer) setDash(k int, note dashNote, opt string) {
	c.out[k].note, c.out[k].noteOpt = note, opt
	c.dash = k
}

// find files find's words: its options, paths and expression, where
// -exec, -execdir, -ok and -okdir run the program their next word names,
// with the words up to ";" or "+".
func (c *chainer) find(p int, who reader) int {
	sp := lookupProgram("find")
	st := pstate{free: true}
	for k := p + 1; k < c.n; k++ {
		w := c.ws[k]
		sl := &c.out[k]
		sl.who, sl.dash = who, c.dash
		switch {
		case st.want:
			sl.free, sl.opt = true, st.wantOpt
			st = pstate{free: true}
			continue
		case w.lit && (w.text == "-exec" || w.text == "-execdir" || w.text == "-ok" || w.text == "-okdir"):
			end := k + 1
			for end < c.n && !(c.ws[end].lit && (c.ws[end].text == ";" || c.ws[end].text == "+")) {
				end++
			}
			n, dash := c.n, c.dash
			c.n, c.dash = end, -1
			for i := k + 1; i < c.n; {
				c.runner = "find " + w.text
				i = c.program(i)
			}
			c.n, c.dash = n, dash
			k = end
			continue
		case w.lit && strings.HasPrefix(w.text, "-") && len(w.text) > 1:
			if findArgs[w.text] > 0 {
				st = pstate{want: true, wantOpt: w.text}
			} else if k == p+1 || c.ws[k-1].lit && strings.HasPrefix(c.ws[k-1].text, "-") && len(c.ws[k-1].text) == 2 && sp.shortArity(c.ws[k-1].text[1]) == argOne {
				// an option before the paths, or its argument
				if len(w.text) == 2 && sp.shortArity(w.text[1]) == argOne {
					st = pstate{want: true, wantOpt: w.text}
				}
			}
		case !w.lit:
			if p := c.ws[k-1]; p.lit && isOptionText(p.text, true) {
				sl.opt = p.text
			}
			if strings.HasPrefix(w.text, "-") {
				sl.glue = glueUnproven
			}
		}
	}
	return c.n
}

// findArgs are find's primaries that take an argument word.
var findArgs = map[string]int{
	"-name": 1, "-iname": 1, "-path": 1, "-ipath": 1, "-wholename": 1, "-iwholename": 1, "-regex": 1, "-iregex": 1, "-regextype": 1,
	"-type": 1, "-xtype": 1, "-user": 1, "-group": 1, "-perm": 1, "-size": 1, "-mtime": 1, "-mmin": 1, "-atime": 1, "-amin": 1,
	"-ctime": 1, "-cmin": 1, "-newer": 1, "-anewer": 1, "-cnewer": 1, "-maxdepth": 1, "-mindepth": 1, "-samefile": 1, "-inum": 1,
	"-links": 1, "-uid": 1, "-gid": 1, "-used": 1, "-lname": 1, "-ilname": 1, "-fstype": 1, "-printf": 1, "-fprint": 1, "-fprint0": 1,
	"-fls": 1, "-context": 1, "-files0-from": 1, "-fprintf": 1, "-newerXY": 1,
}
