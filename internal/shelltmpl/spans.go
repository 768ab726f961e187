package shelltmpl

import (
	"mvdan.cc/sh/v3/syntax"
)

// spans fills ph's Word, Whole and OptionWord from the syntax tree: word
// (at w.stack[wi]) holds the placeholder, and the node under it is the
// command, assignment or redirection it is part of. A filler drops what
// these spans cover, so it never reads the template's text itself.
func (w *walker) spans(ph *Placeholder, wi int, word *syntax.Word) {
	var elem syntax.Node = word
	switch n := w.stack[wi-1].(type) {
	case *syntax.Assign, *syntax.Redirect:
		elem = n
	}
	stmt := w.stmtBelow(wi)
	if stmt == nil {
		return
	}
	items := stmtItems(stmt)
	ph.Word = w.dropSpan(elem, items)
	if len(items) == 1 && items[0] == elem {
		// The statement is only this item: dropping it would leave an
		// empty statement (X={v}; cmd, a && X={v}), which no shell
		// parses. An assignment keeps its name and loses its value
		// (X=); anything else is dropped, and the fill refuses the
		// command if what is left does not parse.
		if _, ok := elem.(*syntax.Assign); ok {
			ph.Word = Span{w.offset(word.Pos()), w.offset(word.End())}
		}
	}
	ph.Whole = w.offset(word.Pos()) == ph.Start && w.offset(word.End()) == ph.End
	call, ok := w.stack[wi-1].(*syntax.CallExpr)
	if !ok || !ph.Whole {
		return
	}
	for k, a := range call.Args {
		if a != word || k < 2 {
			continue
		}
		prev := call.Args[k-1]
		if v, lit := literalValue(prev, w.sent); lit && len(v) > 1 && v[0] == '-' && v != "--" {
			ph.OptionWord = w.dropSpan(prev, items)
		}
	}
}

// stmtBelow returns the statement closest to the top of the stack below
// index wi, or nil.
func (w *walker) stmtBelow(wi int) *syntax.Stmt {
	for k := wi - 1; k >= 0; k-- {
		if st, ok := w.stack[k].(*syntax.Stmt); ok {
			return st
		}
	}
	return nil
}

// stmtItems are the parts of a statement a word can be dropped from
// between: its assignments, arguments and redirections, or the compound
// command its redirections follow.
func stmtItems(st *syntax.Stmt) []syntax.Node {
	var items []syntax.Node
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		for _, a := range c.Assigns {
			items = append(items, a)
		}
		for _, a := range c.Args {
			items = append(items, a)
		}
	case *syntax.DeclClause:
		items = append(items, c.Variant)
		for _, a := range c.Args {
			items = append(items, a)
		}
	case nil:
	default:
		items = append(items, c)
	}
	for _, r := range st.Redirs {
		items = append(items, r)
	}
	return items
}

// itemEnd is where an item ends on its line: a redirection's word, not
// the here-document body that follows on later lines.
func itemEnd(n syntax.Node) syntax.Pos {
	if r, ok := n.(*syntax.Redirect); ok && r.Word != nil {
		return r.Word.End()
	}
	return n.End()
}

// dropSpan is elem's span with the blanks between it and the item before
// it; for a first item, the blanks after it up to the next one.
func (w *walker) dropSpan(elem syntax.Node, items []syntax.Node) Span {
	start, end := elem.Pos().Offset(), itemEnd(elem).Offset()
	prev, next := uint(0), uint(0)
	hasPrev, hasNext := false, false
	for _, it := range items {
		if it == elem {
			continue
		}
		if e := itemEnd(it).Offset(); e <= start && (!hasPrev || e > prev) {
			prev, hasPrev = e, true
		}
		if s := it.Pos().Offset(); s >= end && (!hasNext || s < next) {
			next, hasNext = s, true
		}
	}
	switch {
	case hasPrev:
		start = prev
	case hasNext:
		end = next
	}
	return Span{w.offsetOf(start), w.offsetOf(end)}
}

// offsetOf is offset for a byte offset of the parsed text.
func (w *walker) offsetOf(off uint) int {
	back := 0
	for _, s := range w.offs {
		if s.at >= int(off) {
			break
		}
		back += s.grow
	}
	return int(off) - back
}
