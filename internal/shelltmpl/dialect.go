package shelltmpl

import (
	"slices"
	"strconv"

	"mvdan.cc/sh/v3/syntax"
)

// Templates run under sh -c: dash on Debian and Ubuntu, bash (in POSIX
// mode) elsewhere, and a person may paste a filled command into bash. The
// parser reads bash's dialect, which holds every POSIX construct; a few
// constructs bash and dash read apart, so that the one tree would be
// wrong for one of them about where a value's quotes end or which program
// reads it. A template with a placeholder that holds one is refused (once
// per kind), whether or not the placeholder is near it: the construct
// moves what comes after it on the line.

// dialect reports node n when it is such a construct.
func (w *walker) dialect(n syntax.Node) {
	if len(w.ms) == 0 {
		return
	}
	switch n := n.(type) {
	case *syntax.SglQuoted:
		if n.Dollar {
			// bash reads $'\'' as one quote character; dash reads $ and
			// a '…' string that ends elsewhere, so the rest of the line is
			// quoted differently and no one quoting of a value is right
			// for both.
			w.split1("$'", n, "a $'…' string", "which bash and sh (dash) read differently: in sh its quote ends elsewhere, so a value's quotes could open or close the command's; write it as '…' or \"…\"")
		}
	case *syntax.Redirect:
		if n.Op == syntax.RdrAll || n.Op == syntax.AppAll {
			// dash reads &> as & (the command before it runs in the
			// background) and >: the words after it are another command
			// there, so another program reads them.
			w.split1("&>", n, n.Op.String(), "which bash reads as a redirection of output and errors and sh (dash) as & (run in the background) and a redirection, so the words after it belong to another command there; write >FILE 2>&1")
		}
	case *syntax.Word:
		if braceExpands(n) {
			// bash (also as sh) expands {a,b} and {1..3} into several
			// words, dash does not: env {A=1,sh} -c {x} runs the value
			// under bash.
			w.split1("{", n, "a brace expansion ("+w.tmpl[w.offset(n.Pos()):w.offset(n.End())]+")", "which bash expands into several words and sh (dash) does not, so a value's place in the command differs between them; write the words out")
		}
	}
}

// split1 files the template problem for construct kind at node n, once.
func (w *walker) split1(kind string, n syntax.Node, what, why string) {
	if w.split[kind] {
		return
	}
	if w.split == nil {
		w.split = map[string]bool{}
	}
	w.split[kind] = true
	at := w.offset(n.Pos())
	w.t.Problems = append(w.t.Problems, Problem{Start: at,
		Reason: "the command holds " + what + " at byte " + strconv.Itoa(at+1) + ", " + why})
}

// braceExpands reports a word bash would brace-expand, as
// syntax.SplitBraces finds it (on a copy: the tree stays as parsed).
func braceExpands(word *syntax.Word) bool {
	cp := *word
	cp.Parts = slices.Clone(word.Parts)
	return syntax.SplitBraces(&cp) && slices.ContainsFunc(cp.Parts, func(p syntax.WordPart) bool {
		_, ok := p.(*syntax.BraceExp)
		return ok
	})
}
