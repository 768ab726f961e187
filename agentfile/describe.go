package agentfile

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agent3md/agent3md/internal/textclip"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// MaxDescriptionRunes caps a plane's description, in characters: a longer
// first paragraph is cut to this many, the last "…", at a word boundary
// when one is near the end (textclip.Runes).
const MaxDescriptionRunes = 500

// describer collects the bounded body prefix a description is taken from:
// the leading headings and the lines up to the end of the first block that
// is not a heading. Collection stops at the first blank line after such a
// block, or at the byte budget, so long bodies cost nothing past their start.
type describer struct {
	buf     []byte
	budget  int
	done    bool
	content bool // a non-heading, non-blank line was collected
	fence   bool // inside a fenced block while collecting
}

func (d *describer) reset(budget int) {
	d.buf = d.buf[:0]
	d.budget = budget
	d.done = false
	d.content = false
	d.fence = false
}

// line offers one normalised body line (leading blank lines already skipped).
func (d *describer) line(l []byte) {
	if d.done {
		return
	}
	blank := isBlank(l)
	if blank && d.content && !d.fence {
		d.done = true
		return
	}
	if len(d.buf)+len(l)+1 > d.budget {
		d.done = true
		return
	}
	if isFence(l) != 0 {
		d.fence = !d.fence
	}
	if !blank && !isATXHeading(l) {
		d.content = true
	}
	d.buf = append(d.buf, l...)
	d.buf = append(d.buf, '\n')
}

// description returns the plain text of the first paragraph after any
// leading headings in the collected prefix.
func (d *describer) description() string {
	if len(d.buf) == 0 {
		return ""
	}
	if s, ok := plainFast(d.buf); ok {
		return textclip.Runes(s, MaxDescriptionRunes)
	}
	return textclip.Runes(plainGoldmark(d.buf), MaxDescriptionRunes)
}

var markdown = goldmark.New()

// plainGoldmark parses src with goldmark and returns the text of the first
// top-level paragraph, skipping headings.
func plainGoldmark(src []byte) string {
	doc := markdown.Parser().Parse(text.NewReader(src))
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		switch n.Kind() {
		case ast.KindHeading:
			continue
		case ast.KindParagraph:
			var b strings.Builder
			collectText(&b, n, src)
			return collapse(b.String())
		}
		// A list, quote or code block before any paragraph: the prefix has
		// no leading paragraph to describe the plane with.
		return ""
	}
	return ""
}

func collectText(b *strings.Builder, n ast.Node, src []byte) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch t := c.(type) {
		case *ast.Text:
			v := t.Value(src)
			if !t.IsRaw() {
				v = util.UnescapePunctuations(v)
				v = util.ResolveNumericReferences(v)
				v = util.ResolveEntityNames(v)
			}
			b.Write(v)
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		case *ast.AutoLink:
			b.Write(t.Label(src))
		case *ast.RawHTML:
			// Markup is not description text.
		default:
			collectText(b, c, src)
		}
	}
}

// plainFast handles the common case without a Markdown parse: ATX headings
// followed by one paragraph of lines that start with a letter and contain
// no character Markdown could give meaning to. Its result equals goldmark's
// for such input.
func plainFast(src []byte) (string, bool) {
	var b []byte
	inPara := false
	for len(src) > 0 {
		l := src
		if k := bytes.IndexByte(src, '\n'); k >= 0 {
			l, src = src[:k], src[k+1:]
		} else {
			src = nil
		}
		if !inPara && isATXHeading(l) {
			continue
		}
		if isBlank(l) {
			if inPara {
				break
			}
			continue
		}
		r, _ := utf8.DecodeRune(l)
		if !unicode.IsLetter(r) || bytes.ContainsAny(l, "\\`*_[]<>&!|~#=") || oddSpace(l) {
			return "", false
		}
		inPara = true
		b = appendCollapsed(b, l)
	}
	return string(b), true
}

// oddSpace reports a control character or a space other than ' ' and '\t'
// (a lone '\r', U+00A0, …): Markdown and the word collapsing of the slow
// path treat those as line or word breaks, the fast path would not.
func oddSpace(l []byte) bool {
	for len(l) > 0 {
		c := l[0]
		if c >= 0x20 && c < 0x7f || c == '\t' {
			l = l[1:] // printable ASCII: the common case
			continue
		}
		r, n := utf8.DecodeRune(l)
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return true
		}
		l = l[n:]
	}
	return false
}

// appendCollapsed appends the words of l to b, one space between words.
func appendCollapsed(b, l []byte) []byte {
	space := len(b) > 0
	for _, c := range l {
		if c == ' ' || c == '\t' {
			space = len(b) > 0
			continue
		}
		if space {
			b = append(b, ' ')
			space = false
		}
		b = append(b, c)
	}
	return b
}

// isATXHeading reports a line of 1-6 '#' followed by a space, tab or end.
func isATXHeading(l []byte) bool {
	n := 0
	for n < len(l) && l[n] == '#' {
		n++
	}
	return n >= 1 && n <= 6 && (n == len(l) || l[n] == ' ' || l[n] == '\t')
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }
