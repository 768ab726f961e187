package shelltmpl

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// walker visits the syntax tree keeping the path from the root, and files
// each sentinel it meets as a placeholder or a problem.
type walker struct {
	t      *Template
	ms     []Match
	sent   []string
	found  []bool
	stack  []syntax.Node
	chains map[*syntax.CallExpr][]wordSlot // each simple command's chain analysis
	offs   []sentinelShift
	split  map[string]bool // the constructs bash and sh read apart already reported (dialect.go)
	tmpl   string
}

// offset maps a position in the parsed text (placeholders replaced by
// sentinels) back to the template's byte offset. No word starts or ends
// inside a sentinel, which is one run of letters and digits.
func (w *walker) offset(p syntax.Pos) int { return w.offsetOf(p.Offset()) }

func (w *walker) walk(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		if n == nil {
			w.stack = w.stack[:len(w.stack)-1]
			return true
		}
		w.stack = append(w.stack, n)
		w.dialect(n)
		switch n := n.(type) {
		case *syntax.Lit:
			w.text(n.Value, true)
		case *syntax.SglQuoted:
			w.text(n.Value, false)
		}
		return true
	})
}

func (w *walker) problem(i int, reason string) {
	w.found[i] = true
	w.t.Problems = append(w.t.Problems, Problem{Name: w.ms[i].Name, Start: w.ms[i].Start, Reason: reason})
}

// text handles the sentinels in one literal (a Lit, or a '…' string's
// text when escapes is false). In a Lit, a sentinel after an odd run of
// backslashes was written \{name}: literal text, not a placeholder.
func (w *walker) text(s string, escapes bool) {
	for _, o := range sentinelsIn(s, w.sent) {
		if escapes && oddBackslashes(s[:o.at]) {
			w.found[o.index] = true
			continue
		}
		w.place(o.index)
	}
}

type sentinelAt struct{ index, at int }

// sentinelsIn returns where the sentinels occur in s, left to right.
func sentinelsIn(s string, sent []string) []sentinelAt {
	if len(sent) == 0 {
		return nil
	}
	prefix := sent[0][:strings.IndexByte(sent[0], 'x')+1]
	var out []sentinelAt
	for off := 0; ; {
		k := strings.Index(s[off:], prefix)
		if k < 0 {
			return out
		}
		at := off + k
		rest := s[at+len(prefix):]
		end := strings.IndexByte(rest, 'x')
		n, err := strconv.Atoi(rest[:max(end, 0)])
		if end <= 0 || err != nil || n < 0 || n >= len(sent) {
			off = at + len(prefix)
			continue
		}
		out = append(out, sentinelAt{n, at})
		off = at + len(sent[n])
	}
}

func oddBackslashes(s string) bool {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// place decides about the sentinel i found in the node on top of the stack.
func (w *walker) place(i int) {
	top := len(w.stack) - 1
	ctx := Unquoted
	wi := top - 1 // index of the word holding the literal
	switch w.stack[top-1].(type) {
	case *syntax.Word:
		if _, sq := w.stack[top].(*syntax.SglQuoted); sq {
			ctx = SingleQuoted
		}
	case *syntax.DblQuoted:
		ctx, wi = DoubleQuoted, top-2
	}
	word, ok := w.stack[wi].(*syntax.Word)
	if !ok || wi < 1 {
		w.problem(i, "the shell reads it "+describe(w.stack[top-1])+", not as text of a command word")
		return
	}
	if reason := w.plainWord(word); reason != "" {
		w.problem(i, reason)
		return
	}
	if n := enclosing(w.stack[:wi]); n != nil {
		w.problem(i, "it sits "+describe(n)+", where the shell reads quotes again, so a quoted value could run as code; keep placeholders in plain command words or plain \"…\" strings")
		return
	}
	ph := Placeholder{Name: w.ms[i].Name, Start: w.ms[i].Start, End: w.ms[i].End, Context: ctx}
	switch slot := w.stack[wi-1].(type) {
	case *syntax.CallExpr:
		if reason := w.role(&ph, slot, word, i); reason != "" {
			w.problem(i, reason)
			return
		}
	case *syntax.Assign:
		if slot.Value != word {
			w.problem(i, "it sits in an array or index of an assignment; use it as the plain value (NAME={p})")
			return
		}
		if slot.Naked {
			// declare {v}: the value names the variable, and bash evaluates
			// an array subscript in it (a[$(cmd)]) as code.
			w.problem(i, "it is the variable name of declare, export, local, readonly or typeset, where bash runs $(…) in an array subscript; use it as a value (NAME={p})")
			return
		}
		ph.Role = NotArgument
	case *syntax.Redirect:
		if slot.Hdoc == word {
			w.problem(i, "it sits in a here-document, whose text the shell expands ($(…), `…`, $X) and where quotes are not special; pass the value as an argument instead")
			return
		}
		if slot.Op == syntax.Hdoc || slot.Op == syntax.DashHdoc {
			w.problem(i, "it is a here-document's delimiter, which the shell compares with the body's lines as written, quotes and all; pass the value as an argument instead")
			return
		}
		ph.Role = NotArgument
	default:
		w.problem(i, "it sits "+describe(slot)+"; only command arguments, assignment values and redirection targets can hold a placeholder")
		return
	}
	w.spans(&ph, wi, word)
	w.found[i] = true
	w.t.Placeholders = append(w.t.Placeholders, ph)
}

// plainWord returns why a word holding a placeholder is not plain, or "".
// A plain word is literal text, '…' strings and "…" strings that expand
// nothing: then the one quoted value stays one literal piece of it.
func (w *walker) plainWord(word *syntax.Word) string {
	for _, part := range word.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
		case *syntax.SglQuoted:
			if p.Dollar {
				return "it sits in a $'…' string, where the shell interprets backslash escapes; use '…' or \"…\""
			}
		case *syntax.DblQuoted:
			if p.Dollar {
				return "it sits in a $\"…\" string; use \"…\""
			}
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return "it sits in a \"…\" string that also holds " + describe(q) + ", so the shell would read the value's quotes as text and expand it; move the expansion out of the string or the placeholder into its own word"
				}
			}
		default:
			return "its word also holds " + describe(part) + ", so the value would not stay one literal argument; put the placeholder in a word of its own"
		}
	}
	return ""
}

// structural reports nodes that only group commands: a word under them is
// read at the top level of quoting.
func structural(n syntax.Node) bool {
	switch n.(type) {
	case *syntax.File, *syntax.Stmt, *syntax.CallExpr, *syntax.BinaryCmd,
		*syntax.Block, *syntax.Subshell, *syntax.IfClause, *syntax.WhileClause,
		*syntax.ForClause, *syntax.CaseClause, *syntax.CaseItem, *syntax.FuncDecl,
		*syntax.DeclClause, *syntax.TimeClause, *syntax.Assign, *syntax.Redirect:
		return true
	}
	return false
}

// enclosing returns the innermost node of path that is not structural and
// not a word or string (those hold it), or nil when the path is all
// structure.
func enclosing(path []syntax.Node) syntax.Node {
	var outer syntax.Node
	for k := len(path) - 1; k >= 0; k-- {
		switch path[k].(type) {
		case *syntax.Word, *syntax.DblQuoted:
			if outer == nil {
				outer = path[k]
			}
			continue
		}
		if !structural(path[k]) {
			return path[k]
		}
	}
	return outer
}

// describe names a node for a message, as "in a $(…) command substitution".
func describe(n syntax.Node) string {
	switch n := n.(type) {
	case *syntax.CmdSubst:
		if n.Backquotes {
			return "inside a `…` command substitution"
		}
		return "inside a $(…) command substitution"
	case *syntax.ParamExp:
		return "inside a ${…} parameter expansion"
	case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause, *syntax.BinaryArithm, *syntax.UnaryArithm, *syntax.ParenArithm:
		return "inside an arithmetic expression"
	case *syntax.ProcSubst:
		return "inside a process substitution"
	case *syntax.TestClause, *syntax.BinaryTest, *syntax.UnaryTest, *syntax.ParenTest:
		return "inside a [[ … ]] test"
	case *syntax.ExtGlob:
		return "inside an extended glob"
	case *syntax.ArrayExpr, *syntax.ArrayElem:
		return "inside an array"
	case *syntax.WordIter, *syntax.CStyleLoop:
		return "in a for loop's header"
	case *syntax.CaseClause, *syntax.CaseItem:
		return "in a case pattern or subject"
	case *syntax.Assign:
		return "in an assignment's name"
	case *syntax.Redirect:
		return "in a redirection's file descriptor"
	case *syntax.DblQuoted:
		return "inside a \"…\" string"
	case *syntax.Comment:
		return "in a comment"
	default:
		return "in an unsupported construct"
	}
}

// role fills ph's role in the simple command call, whose argument word
// holds the sentinel i, or returns why the placeholder cannot be filled.
func (w *walker) role(ph *Placeholder, call *syntax.CallExpr, word *syntax.Word, i int) string {
	idx := 0
	for k, a := range call.Args {
		if a == word {
			idx = k
		}
	}
	if idx > 0 {
		ph.Command, _ = literalValue(call.Args[0], w.sent)
	}
	slots := w.chainOf(call)
	return resolve(ph, w.pieces(word, i), slots[idx], slots)
}

// chainOf returns the chain analysis of a simple command's words.
func (w *walker) chainOf(call *syntax.CallExpr) []wordSlot {
	if s, ok := w.chains[call]; ok {
		return s
	}
	ws := make([]argWord, len(call.Args))
	for k, a := range call.Args {
		switch v, ok := literalValue(a, w.sent); {
		case ok:
			ws[k] = argWord{lit: true, text: v}
		case len(sentinelsIn(wordSource(a), w.sent)) == 0:
			// It expands something and holds no placeholder: text the
			// template's environment decides, never a value.
			ws[k] = argWord{lit: true, text: "$…"}
		case w.plainWord(a) != "":
			// A placeholder there is a problem of its own; to the other
			// words it is a value of any text.
			ws[k] = argWord{lead: true, ph: "…"}
		default:
			ws[k] = wordOfPieces(w.pieces(a, -1))
		}
	}
	slots := make([]wordSlot, len(ws))
	chain(ws, slots)
	if w.chains == nil {
		w.chains = map[*syntax.CallExpr][]wordSlot{}
	}
	w.chains[call] = slots
	return slots
}

// wordSource is the literal text of a word's parts, quoted or not, where
// sentinels may sit.
func wordSource(word *syntax.Word) string {
	var b strings.Builder
	for _, part := range word.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(l.Value)
				}
			}
		}
	}
	return b.String()
}

// pieces returns the text of word before sentinel i as the command will
// see it: literal text with quotes removed and escapes undone, and the
// placeholders in it. An escaped sentinel (\{name}) is literal text.
func (w *walker) pieces(word *syntax.Word, i int) []piece {
	var ps []piece
	var lit strings.Builder
	// add appends s (up to sentinel i) and reports whether it met i.
	add := func(s string, escapes bool, escapable func(byte) bool) bool {
		last := 0
		for _, o := range sentinelsIn(s, w.sent) {
			raw := s[last:o.at]
			if escapes && oddBackslashes(s[:o.at]) {
				lit.WriteString(unescape(raw+"{"+w.ms[o.index].Name+"}", escapable))
				last = o.at + len(w.sent[o.index])
				continue
			}
			lit.WriteString(unescape(raw, escapable))
			if lit.Len() > 0 {
				ps = append(ps, piece{lit: lit.String()})
				lit.Reset()
			}
			if o.index == i {
				return true
			}
			ps = append(ps, piece{name: w.ms[o.index].Name})
			last = o.at + len(w.sent[o.index])
		}
		lit.WriteString(unescape(s[last:], escapable))
		return false
	}
	all := func(byte) bool { return true }
	inDouble := func(c byte) bool { return strings.IndexByte("$`\"\\", c) >= 0 }
	none := func(byte) bool { return false }
	for _, part := range word.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if add(p.Value, true, all) {
				return ps
			}
		case *syntax.SglQuoted:
			if add(p.Value, false, none) {
				return ps
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if add(q.(*syntax.Lit).Value, true, inDouble) { // plainWord checked
					return ps
				}
			}
		}
	}
	if i < 0 && lit.Len() > 0 {
		ps = append(ps, piece{lit: lit.String()})
	}
	return ps
}

// literalValue returns the text a word stands for when it is literal: no
// placeholder, no expansion. Quotes are removed and escapes undone.
func literalValue(word *syntax.Word, sent []string) (string, bool) {
	var b strings.Builder
	for _, part := range word.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, func(byte) bool { return true }))
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescape(l.Value, func(c byte) bool { return strings.IndexByte("$`\"\\", c) >= 0 }))
			}
		default:
			return "", false
		}
	}
	v := b.String()
	if len(sentinelsIn(v, sent)) > 0 {
		return "", false
	}
	return v, true
}

// unescape removes each backslash that escapes a character for which
// escapable is true.
func unescape(s string, escapable func(byte) bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && escapable(s[i+1]) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// plain reports a template that is one simple command of plain words.
func plain(f *syntax.File, sent []string) bool {
	if len(f.Stmts) != 1 {
		return false
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(st.Redirs) > 0 || st.Negated || st.Background || st.Coprocess || st.Disown || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return false
	}
	for _, a := range call.Args {
		if len(a.Parts) != 1 {
			return false
		}
		l, ok := a.Parts[0].(*syntax.Lit)
		if !ok || !plainChars(l.Value) {
			return false
		}
	}
	return true
}

func plainChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isLetter(c) || isDigit(c) || strings.IndexByte("-_./:,=@%+^", c) >= 0) {
			return false
		}
	}
	return true
}
