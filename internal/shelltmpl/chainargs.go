package shelltmpl

import "strings"

// argWalk is the state of the walk over one program's arguments.
type argWalk struct {
	sp   *spec
	who  reader
	st   pstate // the parse states before the current word
	mode rest   // what its operands are now (an option may change it)
	left int    // data operands still to come (timeout's duration)
	stop bool   // the pending argument's option ends option parsing (python3 -c)
}

// args files the words after program word p, read by who with spec sp, and
// returns the index of the program a wrapper runs, or c.n.
func (c *chainer) args(p int, sp *spec, who reader) int {
	a := &argWalk{sp: sp, who: who, st: pstate{free: true}, mode: sp.rest, left: sp.operands}
	if sp.noOpts {
		a.st = pstate{end: true}
	}
	for k := p + 1; k < c.n; k++ {
		c.out[k].who, c.out[k].dash = who, c.dash
		next, operand, option := c.readings(k, sp, a.st)
		if a.stop && a.st.want && a.st.wantN == 1 && a.st.certain() {
			c.unknown(k+1, reader{kind: readCode, name: who.name})
			return c.n
		}
		if option.has && a.st.free && c.switchMode(k, a, option, next) {
			return c.n
		}
		if !operand {
			a.st = next
			continue
		}
		if end, done := c.operand(k, a, next); done {
			return end
		}
	}
	return c.n
}

// switchMode applies the mode an option word k names (sh -c, watch -x,
// command -v), and reports that the walk is over: the words after it are
// code's, or the guard cannot tell whether the word is an option.
func (c *chainer) switchMode(k int, a *argWalk, option optReading, next pstate) bool {
	if !option.hasMode {
		return false
	}
	if !a.st.certain() {
		if option.mode.rest == a.mode {
			return false
		}
		c.lost(k+1, "agent3md cannot tell whether "+option.word+" is an option of "+a.who.String()+" or the argument of the option before it")
		return true
	}
	a.mode, a.stop = option.mode.rest, option.mode.stop
	if a.mode == restProgram {
		a.left = 0 // runuser -u USER: no su-style user operand
	}
	if a.stop && next.free && !next.want && !next.maybe && !next.end {
		// python3 -cCODE: the words after it are the code's.
		c.unknown(k+1, reader{kind: readCode, name: a.who.name})
		return true
	}
	return false
}

// operand files word k, which some parse reads as an operand of a.who:
// what it is depends on the operands before it and on a.mode. done
// reports that the walk is over, and end is what args returns then.
func (c *chainer) operand(k int, a *argWalk, next pstate) (end int, done bool) {
	w, sl, who := c.ws[k], &c.out[k], a.who
	if (a.sp.subs != nil || a.mode != restData) && !a.st.certain() {
		c.lost(k, "agent3md cannot tell which of "+who.String()+"'s words are its options' arguments, so which word it runs")
		return c.n, true
	}
	ended := a.st.end
	a.st = next
	switch {
	case a.sp.subs != nil:
		return c.subcommand(k, a.sp, who), true
	case a.mode == restData:
		return 0, false
	case a.mode == restProgram:
		return c.programOperand(k, a, ended)
	case a.mode == restScript:
		sl.free, sl.end = ended, ended
		c.unknown(k+1, reader{kind: readScript, name: who.name, sub: scriptName(w), subPh: !w.lit})
		return c.n, true
	case a.mode == restCode:
		if a.left > 0 {
			a.left--
			return 0, false
		}
		for j := k; j < c.n; j++ {
			c.out[j].who, c.out[j].dash = who, c.dash
			c.codeWord(j, "it is part of the command line "+who.name+" runs")
		}
		return c.n, true
	case a.mode == restFirstCode:
		c.codeWord(k, "it is the code "+who.name+" runs")
		if a.sp.rest == restScript { // sh -c CODE $0 $1…
			c.unknown(k+1, reader{kind: readCode, name: who.name})
			return c.n, true
		}
		a.mode = restData // awk PROGRAM FILE…, sed SCRIPT FILE…
		return 0, false
	}
	// restCodeArgs: the words are the arguments of code in an option.
	c.unknown(k, reader{kind: readCode, name: who.name})
	return c.n, true
}

// programOperand files operand k of a wrapper: a data operand before the
// program (timeout's duration, flock's file), a NAME=VALUE for env, or
// the program it runs, whose index it returns.
func (c *chainer) programOperand(k int, a *argWalk, ended bool) (int, bool) {
	w, sl, sp, who := c.ws[k], &c.out[k], a.sp, a.who
	switch {
	case a.left > 0:
		a.left--
		if sp.codeOperands {
			c.codeWord(k, "it is the root directory "+who.name+" finds the program in")
		}
		return 0, false
	case sp.assigns && isAssignWord(w):
		return 0, false
	case sp.special == specialFlock && w.lit && (w.text == "-c" || w.text == "--command"):
		if k+1 < c.n {
			c.out[k+1].who, c.out[k+1].dash = who, c.dash
			c.codeWord(k+1, "it is the command line "+who.name+" -c runs")
		}
		c.unknown(k+2, reader{kind: readCode, name: who.name})
		return c.n, true
	case sp.permute && !ended:
		// su and runuser permute: a word after the program would still be
		// theirs to read as an option.
		c.lost(k, "without a -- of "+who.name+" before the program, "+who.name+" reads the program's options as its own")
		return c.n, true
	case sp.assigns && !w.lit && w.lead:
		sl.kind, sl.why = slotProgram, "it may be a NAME=VALUE for "+who.name+" or the name of the program it runs"
		c.unknown(k+1, reader{name: "{" + w.ph + "}"})
		return c.n, true
	}
	c.runner = who.String()
	return k, true
}

// subcommand files word k, the first operand of a program with
// subcommands, and the words after it.
func (c *chainer) subcommand(k int, sp *spec, who reader) int {
	w := c.ws[k]
	if !w.lit {
		c.out[k].kind, c.out[k].why = slotProgram, "it names the "+who.name+" subcommand to run"
		c.unknown(k+1, reader{name: who.name, sub: "{" + w.ph + "}"})
		return c.n
	}
	sub, ok := sp.subs[w.text]
	if !ok {
		c.unknown(k+1, reader{name: who.name, sub: w.text})
		return c.n
	}
	return c.args(k, sub, reader{name: who.name, sub: w.text, known: true})
}

// codeWord files word k as code: a placeholder there would run.
func (c *chainer) codeWord(k int, why string) {
	if !c.ws[k].lit {
		c.out[k].kind, c.out[k].why = slotCode, why
	}
}

// optReading is what a word is when read as an option of its program.
type optReading struct {
	has     bool
	word    string
	mode    modeSwitch
	hasMode bool
}

// readings files word k under the parse states st of a program with spec
// sp: whether it is an option's argument, an option, "--" or an operand,
// and the states after it. operand reports that some state reads it as an
// operand.
func (c *chainer) readings(k int, sp *spec, st pstate) (next pstate, operand bool, opt optReading) {
	w := c.ws[k]
	sl := &c.out[k]
	argOnly := !st.free && !st.end && !st.maybe // every state reads it as a known option's argument
	if st.want {
		sl.opt = st.wantOpt
		if st.wantCode {
			c.codeWord(k, "it is the argument of "+sl.who.String()+"'s "+st.wantOpt+", which runs it as code")
		}
		if st.wantN > 1 {
			next.want, next.wantOpt, next.wantN, next.wantCode = true, st.wantOpt, st.wantN-1, st.wantCode
		} else {
			next.free = true
		}
		if w.lit && w.text == "--" {
			c.setDash(k, dashArgument, st.wantOpt)
		}
	}
	if st.maybe {
		sl.opt = st.maybeOpt
		next.free = true
		if w.lit && w.text == "--" {
			c.setDash(k, dashMaybeArg, st.maybeOpt)
		}
	}
	if st.end {
		operand, next.end = true, true
	}
	if st.stopped {
		operand, next.stopped = true, true
	}
	argOnly = argOnly && !st.stopped
	sl.free = argOnly || (st.end && !st.free && !st.maybe && !st.stopped)
	sl.end = st.end && !st.free && !st.maybe && !st.want && !st.stopped
	if !st.free {
		return next, operand, opt
	}
	// After an operand read in this state: options again, or none when
	// the program stops at its first operand.
	after := pstate{free: true}
	if !sp.permute {
		after = pstate{stopped: true}
	}
	switch {
	case w.lit && w.text == "--":
		switch {
		case sp.dashdash && !st.want && !st.maybe:
			c.setDash(k, dashEnds, "")
			next.end = true
		case sp.dashdash:
			next.end = true // ended in the states where no option waited
		default:
			c.setDash(k, dashNoEnd, "")
			operand = true
			next = union(next, after)
		}
		return next, operand, opt
	case w.lit && isOptionWord(sp, w.text):
		opt = optReading{has: true, word: w.text}
		n := optionWord(sp, w.text)
		opt.mode, opt.hasMode = optionMode(sp, w.text)
		return union(next, n), operand, opt
	case !w.lit && strings.HasPrefix(w.text, "-") && len(w.text) > 1:
		v, n := glued(sp, w.text, w.tail)
		sl.glue = v
		if v == glueCode {
			sl.kind, sl.why = slotCode, "it is glued to "+w.text+", whose argument "+sl.who.String()+" runs as code"
		}
		if w.lead {
			operand = true // with the placeholders before the text not empty
			next = union(next, after)
		}
		return union(next, n), operand, opt
	}
	return union(next, after), true, opt
}

// isOptionWord reports a literal word program sp reads as an option.
func isOptionWord(sp *spec, v string) bool {
	if len(v) < 2 || v == "--" {
		return false
	}
	return v[0] == '-' || (sp.plus && v[0] == '+')
}

// optionWord returns the parse states after the literal option word v.
func optionWord(sp *spec, v string) pstate {
	if strings.HasPrefix(v, "--") {
		name, _, eq := strings.Cut(v[2:], "=")
		if eq {
			return pstate{free: true}
		}
		switch a := sp.longArity(name); a {
		case argNone, argOptional:
			return pstate{free: true}
		case argOne, argTwo:
			n := 1
			if a == argTwo {
				n = 2
			}
			return pstate{want: true, wantOpt: v, wantN: n, wantCode: sp.longCode(name)}
		}
		return pstate{free: true, maybe: true, maybeOpt: v}
	}
	for j := 1; j < len(v); j++ {
		switch sp.shortArity(v[j]) {
		case argNone:
			continue
		case argOptional:
			return pstate{free: true}
		case argOne:
			if j+1 < len(v) {
				return pstate{free: true} // its argument is glued
			}
			return pstate{want: true, wantOpt: v, wantN: 1, wantCode: sp.shortCode(v[j])}
		}
		// Unknown: it may take the next word, or none.
		return pstate{free: true, maybe: true, maybeOpt: v}
	}
	return pstate{free: true}
}

// optionMode returns the mode switch a literal option word names.
func optionMode(sp *spec, v string) (modeSwitch, bool) {
	if strings.HasPrefix(v, "--") {
		name, _, _ := strings.Cut(v, "=")
		return sp.mode(name)
	}
	for j := 1; j < len(v); j++ {
		for _, m := range sp.modes {
			if len(m.opt) == 2 && m.opt[1] == v[j] {
				return m, true
			}
		}
		if a := sp.shortArity(v[j]); a == argOne || a == argOptional {
			break // the rest of the word is this option's argument
		}
	}
	return modeSwitch{}, false
}

// glued says what a value glued to the option text h is to program sp,
// and the parse states after the word. tail: only placeholders follow h,
// so with them empty the word is h itself.
func glued(sp *spec, h string, tail bool) (glueVerdict, pstate) {
	free := pstate{free: true}
	if strings.HasPrefix(h, "--") {
		name, _, eq := strings.Cut(h[2:], "=")
		switch {
		case !eq:
			return glueName, free
		case name == "":
			return glueUnproven, free
		case sp.longCode(name):
			return glueCode, free
		}
		return glueProven, free
	}
	for j := 1; j < len(h); j++ {
		switch a := sp.shortArity(h[j]); a {
		case argNone:
			continue
		case argOne, argOptional:
			if sp.shortCode(h[j]) {
				return glueCode, free
			}
			if a == argOne && j == len(h)-1 && tail {
				return glueProven, union(free, pstate{want: true, wantOpt: h, wantN: 1})
			}
			return glueProven, free
		}
		return glueUnproven, pstate{free: true, maybe: true, maybeOpt: h}
	}
	return glueUnproven, pstate{free: true, maybe: true, maybeOpt: h}
}

func union(a, b pstate) pstate {
	a.free = a.free || b.free
	a.end = a.end || b.end
	a.stopped = a.stopped || b.stopped
	if b.want {
		a.want, a.wantOpt, a.wantN, a.wantCode = true, b.wantOpt, b.wantN, b.wantCode
	}
	if b.maybe {
		a.maybe, a.maybeOpt = true, b.maybeOpt
	}
	return a
}

// isAssignWord reports a NAME=VALUE word env reads as an assignment: its
// text before the first "=" is a name, and no value comes before it.
func isAssignWord(w argWord) bool {
	if !w.lit && w.lead {
		return false
	}
	name, _, ok := strings.Cut(w.text, "=")
	if !ok || name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(c == '_' || isLetter(c) || (i > 0 && isDigit(c))) {
			return false
		}
	}
	return true
}

func scriptName(w argWord) string {
	if w.lit {
		return w.text
	}
	return w.ph
}
