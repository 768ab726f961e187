package shelltmpl

import "strings"

// piece is one part of a word's text before a placeholder: literal text
// (as the command will see it, quotes removed and escapes undone), or
// another placeholder, named.
type piece struct {
	lit, name string
}

// prefixRole classifies a placeholder by the text before it in its word.
// lead is true when that text is only placeholders (or nothing): the
// value may start the argument, and the caller decides the role from the
// words around it. Otherwise the role is Embedded, OptionValue or
// GluedOption, decided by the first literal text: only "--name=" proves
// the value is an option's value (getopt_long refuses "=value" on an
// option that takes none); any other text starting with "-" glues the
// value to an option word, where a leading "-" in it reads as more
// options ("-l{p}" with "-x" is "-l-x"). preceding names the placeholders
// before the first literal text.
func prefixRole(ps []piece) (role Role, preceding []string, lead bool) {
	k := 0
	for ; k < len(ps) && (ps[k].name != "" || ps[k].lit == ""); k++ {
		if ps[k].name != "" { // '' and "" add no text
			preceding = append(preceding, ps[k].name)
		}
	}
	if k == len(ps) {
		return Positional, preceding, true
	}
	var head strings.Builder
	for ; k < len(ps) && ps[k].name == ""; k++ {
		head.WriteString(ps[k].lit)
	}
	h := head.String()
	switch {
	case !strings.HasPrefix(h, "-"):
		return Embedded, nil, false
	case strings.HasPrefix(h, "--") && strings.IndexByte(h, '=') > 2:
		return OptionValue, nil, false
	default:
		return GluedOption, preceding, false
	}
}
