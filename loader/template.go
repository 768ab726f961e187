package loader

import "strings"

// word is one shell word of a command template: the half-open byte range
// [start, end) it covers.
type word struct{ start, end int }

// words splits a template into shell words the way sh would for the
// purpose of finding their edges: unquoted blanks (space, tab, newline)
// separate words; single quotes, double quotes (with backslash escapes) and
// a backslash outside quotes keep what they enclose inside one word. An
// unterminated quote runs to the end. Operators such as ; or | are not
// split off; they stay part of the word they touch.
func words(t string) []word {
	var out []word
	start := -1
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c == ' ' || c == '\t' || c == '\n' {
			if start >= 0 {
				out = append(out, word{start, i})
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
		switch c {
		case '\\':
			i++
		case '\'':
			if j := strings.IndexByte(t[i+1:], '\''); j >= 0 {
				i += j + 1
			} else {
				i = len(t)
			}
		case '"':
			i = closeDouble(t, i+1)
		}
	}
	if start >= 0 {
		out = append(out, word{start, len(t)})
	}
	return out
}

// closeDouble returns the index of the " closing a double-quoted string that
// starts at i (after the opening quote), or len(t).
func closeDouble(t string, i int) int {
	for ; i < len(t); i++ {
		switch t[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(t)
}

// render fills tool: placeholders in good become quoted values, optional
// unvalued ones are dropped with their word (and an option word right
// before a word that is only that placeholder), anything else stays
// visible. It returns the command and the optional inputs it dropped.
func render(tool string, good map[string]string, optional map[string]bool) (string, map[string]bool) {
	ws := words(tool)
	drop := make([]bool, len(ws))
	dropped := map[string]bool{}
	for i, w := range ws {
		text := tool[w.start:w.end]
		ms := placeholders(text)
		if len(ms) == 0 {
			continue
		}
		all := true
		for _, m := range ms {
			if optional[m.name] {
				dropped[m.name] = true
			} else {
				all = false
			}
		}
		if !all {
			continue
		}
		drop[i] = true
		if len(ms) == 1 && ms[0].start == 0 && ms[0].end == len(text) && i > 0 && isOption(tool[ws[i-1].start:ws[i-1].end]) {
			drop[i-1] = true
		}
	}
	var b strings.Builder
	first := true
	for i, w := range ws {
		if drop[i] {
			continue
		}
		if first {
			b.WriteString(tool[:ws[0].start])
			first = false
		} else {
			b.WriteString(tool[ws[i-1].end:w.start])
		}
		b.WriteString(fillWord(tool[w.start:w.end], good, optional))
	}
	if len(ws) > 0 {
		b.WriteString(tool[ws[len(ws)-1].end:])
	} else {
		b.WriteString(tool)
	}
	return b.String(), dropped
}

// isOption reports an option word that may take the next word as its
// argument: it starts with "-", is not "--" or "-", and holds no
// placeholder.
func isOption(w string) bool {
	return len(w) > 1 && w[0] == '-' && w != "--" && len(placeholders(w)) == 0
}

// fillWord substitutes the placeholders of one kept word, quoting each
// value for the quoting context the placeholder sits in, so that the value
// always reaches the command as literal text:
//
//	{x}      -> 'v'             (unquoted)
//	'a {x}'  -> 'a ''v'''       (closes the template's quote, reopens it)
//	"a {x}"  -> "a "'v'""       (likewise for double quotes)
//
// A placeholder whose brace is escaped with a backslash (\{x}) is literal
// text to the shell and is left as written. Words start unquoted: words()
// only splits at unquoted blanks.
func fillWord(w string, good map[string]string, optional map[string]bool) string {
	var b strings.Builder
	quote := byte(0)
	for i := 0; i < len(w); {
		c := w[i]
		switch {
		case c == '\\' && quote != '\'':
			end := min(i+2, len(w)) // the backslash and what it escapes, verbatim
			b.WriteString(w[i:end])
			i = end
			continue
		case (c == '\'' || c == '"') && quote == 0:
			quote = c
		case c == quote:
			quote = 0
		case c == '{':
			if n := placeholderAt(w, i); n > 0 {
				b.WriteString(substitute(w[i+1:i+n-1], quote, good, optional))
				i += n
				continue
			}
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// substitute is what replaces placeholder name in quoting context quote.
func substitute(name string, quote byte, good map[string]string, optional map[string]bool) string {
	v, ok := good[name]
	switch {
	case !ok && optional[name]:
		return ""
	case !ok:
		return "{" + name + "}"
	case quote == 0:
		return Quote(v)
	default:
		return string(quote) + Quote(v) + string(quote)
	}
}

// match is one {name} placeholder at text[start:end).
type match struct {
	name       string
	start, end int
}

// placeholders returns the {name} placeholders of s, left to right
// (docs/format.md §9: a name is [A-Za-z_][A-Za-z0-9_]*, ASCII only).
func placeholders(s string) []match {
	var out []match
	for i := 0; i < len(s); i++ {
		if s[i] != '{' {
			continue
		}
		if n := placeholderAt(s, i); n > 0 {
			out = append(out, match{s[i+1 : i+n-1], i, i + n})
			i += n - 1
		}
	}
	return out
}

// placeholderAt returns the length of the {name} placeholder starting at
// w[i], or 0 when there is none.
func placeholderAt(w string, i int) int {
	j := i + 1
	if j >= len(w) || !(w[j] == '_' || isLetter(w[j])) {
		return 0
	}
	for j++; j < len(w) && (w[j] == '_' || isLetter(w[j]) || (w[j] >= '0' && w[j] <= '9')); j++ {
	}
	if j < len(w) && w[j] == '}' {
		return j + 1 - i
	}
	return 0
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
