package shelltmpl

import "strings"

// analyzeSimple analyses, without the parser, a template made only of
// plain words and placeholders separated by spaces or tabs — nearly every
// real template — and reports false for anything else, which the parser
// then handles. Its results equal the parser path's (a test checks), at a
// fraction of the cost: the validator analyses every skill's template.
func analyzeSimple(tmpl string, ms []Match) (*Template, bool) {
	last := 0
	for _, m := range ms {
		if !simpleText(tmpl[last:m.Start]) {
			return nil, false
		}
		last = m.End
	}
	if !simpleText(tmpl[last:]) {
		return nil, false
	}
	words := splitBlanks(tmpl)
	if len(words) == 0 {
		return nil, false
	}
	first := tmpl[words[0][0]:words[0][1]]
	if strings.Contains(first, "=") || shellWords[first] {
		return nil, false // an assignment or a keyword: the parser decides
	}
	t := &Template{Plain: true}
	literal := func(k int) (string, bool) {
		w := tmpl[words[k][0]:words[k][1]]
		return w, strings.IndexByte(w, '{') < 0 // braces only open placeholders here
	}
	k, endOfOptions := 0, false
	for _, m := range ms {
		for m.Start >= words[k][1] {
			k++
			if v, ok := literal(k - 1); ok && v == "--" && k-1 > 0 {
				endOfOptions = true
			}
		}
		ph := Placeholder{Name: m.Name, Start: m.Start, End: m.End, Context: Unquoted}
		if v, ok := literal(0); ok && k > 0 {
			ph.Command = v
		}
		ph.Role, ph.Preceding = wordRole(piecesSimple(tmpl[words[k][0]:m.Start]), k == 0, endOfOptions, k > 1 && isOptionText(literal(k-1)))
		if ph.Role == OptionArgument {
			ph.Option, _ = literal(k - 1)
		}
		t.Placeholders = append(t.Placeholders, ph)
	}
	return t, true
}

// shellWords are the first words the parser reads as syntax, not as a
// command name.
var shellWords = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "fi": true, "case": true, "esac": true,
	"for": true, "select": true, "while": true, "until": true, "do": true, "done": true,
	"function": true, "time": true, "coproc": true, "declare": true, "local": true, "export": true,
	"readonly": true, "typeset": true, "nameref": true, "let": true, "eval": true, "in": true,
}

func simpleText(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' && s[i] != '\t' && !plainChars(s[i:i+1]) {
			return false
		}
	}
	return true
}

func splitBlanks(s string) [][2]int {
	var out [][2]int
	start := -1
	for i := 0; i <= len(s); i++ {
		blank := i == len(s) || s[i] == ' ' || s[i] == '\t'
		switch {
		case blank && start >= 0:
			out = append(out, [2]int{start, i})
			start = -1
		case !blank && start < 0:
			start = i
		}
	}
	return out
}

// piecesSimple splits the text of a plain word before a placeholder into
// literal text and placeholders.
func piecesSimple(before string) []piece {
	var ps []piece
	last := 0
	for _, m := range Find(before) {
		if m.Start > last {
			ps = append(ps, piece{lit: before[last:m.Start]})
		}
		ps = append(ps, piece{name: m.Name})
		last = m.End
	}
	if last < len(before) {
		ps = append(ps, piece{lit: before[last:]})
	}
	return ps
}

func isOptionText(v string, literal bool) bool {
	return literal && len(v) > 1 && v[0] == '-' && v != "--" && !strings.Contains(v, "=")
}

// Problems returns what Analyze(tmpl).Problems would, without allocating
// for the common template of plain words and placeholders (which has
// none): the validator asks it of every skill.
func Problems(tmpl string) []Problem {
	first, inFirst := -1, true
	for i := 0; i < len(tmpl); i++ {
		c := tmpl[i]
		switch {
		case c == '{':
			n := at(tmpl, i)
			if n == 0 {
				return Analyze(tmpl).Problems
			}
			i += n - 1
		case c == ' ' || c == '\t':
			if first >= 0 && inFirst {
				if shellWords[tmpl[first:i]] {
					return Analyze(tmpl).Problems
				}
				inFirst = false
			}
			continue
		case c == '=' && inFirst:
			return Analyze(tmpl).Problems
		case !plainChars(tmpl[i : i+1]):
			return Analyze(tmpl).Problems
		}
		if first < 0 {
			first = i
		}
	}
	if first < 0 || (inFirst && shellWords[tmpl[first:]]) {
		return Analyze(tmpl).Problems
	}
	return nil
}
