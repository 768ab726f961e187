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
	ws := make([]argWord, len(words))
	for k, r := range words {
		ws[k] = simpleWord(tmpl[r[0]:r[1]])
	}
	slots := make([]wordSlot, len(ws))
	chain(ws, slots)
	t := &Template{}
	k := 0
	for _, m := range ms {
		for m.Start >= words[k][1] {
			k++
		}
		ph := Placeholder{Name: m.Name, Start: m.Start, End: m.End, Context: Unquoted}
		if k > 0 && ws[0].lit {
			ph.Command = ws[0].text
		}
		simpleSpans(&ph, tmpl, words, ws, k)
		if reason := resolve(&ph, piecesSimple(tmpl[words[k][0]:m.Start]), slots[k], slots); reason != "" {
			t.Problems = append(t.Problems, Problem{Name: m.Name, Start: m.Start, Reason: reason})
			continue
		}
		t.Placeholders = append(t.Placeholders, ph)
	}
	if t.Plain = len(t.Problems) == 0; t.Plain {
		t.Args = make([]Span, len(words))
		for k, r := range words {
			t.Args[k] = Span{r[0], r[1]}
		}
	}
	return t, true
}

// simpleSpans is spans for word k of a template of plain words: words
// are separated by blanks only, so a word's drop span runs from the end
// of the word before it (the command's name always comes first).
func simpleSpans(ph *Placeholder, tmpl string, words [][2]int, ws []argWord, k int) {
	drop := func(k int) Span {
		if k == 0 {
			end := words[0][1]
			if len(words) > 1 {
				end = words[1][0]
			}
			return Span{words[0][0], end}
		}
		return Span{words[k-1][1], words[k][1]}
	}
	ph.Word = drop(k)
	ph.Whole = words[k][0] == ph.Start && words[k][1] == ph.End
	if p := ws[k-min(k, 1)]; ph.Whole && k >= 2 && p.lit && len(p.text) > 1 && p.text[0] == '-' && p.text != "--" {
		ph.OptionWord = drop(k - 1)
	}
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
	if first < 0 || (inFirst && shellWords[tmpl[first:]]) || !simpleProblemFree(tmpl) {
		return Analyze(tmpl).Problems
	}
	return nil
}

// simpleProblemFree reports, without allocating, that a template of plain
// words and placeholders has no placeholder the chain analysis refuses
// (one that would name a program, be code, or choose an option). false
// also stands for "too many words to check here".
func simpleProblemFree(tmpl string) bool {
	var wbuf [16]argWord
	var rbuf [16][2]int
	var sbuf [16]wordSlot
	n, start := 0, -1
	for i := 0; i <= len(tmpl); i++ {
		blank := i == len(tmpl) || tmpl[i] == ' ' || tmpl[i] == '\t'
		switch {
		case blank && start >= 0:
			if n == len(wbuf) {
				return false
			}
			rbuf[n] = [2]int{start, i}
			wbuf[n] = simpleWord(tmpl[start:i])
			n++
			start = -1
		case !blank && start < 0:
			start = i
		}
	}
	ws, slots := wbuf[:n], sbuf[:n]
	chain(ws, slots)
	for k := range ws {
		if ws[k].lit {
			continue
		}
		w := tmpl[rbuf[k][0]:rbuf[k][1]]
		for i := 0; i < len(w); i++ {
			if w[i] != '{' {
				continue
			}
			if m := at(w, i); m > 0 {
				role, preceding, lead := prefixRoleText(w[:i])
				if judge(slots[k], role, lead, preceding) != verdictOK {
					return false
				}
				i += m - 1
			}
		}
	}
	return true
}

// prefixRoleText is prefixRole for the text of a plain word before a
// placeholder: the role, whether placeholders come before the first
// literal text, and whether there is no literal text at all.
func prefixRoleText(before string) (role Role, preceding, lead bool) {
	i := 0
	for i < len(before) && before[i] == '{' {
		n := at(before, i)
		if n == 0 {
			break
		}
		preceding = true
		i += n
	}
	if i == len(before) {
		return Positional, preceding, true
	}
	j := i
	for j < len(before) && !(before[j] == '{' && at(before, j) > 0) {
		j++
	}
	h := before[i:j]
	switch {
	case !strings.HasPrefix(h, "-"):
		return Embedded, false, false
	case strings.HasPrefix(h, "--") && strings.IndexByte(h, '=') > 2:
		return OptionValue, false, false
	}
	return GluedOption, preceding, false
}
