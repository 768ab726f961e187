package export

import "strings"

// descMarker follows the description paragraph import puts in front of a
// body that did not open with it: an HTML comment, which Markdown does not
// show and which ends the paragraph, so that export can take the paragraph
// out again (the SKILL.md frontmatter holds the description).
const descMarker = "<!-- agent3md import: description -->"

// InsertDescription puts para, with descMarker on the line after it, into
// body as its first paragraph: after the body's first line when that is an
// ATX heading (agentfile skips a leading heading when it looks for a
// description, and a description reads best under the title), else at the
// top. The body's own text is kept byte for byte, so that
// RemoveDescription gives it back.
func InsertDescription(body, para string) string {
	block := para + "\n" + descMarker
	first, rest, hasRest := strings.Cut(body, "\n")
	switch {
	case isATX(first) && hasRest:
		return first + "\n\n" + block + "\n" + rest
	case isATX(first):
		return first + "\n\n" + block
	case body == "":
		return block
	}
	return block + "\n" + body
}

// RemoveDescription undoes InsertDescription: a body whose first paragraph
// (after a leading heading and a blank line) is followed by descMarker
// loses both. Any other body is returned as it is.
func RemoveDescription(body string) string {
	if !strings.Contains(body, descMarker) {
		return body
	}
	head, rest := "", body
	if first, r, ok := strings.Cut(body, "\n"); ok && isATX(first) && strings.HasPrefix(r, "\n") {
		head, rest = first+"\n", r[1:]
	}
	para, after, ok := strings.Cut(rest, "\n")
	if !ok || para == "" || strings.Contains(para, descMarker) {
		return body
	}
	if after == descMarker {
		return strings.TrimSuffix(head, "\n")
	}
	tail, ok := strings.CutPrefix(after, descMarker+"\n")
	if !ok {
		return body
	}
	return head + tail
}

// isATX reports whether l is an ATX heading: one to six #, then a space,
// a tab or the line's end.
func isATX(l string) bool {
	n := len(l) - len(strings.TrimLeft(l, "#"))
	return n >= 1 && n <= 6 && (n == len(l) || l[n] == ' ' || l[n] == '\t')
}
