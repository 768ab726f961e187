package shelltmpl

import (
	"fmt"
	"strings"
)

// verdict is whether a placeholder can be filled at all.
type verdict uint8

const (
	verdictOK           verdict = iota
	verdictProgram              // the value names a program to run
	verdictCode                 // the value is code
	verdictLost                 // the guard cannot tell which program reads it
	verdictOptionCode           // --name={p} where --name runs its argument
	verdictGlueCode             // -x{p} where -x runs its argument
	verdictGlueName             // --na{p}: the value is part of the option's name
	verdictGlueUnproven         // -x{p} where nothing proves -x takes an argument
)

// judge decides a placeholder's verdict from its word's slot and the role
// its own prefix gives it (prefixRole): whether placeholders come before
// its word's first literal text, and whether it has no literal text
// before it at all. It allocates nothing: Problems runs it on every
// template the validator sees.
func judge(sl wordSlot, role Role, lead, preceding bool) verdict {
	switch sl.kind {
	case slotProgram:
		return verdictProgram
	case slotCode:
		return verdictCode
	case slotLost:
		return verdictLost
	}
	if lead {
		return verdictOK
	}
	switch role {
	case OptionValue:
		if sl.glue == glueCode {
			return verdictOptionCode
		}
	case GluedOption:
		switch {
		case sl.free, sl.glue == glueProven:
			return verdictOK
		case sl.glue == glueCode:
			return verdictGlueCode
		case preceding:
			return verdictOK // refused at fill time when they are all empty
		case sl.glue == glueName:
			return verdictGlueName
		}
		return verdictGlueUnproven
	}
	return verdictOK
}

// resolve fills ph's role, reading program and void note from the slot of
// its word (sl, one of out) and the text before it in its word (ps), or
// returns why the placeholder cannot be filled at all: its value would
// name a program, be code, or choose an option.
func resolve(ph *Placeholder, ps []piece, sl wordSlot, out []wordSlot) string {
	ph.Program, ph.Known = sl.who.String(), sl.who.known
	role, preceding, lead := prefixRole(ps)
	h := optionHead(ps)
	switch judge(sl, role, lead, len(preceding) > 0) {
	case verdictProgram:
		return sl.why + ", so the value would run as a program: whoever fills the skill chooses what runs; name the program in the template and pass {" + ph.Name + "} to it as an argument"
	case verdictCode:
		return sl.why + ", so the value would run as code: whoever fills the skill chooses what runs; pass the value as data (an argument or a file) to a program or script the template names"
	case verdictLost:
		return sl.why + ", so the value could name the program to run or be code that runs; make the command plain to read (put the wrapper's options before its -- and the program right after it)"
	case verdictOptionCode, verdictGlueCode:
		return fmt.Sprintf("it is glued to %s, whose argument %s runs as code or as a program, so whoever fills the skill chooses what runs; pass the value as data to an option that takes data", h, ph.Program)
	case verdictGlueName:
		return fmt.Sprintf("it is glued to %s, so the value would be part of the option's name and choose which option %s gets; write the option's full name followed by = (--name={%s})", h, ph.Program, ph.Name)
	case verdictGlueUnproven:
		return fmt.Sprintf("it is glued to %s, and nothing proves that %s's %s takes an argument: if it takes none, the value's characters are read as more options (with x the word is %sx); put the value in a word of its own (%s {%s}) or write --name={%s}",
			h, ph.Program, h, h, strings.TrimRight(h, "= "), ph.Name, ph.Name)
	}
	ph.Preceding = preceding
	ph.At = atRule(sl.who, sl.opt, litText(ps), lead)
	if !lead {
		switch {
		case role == OptionValue:
			ph.Role = OptionValue
		case role == GluedOption && !sl.free && sl.glue != glueProven:
			ph.Role = GluedOption
		case role == GluedOption && !sl.free:
			ph.Role, ph.Preceding = ProvenArgument, nil
		default:
			ph.Role, ph.Preceding = Embedded, nil
		}
		return ""
	}
	switch {
	case sl.free && sl.end:
		ph.Role = AfterEndOfOptions
	case sl.free:
		ph.Role, ph.Option = ProvenArgument, sl.opt
	case sl.opt != "":
		ph.Role, ph.Option = OptionArgument, sl.opt
	default:
		ph.Role = Positional
	}
	if !sl.free {
		ph.Void = voidNote(sl, out)
	}
	return ""
}

// litText is the literal text of a word's pieces.
func litText(ps []piece) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.lit)
	}
	return b.String()
}

// optionHead is the first literal text of a word, from its pieces.
func optionHead(ps []piece) string {
	for _, p := range ps {
		if p.name == "" {
			return p.lit
		}
	}
	return ""
}

// voidNote says why the "--" before a word with slot sl does not end the
// options of the program that reads it, or "".
func voidNote(sl wordSlot, out []wordSlot) string {
	if sl.dash < 0 {
		return ""
	}
	d := out[sl.dash]
	if d.who != sl.who {
		return fmt.Sprintf("the -- before it belongs to %s, not to %s, which reads the value", d.who, sl.who)
	}
	who := sl.who.String()
	switch d.note {
	case dashArgument:
		return fmt.Sprintf("the -- before it is the argument of %s (%s's %s takes one), so it ends no options", d.noteOpt, who, d.noteOpt)
	case dashMaybeArg:
		return fmt.Sprintf("the -- before it may be the argument of %s (agent3md does not know whether %s's %s takes one), so it may end no options", d.noteOpt, who, d.noteOpt)
	case dashUnknown:
		return fmt.Sprintf("agent3md does not know %s, so the -- before it proves nothing: %s may run another program (as env and sudo do) whose options the -- does not end, or give the -- to an option as its argument", who, who)
	case dashNoEnd:
		return fmt.Sprintf("%s does not take -- as the end of its options", who)
	case dashLost:
		return "agent3md cannot tell which program reads the -- before it"
	}
	return ""
}

// simpleWord describes one plain word of a template (no quotes or
// escapes) for the chain analysis.
func simpleWord(w string) argWord {
	if strings.IndexByte(w, '{') < 0 {
		return argWord{lit: true, text: w}
	}
	first := -1
	for i := 0; i < len(w); i++ {
		if w[i] == '{' && at(w, i) > 0 {
			first = i
			break
		}
	}
	if first < 0 {
		return argWord{lit: true, text: w}
	}
	aw := argWord{}
	i := 0
	for i < len(w) {
		n := 0
		if w[i] == '{' {
			n = at(w, i)
		}
		if n == 0 {
			break
		}
		if aw.ph == "" {
			aw.ph = w[i+1 : i+n-1]
		}
		aw.lead = true
		i += n
	}
	j := i
	for j < len(w) && !(w[j] == '{' && at(w, j) > 0) {
		j++
	}
	aw.text = w[i:j]
	aw.tail = true
	for k := j; k < len(w); {
		if n := at(w, k); w[k] == '{' && n > 0 {
			if aw.ph == "" {
				aw.ph = w[k+1 : k+n-1]
			}
			k += n
			continue
		}
		aw.tail = false
		break
	}
	return aw
}

// wordOfPieces describes a word from its pieces (all of them).
func wordOfPieces(ps []piece) argWord {
	aw := argWord{}
	k := 0
	for ; k < len(ps) && ps[k].name != ""; k++ {
		if aw.ph == "" {
			aw.ph = ps[k].name
		}
		aw.lead = true
	}
	if k < len(ps) {
		aw.text = ps[k].lit
		k++
	}
	aw.tail = true
	for ; k < len(ps); k++ {
		if ps[k].name == "" {
			aw.tail = false
		} else if aw.ph == "" {
			aw.ph = ps[k].name
		}
	}
	return aw
}

// isOptionText reports a literal word that may take the next word as its
// argument: it starts with "-", is not "-" or "--", and does not carry its
// argument itself after "=".
func isOptionText(v string, literal bool) bool {
	return literal && len(v) > 1 && v[0] == '-' && v != "--" && !strings.Contains(v, "=")
}
