package agentfile

import (
	"strings"
	"unicode/utf8"
)

// Link bounds of the base format (docs/format.md §6).
const (
	maxLinkTarget = 40  // characters of [-+0-9eE.] in a target
	maxLinkText   = 400 // characters of link text
)

const linkOpening = "[[z="

var linkOpen = []byte(linkOpening)

// MatchLink reports whether s starts with a cross-plane link, [[z=T]] or
// [[z=T|text]]: T is 1-40 characters of [-+0-9eE.] forming a finite
// decimal, and text has at most 400 characters, none of them ']' or a
// newline. It returns the link's length in bytes (0 when s does not start
// with one), its target as written and its text.
//
// The scanner and every package that rewrites links (SKILL.md rendering)
// use this one definition, so they can never disagree about what a link is.
func MatchLink(s string) (n int, target, text string, hasText bool) {
	if !strings.HasPrefix(s, linkOpening) {
		return 0, "", "", false
	}
	l := s[len(linkOpening):]
	t := 0
	for t < len(l) && t <= maxLinkTarget && isTargetByte(l[t]) {
		t++
	}
	if t == 0 || t > maxLinkTarget || t == len(l) {
		return 0, "", "", false
	}
	if _, ok := ParseNumber(l[:t]); !ok {
		return 0, "", "", false
	}
	target, rest := l[:t], l[t:]
	switch {
	case strings.HasPrefix(rest, "]]"):
		return len(linkOpening) + t + 2, target, "", false
	case rest[0] == '|':
		// A text of maxLinkText characters spans at most
		// maxLinkText*UTFMax bytes: search no further, so a line full of
		// unclosed openings costs linear time, not quadratic.
		window := rest[1:min(len(rest), 2+maxLinkText*utf8.UTFMax)]
		end := strings.IndexByte(window, ']')
		if end < 0 || !strings.HasPrefix(rest[1+end:], "]]") {
			return 0, "", "", false
		}
		text = rest[1 : 1+end]
		if strings.IndexByte(text, '\n') >= 0 || utf8.RuneCountInString(text) > maxLinkText {
			return 0, "", "", false
		}
		return len(linkOpening) + t + 1 + end + 2, target, text, true
	}
	return 0, "", "", false
}

// appendLinks appends the cross-plane links on one body line, left to
// right. A candidate that is not a link is skipped and the search goes on
// right after its "[[z=".
func appendLinks(links []Link, line []byte, lineNo int) []Link {
	l := string(line) // only lines holding "[[z=" get here
	for {
		k := strings.Index(l, linkOpening)
		if k < 0 {
			return links
		}
		n, target, text, hasText := MatchLink(l[k:])
		if n == 0 {
			l = l[k+len(linkOpening):]
			continue
		}
		z, _ := ParseNumber(target)
		// Clone: substrings would pin the whole line for the catalog's life.
		links = append(links, Link{TargetZ: z, Target: strings.Clone(target), Text: strings.Clone(text), HasText: hasText, Line: lineNo})
		l = l[k+n:]
	}
}

func isTargetByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == 'e' || c == 'E' || c == '.'
}
