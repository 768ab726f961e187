package importer

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/agent3md/agent3md/agentfile"
)

// The text helpers of import: Markdown from someone's SKILL.md becomes a
// 3md plane body (docs/format.md §3, §5, §6), which gives a meaning to a few
// things Markdown does not have — a line starting with @plane, a [[z=…]]
// link, and a code fence left open, which would hide every plane after it.

// fenceOf is agentfile's fence rule (docs/format.md §3): after leading
// spaces or tabs, three or more backticks or tildes; 0 when l is no fence.
func fenceOf(l string) byte {
	l = strings.TrimLeft(l, " \t")
	if len(l) >= 3 && (l[0] == '`' || l[0] == '~') && l[1] == l[0] && l[2] == l[0] {
		return l[0]
	}
	return 0
}

// fences follows code fences line by line, as agentfile does: the fence
// character of the open fence, or 0 outside code.
type fences byte

// step reads line l and reports whether it is a fence line itself (one
// that opens or closes code, or an unmatched one inside code).
func (f *fences) step(l string) bool {
	c := fenceOf(l)
	if c == 0 {
		return false
	}
	if *f == 0 {
		*f = fences(c)
	} else if byte(*f) == c {
		*f = 0
	}
	return true
}

// isDirectiveLine is agentfile's directive rule: @plane at column 0,
// followed by a space, a tab or the end of the line.
func isDirectiveLine(l string) bool {
	return strings.HasPrefix(l, "@plane") && (len(l) == 6 || l[6] == ' ' || l[6] == '\t')
}

// normalizeNewlines makes every line end in "\n": agentfile reads "\r\n"
// as one, and a lone "\r" is no line break to it but may be one to
// whoever reads the skill; as "\n" it is a line break to both, and an
// "@plane" after it is escaped like any other.
func normalizeNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// neutralizeLinks keeps text that reads as a 3md link from being one:
// "[[z=" becomes "[\[z=", which Markdown shows the same. keep says which
// links (by target) may stay. It returns how many it changed.
func neutralizeLinks(body string, keep func(target string) bool) (string, int) {
	if !strings.Contains(body, "[[z=") {
		return body, 0
	}
	var b strings.Builder
	n := 0
	for {
		k := strings.Index(body, "[[z=")
		if k < 0 {
			b.WriteString(body)
			return b.String(), n
		}
		b.WriteString(body[:k])
		if m, target, _, _ := agentfile.MatchLink(body[k:]); m > 0 && (keep == nil || !keep(target)) {
			b.WriteString(`[\[z=`)
			n++
		} else {
			b.WriteString("[[z=")
		}
		body = body[k+4:]
	}
}

// sanitizeBody makes body safe to stand as a plane's body: every line
// agentfile would read as a directive is escaped ("\@plane", which
// Markdown shows as "@plane"), and a code fence still open at the end is
// closed, so the next directive is seen. It reports what it changed.
func sanitizeBody(body string) (out string, directives int, closed bool) {
	lines := strings.Split(body, "\n")
	var fence fences
	for i, l := range lines {
		fence.step(strings.TrimSuffix(l, "\r"))
		if fence == 0 && isDirectiveLine(l) {
			lines[i] = `\` + l
			directives++
		}
	}
	out = strings.Join(lines, "\n")
	if fence != 0 {
		out = strings.TrimRight(out, "\n") + "\n" + strings.Repeat(string(rune(fence)), 3) + "\n"
		closed = true
	}
	return out, directives, closed
}

// inlineLink is an inline Markdown link found on a line: [text](dest).
type inlineLink struct {
	start, end int // byte span of the whole link in the line
	text, dest string
}

// inlineLinks finds the links of one line that is not in a code block —
// inline [text](dest "title"), and reference links whose label defs
// defines — not images, not inside code spans, with
// backslash escapes honoured and nested brackets balanced. It is
// deliberately narrow — a link must fit on its line — since what it finds
// is rewritten: missing a link only leaves it as it was. It runs in time
// linear in the line (a hostile line of brackets or backticks costs no
// more than a plain one): code spans are matched once, brackets on a
// stack, and a destination is looked for over at most maxLinkDest bytes.
func inlineLinks(l string, defs map[string]string) []inlineLink {
	spans := codeSpans(l)
	var out []inlineLink
	type opener struct {
		at    int
		image bool
	}
	var stack []opener
	for i := 0; i < len(l); i++ {
		if end, ok := spans[i]; ok {
			i = end - 1
			continue
		}
		switch l[i] {
		case '\\':
			i++
		case '[':
			stack = append(stack, opener{at: i, image: i > 0 && l[i-1] == '!' && (i < 2 || l[i-2] != '\\')})
		case ']':
			if len(stack) == 0 {
				continue
			}
			op := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			var dest string
			var end int
			var ok bool
			if i+1 < len(l) && l[i+1] == '(' {
				dest, end, ok = linkDest(l, i+2)
			} else {
				dest, end, ok = refLink(l, op.at, i, defs)
			}
			if !ok {
				continue // not a link; an outer one may still be
			}
			if !op.image {
				out = append(out, inlineLink{start: op.at, end: end, text: l[op.at+1 : i], dest: dest})
				// A link holds no other link: the brackets opened
				// before it cannot make one around it.
				stack = stack[:0]
			}
			i = end - 1
		}
	}
	return out
}

// refLink reads a reference link whose text runs from l[open] to the ]
// at l[close]: full "[text][label]", collapsed "[label][]" or shortcut
// "[label]", with the label defined in defs (linkDefs).
func refLink(l string, open, close int, defs map[string]string) (dest string, end int, ok bool) {
	if len(defs) == 0 {
		return "", 0, false
	}
	label, end := l[open+1:close], close+1
	if close+1 < len(l) && l[close+1] == '[' {
		k := strings.IndexByte(l[close+2:min(len(l), close+2+maxLinkDest)], ']')
		if k < 0 {
			return "", 0, false
		}
		if k > 0 {
			label = l[close+2 : close+2+k]
		}
		end = close + 2 + k + 1
	} else if close+1 < len(l) && l[close+1] == ':' {
		return "", 0, false // a definition, not a use
	}
	dest, ok = defs[refLabel(label)]
	return dest, end, ok
}

// refDef is a link reference definition: up to three spaces, [label]:,
// then the destination (a title after it is ignored).
var refDef = regexp.MustCompile(`^ {0,3}\[((?:[^\]\\]|\\.){1,999})\]:[ \t]*(<[^>]*>|\S+)`)

// refLabel normalises a link label as Markdown matches labels: case and
// runs of white space do not count.
func refLabel(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// linkDefs collects the link reference definitions of lines outside code
// (the first definition of a label wins) and says which lines they are.
func linkDefs(lines []string) (defs map[string]string, defLines map[int]bool) {
	var fence fences
	for i, l := range lines {
		if fence.step(l) {
			continue
		}
		if fence != 0 || !strings.Contains(l, "]:") {
			continue
		}
		m := refDef.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if defs == nil {
			defs, defLines = map[string]string{}, map[int]bool{}
		}
		label := refLabel(m[1])
		if _, seen := defs[label]; !seen && label != "" {
			defs[label] = strings.TrimSuffix(strings.TrimPrefix(m[2], "<"), ">")
		}
		defLines[i] = true
	}
	return defs, defLines
}

// codeSpans maps the start of each code span of l to its end: a run of n
// backticks up to the next run of exactly n. Runs are indexed by length
// once, so matching them all is linear.
func codeSpans(l string) map[int]int {
	if strings.IndexByte(l, '`') < 0 {
		return nil
	}
	type bt struct{ at, n int }
	var runs []bt
	for i := 0; i < len(l); i++ {
		if l[i] == '\\' {
			i++
			continue
		}
		if l[i] == '`' {
			n := runLen(l, i, '`')
			runs = append(runs, bt{i, n})
			i += n - 1
		}
	}
	byLen := map[int][]int{} // run length → indexes into runs, in order
	for k, r := range runs {
		byLen[r.n] = append(byLen[r.n], k)
	}
	next := map[int]int{} // run length → position in byLen[n] to look from
	spans := map[int]int{}
	for k := 0; k < len(runs); k++ {
		r := runs[k]
		list := byLen[r.n]
		p := next[r.n]
		for p < len(list) && list[p] <= k {
			p++
		}
		next[r.n] = p
		if p == len(list) {
			continue // no closing run: literal backticks
		}
		closer := runs[list[p]]
		spans[r.at] = closer.at + closer.n
		k = list[p] // runs inside the span are its text
	}
	return spans
}

// maxLinkDest bounds the bytes a link destination and title are looked
// for over: a relative path to a skill is short, and the bound keeps a
// line of "[x](" repeated from costing quadratic time.
const maxLinkDest = 1024

// runLen counts the bytes c from l[i].
func runLen(l string, i int, c byte) int {
	n := 0
	for i+n < len(l) && l[i+n] == c {
		n++
	}
	return n
}

// linkDest reads a link destination and optional title from l[i] (just
// after the "(") to the closing ")"; end is just after it.
func linkDest(l string, i int) (dest string, end int, ok bool) {
	l = l[:min(len(l), i+maxLinkDest)]
	for i < len(l) && l[i] == ' ' {
		i++
	}
	if i < len(l) && l[i] == '<' {
		k := strings.IndexByte(l[i:], '>')
		if k < 0 {
			return "", 0, false
		}
		dest, i = l[i+1:i+k], i+k+1
	} else {
		start, depth := i, 0
		for ; i < len(l); i++ {
			c := l[i]
			if c == '\\' {
				i++
				continue
			}
			if c == ' ' || c == '\t' || (c == ')' && depth == 0) {
				break
			}
			if c == '(' {
				depth++
			} else if c == ')' {
				depth--
			}
		}
		if i > len(l) {
			i = len(l)
		}
		dest = l[start:i]
	}
	for i < len(l) && l[i] == ' ' {
		i++
	}
	if i < len(l) && (l[i] == '"' || l[i] == '\'') {
		q := l[i]
		k := strings.IndexByte(l[i+1:], q)
		if k < 0 {
			return "", 0, false
		}
		i += k + 2
		for i < len(l) && l[i] == ' ' {
			i++
		}
	}
	if i >= len(l) || l[i] != ')' {
		return "", 0, false
	}
	return dest, i + 1, true
}

// linkText3md turns a Markdown link text into a 3md link text: the
// escapes export writes (\\, \[, \]) undone. It fails when the result is
// not a valid 3md link text (a ']', over 400 characters).
func linkText3md(text string) (string, bool) {
	t := strings.NewReplacer(`\\`, `\`, `\[`, `[`, `\]`, `]`).Replace(text)
	if strings.ContainsAny(t, "]\n") || utf8.RuneCountInString(t) > 400 || strings.Contains(t, "[[z=") {
		return "", false
	}
	return t, true
}

// rewriteLinks replaces, outside code blocks, each inline link that
// resolve maps to a plane (given the link's destination and its text as
// written) with a 3md link [[z=N|text]] ([[z=N]] when the text is empty). A link whose text cannot be a 3md link text stays, and
// is counted in kept. In code, only the links inCode accepts (by their
// destination) are replaced: export rewrites a body's links wherever they
// are, as agentfile reads them, so in a folder it wrote its references are
// links in code too. inCode may be nil.
func rewriteLinks(body string, resolve func(dest, text string) (z string, ok bool), inCode func(dest string) bool) (out string, rewritten, kept int) {
	if !strings.Contains(body, "](") && !strings.Contains(body, "]:") {
		return body, 0, 0
	}
	lines := strings.Split(body, "\n")
	defs, defLines := linkDefs(lines)
	var fence fences
	for i, l := range lines {
		code := fence.step(l) || fence != 0 || strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t")
		if (code && inCode == nil) || defLines[i] {
			continue // code, whose links are text, or a definition
		}
		links := inlineLinks(l, defs)
		if len(links) == 0 {
			continue
		}
		var b strings.Builder
		last := 0
		for _, lk := range links {
			if code && !inCode(lk.dest) {
				continue
			}
			z, ok := resolve(lk.dest, lk.text)
			if !ok {
				continue
			}
			text, ok := linkText3md(lk.text)
			if !ok {
				kept++
				continue
			}
			b.WriteString(l[last:lk.start])
			if text == "" {
				b.WriteString("[[z=" + z + "]]")
			} else {
				b.WriteString("[[z=" + z + "|" + text + "]]")
			}
			last = lk.end
			rewritten++
		}
		if last > 0 {
			b.WriteString(l[last:])
			lines[i] = b.String()
		}
	}
	return strings.Join(lines, "\n"), rewritten, kept
}

// descriptionParagraph renders a description as a Markdown paragraph whose
// plain text (what agentfile takes as a plane's description) is exactly
// the description: characters Markdown or 3md give a meaning to are
// backslash-escaped, and so is anything at the start that would open
// another kind of block.
func descriptionParagraph(desc string) string {
	var b strings.Builder
	for i, r := range desc {
		switch {
		case strings.ContainsRune("\\`*_[]<", r):
			b.WriteByte('\\')
		case i == 0 && strings.ContainsRune("#>-+=@~", r):
			b.WriteByte('\\')
		case r == '&' && entityAt(desc[i:]):
			// Not "\&": the describer resolves entities after undoing
			// escapes, so only "&amp;" keeps an "&" before "amp;".
			b.WriteString("&amp;")
			continue
		}
		b.WriteRune(r)
	}
	s := b.String()
	// "1. x" or "1) x" would open an ordered list.
	if k := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }); k > 0 && k <= 9 && (s[k] == '.' || s[k] == ')') {
		s = s[:k] + `\` + s[k:]
	}
	return s
}

// entityAt reports whether s starts with what reads as an HTML entity or
// character reference: "&name;", "&#123;" or "&#x1F;".
func entityAt(s string) bool {
	k := strings.IndexByte(s, ';')
	if k < 2 || k > 40 {
		return false
	}
	for _, c := range s[1:k] {
		if !(c == '#' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// attrValue quotes a plane attribute value as docs/format.md §3 reads it
// back: in double quotes, with backslash before every backslash and
// double quote. It fails for what no directive line can hold (a line
// break, a NUL).
func attrValue(v string) (string, bool) {
	if strings.ContainsAny(v, "\n\r\x00") {
		return "", false
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`, true
}

// frontValue quotes a frontmatter value as docs/format.md §2 reads it back
// (the same rule); line breaks become spaces, since a value is one line.
func frontValue(v string) string {
	v = strings.Join(strings.Fields(strings.ToValidUTF8(v, "\uFFFD")), " ")
	q, _ := attrValue(strings.ReplaceAll(v, "\x00", ""))
	return q
}
