package agentfile

import (
	"bytes"
	"fmt"
	"hash"
	"strings"
	"unicode/utf8"

	"github.com/agent3md/agent3md/internal/editdist"
)

// Notice kinds: what the scanner saw on a line that the format accepts but
// a person almost certainly did not mean. The validator turns each notice
// into a finding (see Validate); Parse itself still accepts the file, so
// the base format reads exactly as the conformance vectors require.
const (
	// NoticeNUL is a NUL byte in a line.
	NoticeNUL = "nul"
	// NoticeUTF8 is a line that is not valid UTF-8.
	NoticeUTF8 = "utf8"
	// NoticeCR is a carriage return not followed by a line feed. 3md ends
	// lines at LF (a CRLF pair counts as one), so such a CR is text.
	NoticeCR = "cr"
	// NoticeCRDirective is a lone carriage return directly followed by an
	// @plane directive: an editor shows two lines, the format reads one,
	// and the plane after the CR silently becomes body text.
	NoticeCRDirective = "cr-directive"
	// NoticeYAML is a frontmatter line written as YAML (a flow list or map,
	// a block scalar, an indented or "- item" line) that 3md reads as a
	// plain single-line value.
	NoticeYAML = "yaml"
	// NoticeDirectiveTypo is a body line that was almost an @plane
	// directive: "@plan z=1 …", "@Plane z=1 …" or " @plane z=1 …". The
	// format reads it as body text of the plane before it, so the skill
	// it was meant to open silently does not exist. Form is the word as
	// written.
	NoticeDirectiveTypo = "directive-typo"
	// NoticeWrappedDirective is a body line right after an @plane
	// directive (or after another such line) made only of key=value
	// tokens, one of them an attribute agent3md reads (triggers=,
	// inputs=, tool=, cost=, …): the directive was wrapped onto a second
	// line. A directive is one line, so the format reads it as body text
	// and the plane silently lacks those attributes. Key lists the keys,
	// as "inputs=, tool=".
	NoticeWrappedDirective = "wrapped-directive"
)

// Notice is one such observation. Key and Form are set for NoticeYAML: the
// frontmatter key and the YAML construct ("a YAML flow list [...]"); Fix is
// the line rewritten the 3md way, when there is an obvious rewrite.
type Notice struct {
	Kind string
	Line int
	Key  string
	Form string
	Fix  string
}

// maxNotices bounds the notices a catalog keeps: a file with a NUL on every
// line must not grow the catalog by a notice per line. NoticesDropped counts
// the rest.
const maxNotices = 100

// note records n once per line and kind.
func (p *parser) note(n Notice) {
	c := p.cat
	for i := len(c.Notices) - 1; i >= 0 && c.Notices[i].Line == n.Line; i-- {
		if c.Notices[i].Kind == n.Kind {
			return
		}
	}
	if len(c.Notices) >= maxNotices {
		c.NoticesDropped++
		return
	}
	c.Notices = append(c.Notices, n)
}

// tee receives every chunk the line reader reads from the input, before
// any line in it is returned: it feeds the content hash and remembers
// where the last chunk holding a NUL byte, a carriage return or invalid
// UTF-8 ends. Three vectorised sweeps of a 64 KB chunk cost far less than
// three calls per line, and a line that starts past that end cannot hold
// anything inspect would note, so on a clean file inspect is one
// comparison per line.
type tee struct {
	sum     hash.Hash
	read    int64 // bytes seen so far
	suspect int64 // end offset of the last chunk that needs a closer look
}

func (t *tee) Write(b []byte) (int, error) {
	t.sum.Write(b)
	t.read += int64(len(b))
	// A rune split between two chunks fails utf8.Valid, and a CRLF file
	// has a CR in every chunk: such chunks are looked at line by line for
	// nothing, which costs what checking every line would, no more.
	if bytes.IndexByte(b, '\r') >= 0 || bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) {
		t.suspect = t.read
	}
	return len(b), nil
}

// inspect notes NUL bytes, invalid UTF-8 and lone carriage returns in the
// line the scanner just read, so every line is checked without a second
// pass over the file. outside tells whether the line is outside a fenced
// block, where a hidden directive would have been one.
func (p *parser) inspect(l []byte, outside bool) {
	if p.lr.start >= p.tee.suspect {
		return
	}
	if bytes.IndexByte(l, '\r') >= 0 {
		kind := NoticeCR
		if outside && hidesDirective(l) {
			kind = NoticeCRDirective
		}
		p.note(Notice{Kind: kind, Line: p.lr.line})
	}
	if bytes.IndexByte(l, 0) >= 0 {
		p.note(Notice{Kind: NoticeNUL, Line: p.lr.line})
	}
	if !utf8.Valid(l) {
		p.note(Notice{Kind: NoticeUTF8, Line: p.lr.line})
	}
}

// nearDirective reports whether l, a line the scanner did not read as a
// directive, looks like one that was meant: its first word is one or two
// edits from @plane (case included), or it is @plane indented by one to
// three spaces (four make a Markdown code block, a likely example), and a
// z= token follows. It returns the first word as written.
func nearDirective(l []byte) (string, bool) {
	if len(l) == 0 || (l[0] != '@' && l[0] != ' ') {
		return "", false
	}
	indent := 0
	for indent < len(l) && indent <= 3 && l[indent] == ' ' {
		indent++
	}
	t := l[indent:]
	// Cheap refusals first: body lines indented by a space or two are
	// common, and this runs on every one of them.
	if indent > 3 || len(t) == 0 || t[0] != '@' || (indent > 0 && !isDirective(t)) {
		return "", false
	}
	end := bytes.IndexAny(t, " \t")
	if end < 0 || !hasZToken(t[end:]) {
		return "", false
	}
	word := t[:end]
	if indent > 0 {
		return string(l[:indent+end]), true
	}
	if len(word) < 2 || len(word) > 9 {
		return "", false
	}
	return string(word), editdist.Slips(string(bytes.ToLower(word)), "@plane") <= 2
}

// directiveKeys are the attributes an @plane directive is read for
// (docs/format.md §3 and §9): a wrapped line holding one of them lost it.
var directiveKeys = map[string]bool{"z": true, "x": true, "y": true, "label": true, "kind": true,
	"triggers": true, "inputs": true, "tool": true, "cost": true}

// wrappedKeys returns the keys of l when l reads as the rest of a wrapped
// directive: nothing but key=value tokens, in the directive's own token
// grammar (p.token), at least one key a directive attribute. Nil when it
// does not. It runs only on the line after a directive.
func (p *parser) wrappedKeys(l []byte) []string {
	s := bytes.TrimSpace(l)
	if bytes.IndexByte(s, '=') < 0 {
		return nil
	}
	var keys []string
	known := false
	for i := 0; ; {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i == len(s) {
			break
		}
		start, eq, end, err := p.token(s, i, 0)
		if err != nil || eq <= start || !attrKey(s[start:eq]) {
			return nil
		}
		key := strings.ToLower(string(s[start:eq]))
		known = known || directiveKeys[key]
		keys = append(keys, key+"=")
		i = end
	}
	if !known {
		return nil
	}
	return keys
}

// ContinuesDirective reports whether line, written right after an @plane
// directive, would read as the directive wrapped onto a second line
// (NoticeWrappedDirective). A writer that puts a body under a directive
// (import) leaves a blank line between them when it does: the body is
// trimmed of leading blank lines, so it reads the same, and does not look
// like the directive's continuation.
func ContinuesDirective(line string) bool {
	var p parser
	return p.wrappedKeys([]byte(line)) != nil
}

// attrKey reports a key as directives write them: a letter, then letters,
// digits, '-' or '_'.
func attrKey(k []byte) bool {
	for i, c := range k {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '-' || c == '_')) {
			return false
		}
	}
	return len(k) > 0
}

// hasZToken reports a z=<something> token among the space- or
// tab-separated tokens of rest.
func hasZToken(rest []byte) bool {
	for i := 0; i+2 < len(rest); i++ {
		if (rest[i] == ' ' || rest[i] == '\t') && (rest[i+1] == 'z' || rest[i+1] == 'Z') && rest[i+2] == '=' {
			return i+3 < len(rest) && rest[i+3] != ' ' && rest[i+3] != '\t'
		}
	}
	return false
}

// hidesDirective reports whether some lone CR in l is followed by what
// would be an @plane directive if the CR ended the line.
func hidesDirective(l []byte) bool {
	for {
		k := bytes.IndexByte(l, '\r')
		if k < 0 {
			return false
		}
		l = l[k+1:]
		seg := l
		if j := bytes.IndexByte(seg, '\r'); j >= 0 {
			seg = seg[:j]
		}
		if isDirective(seg) {
			return true
		}
	}
}

// crHint explains a line holding lone CRs: the usual cause is a file saved
// with old Mac (CR-only) or mixed line endings.
func crHint(l []byte) string {
	if bytes.IndexByte(l, '\r') < 0 {
		return ""
	}
	return "; the line holds carriage returns (CR) without a line feed, which 3md does not read as line ends: convert the file's line endings to LF"
}

// noteYAML notes a frontmatter line that reads as YAML: l is the raw line,
// key and raw the key and trimmed value it parsed into.
func (p *parser) noteYAML(l []byte, key string, raw []byte) {
	n := Notice{Kind: NoticeYAML, Line: p.lr.line, Key: key}
	parent := false // whether YAML would read the next indented line as part of this one
	switch {
	case len(l) > 0 && (l[0] == ' ' || l[0] == '\t') && p.fmParent:
		// Indentation alone is harmless (3md trims it); under a key
		// with no value, or a block scalar, YAML would nest it.
		n.Form = "an indented line (YAML nesting or a continuation of the line above)"
		parent = true
	case isListItem(bytes.TrimSpace(l)):
		n.Form = "a YAML list item ('- item')"
		parent = true
	case len(raw) >= 2 && raw[0] == '[' && raw[len(raw)-1] == ']':
		n.Form = "a YAML flow list ([a, b])"
		n.Fix = key + ": " + string(bytes.TrimSpace(raw[1:len(raw)-1]))
	case len(raw) >= 2 && raw[0] == '{' && raw[len(raw)-1] == '}':
		n.Form = "a YAML flow map ({k: v})"
	case isBlockScalar(raw):
		n.Form = fmt.Sprintf("a YAML block scalar (%s), a value continued on the lines below", raw)
		parent = true
	default:
		p.fmEmptyKey = ""
		if len(raw) == 0 {
			p.fmEmptyKey = key
		}
		p.fmParent = len(raw) == 0
		return
	}
	p.fmParent = parent
	if len(n.Fix) > 2*quoteMax {
		n.Fix = ""
	}
	p.note(n)
}

// yamlHint completes the message for a frontmatter line without a colon
// when the line reads as YAML (an indented line or a "- item"); "" when it
// does not.
func (p *parser) yamlHint(l, t []byte) string {
	var form string
	switch {
	case isListItem(t):
		form = "a YAML list item"
	case len(l) > 0 && (l[0] == ' ' || l[0] == '\t'):
		form = "an indented YAML line"
	default:
		return ""
	}
	example := "'tools: rg, go'"
	if p.fmEmptyKey != "" {
		example = fmt.Sprintf("'%s: a, b' on one line", bare(p.fmEmptyKey))
	}
	return fmt.Sprintf("; it looks like %s, but 3md frontmatter is one single-line 'key: value' per line and lists are comma lists: write %s", form, example)
}

// isListItem reports a trimmed line that is a YAML block-list item.
func isListItem(t []byte) bool {
	return len(t) > 0 && t[0] == '-' && (len(t) == 1 || t[1] == ' ' || t[1] == '\t')
}

// isBlockScalar reports a YAML block scalar header: | or >, then an
// optional chomping indicator and indentation digit in either order.
func isBlockScalar(v []byte) bool {
	if len(v) == 0 || len(v) > 3 || (v[0] != '|' && v[0] != '>') {
		return false
	}
	var chomp, digit bool
	for _, c := range v[1:] {
		switch {
		case (c == '-' || c == '+') && !chomp:
			chomp = true
		case c >= '1' && c <= '9' && !digit:
			digit = true
		default:
			return false
		}
	}
	return true
}
