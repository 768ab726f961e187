package loader

import (
	"sort"
	"strings"

	"github.com/agent3md/agent3md/internal/shelltmpl"
)

// The filler reads no shell itself: every place it writes to comes from
// the template's syntax tree (shelltmpl.Analyze, the parser the guard
// judges the template with), so what is filled is what was judged. A
// placeholder the analysis did not accept is never filled (fill refuses
// the whole template first).

// edit replaces tool[start:end] with text.
type edit struct {
	start, end int
	text       string
}

// render fills tool, whose analysis is t: placeholders with a value in
// good become quoted values (quoted for the quoting their node sits in),
// optional unvalued ones are dropped with their word — and with the
// option word right before a word that is only that placeholder — and
// anything else stays visible. It returns the command and the optional
// inputs it dropped. t must have no problems.
func render(tool string, t *shelltmpl.Template, good map[string]string, optional map[string]bool) (string, map[string]bool) {
	dropped := map[string]bool{}
	var edits []edit
	// The placeholders of one word share its Word span.
	byWord := map[shelltmpl.Span][]shelltmpl.Placeholder{}
	for _, p := range t.Placeholders {
		byWord[p.Word] = append(byWord[p.Word], p)
	}
	for span, ps := range byWord {
		all := true
		for _, p := range ps {
			if optional[p.Name] {
				dropped[p.Name] = true
			} else {
				all = false
			}
		}
		if !all {
			for _, p := range ps {
				edits = append(edits, edit{p.Start, p.End, substitute(p, good, optional)})
			}
			continue
		}
		edits = append(edits, edit{span.Start, span.End, ""})
		if len(ps) == 1 && ps[0].Whole && ps[0].OptionWord != (shelltmpl.Span{}) {
			edits = append(edits, edit{ps[0].OptionWord.Start, ps[0].OptionWord.End, ""})
		}
	}
	return apply(tool, edits), dropped
}

// apply makes the edits to s. Only drops overlap (a first item's span
// takes the blanks after it, the next item's the same blanks before it):
// overlapping text is removed once.
func apply(s string, edits []edit) string {
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var b strings.Builder
	last := 0
	for _, e := range edits {
		b.WriteString(s[last:max(e.start, last)])
		b.WriteString(e.text)
		last = max(e.end, last)
	}
	b.WriteString(s[last:])
	return b.String()
}

// substitute is what replaces placeholder p of a kept word: its value as
// one POSIX single-quoted string, closing and reopening the '…' or "…"
// string the tree says it sits in (which expands nothing, or the analysis
// would have refused it), so the value is literal text in every case:
//
//	{x}      -> 'v'
//	'a {x}'  -> 'a ''v'''
//	"a {x}"  -> "a "'v'""
//
// An optional input without a value becomes nothing; any other
// placeholder without a fit value stays visible as {name}.
func substitute(p shelltmpl.Placeholder, good map[string]string, optional map[string]bool) string {
	v, ok := good[p.Name]
	switch {
	case !ok && optional[p.Name]:
		return ""
	case !ok:
		return "{" + p.Name + "}"
	}
	switch p.Context {
	case shelltmpl.SingleQuoted:
		return "'" + Quote(v) + "'"
	case shelltmpl.DoubleQuoted:
		return `"` + Quote(v) + `"`
	}
	return Quote(v)
}

// argv is a Plain fill's arguments, read from the template's word spans
// (t.Args) with each value put in unquoted: no shell reads them.
func argv(tool string, t *shelltmpl.Template, good map[string]string) []string {
	out := make([]string, 0, len(t.Args))
	k := 0
	for _, a := range t.Args {
		var b strings.Builder
		last := a.Start
		for ; k < len(t.Placeholders) && t.Placeholders[k].Start < a.End; k++ {
			p := t.Placeholders[k]
			b.WriteString(tool[last:p.Start])
			b.WriteString(good[p.Name]) // optional unvalued: empty, as in Command
			last = p.End
		}
		b.WriteString(tool[last:a.End])
		out = append(out, b.String())
	}
	return out
}
