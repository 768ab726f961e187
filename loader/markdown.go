package loader

import (
	"github.com/agent3md/agent3md/agentfile"
	"strings"
	"unicode/utf8"
)

// Link bounds of the 3md base format (DESIGN §2), as agentfile applies them.
const (
	maxLinkTarget = 40
	maxLinkText   = 400
)

// rewriteLine copies one body line to b, replacing each cross-plane link for
// which repl returns ok with repl's text. Links are recognised exactly as
// agentfile's scanner does: "[[z=" then 1-40 target characters that form a
// finite decimal, then "]]" or "|text]]" with at most 400 characters of
// text free of "]"; a candidate that fails is skipped and the search goes
// on right after its "[[z=".
func rewriteLine(b *strings.Builder, l string, repl func(target, text string, hasText bool) (string, bool)) {
	const open = "[[z="
	for {
		k := strings.Index(l, open)
		if k < 0 {
			b.WriteString(l)
			return
		}
		b.WriteString(l[:k])
		l = l[k:]
		n, target, text, hasText := linkAt(l[len(open):])
		if n == 0 {
			// Not a link: keep "[[z=" and look again right after it.
			b.WriteString(open)
			l = l[len(open):]
			continue
		}
		n += len(open)
		if out, ok := repl(target, text, hasText); ok {
			b.WriteString(out)
		} else {
			b.WriteString(l[:n]) // a link, but not one to rewrite: as written
		}
		l = l[n:]
	}
}

// linkAt reads the rest of a link after its "[[z=": it returns the number
// of bytes of l the link covers, or 0 when l does not continue a link.
func linkAt(l string) (n int, target, text string, hasText bool) {
	t := 0
	for t < len(l) && t <= maxLinkTarget && isTargetByte(l[t]) {
		t++
	}
	if t == 0 || t > maxLinkTarget || t == len(l) {
		return 0, "", "", false
	}
	if _, ok := agentfile.ParseNumber(l[:t]); !ok {
		return 0, "", "", false
	}
	target, rest := l[:t], l[t:]
	switch {
	case strings.HasPrefix(rest, "]]"):
		return t + 2, target, "", false
	case rest[0] == '|':
		// A text of maxLinkText characters spans at most maxLinkText*4
		// bytes: look no further, so a line of unclosed openings costs
		// linear time.
		end := strings.IndexByte(rest[1:min(len(rest), 2+maxLinkText*utf8.UTFMax)], ']')
		if end < 0 || !strings.HasPrefix(rest[1+end:], "]]") {
			return 0, "", "", false
		}
		text = rest[1 : 1+end]
		if strings.ContainsRune(text, '\n') || utf8.RuneCountInString(text) > maxLinkText {
			return 0, "", "", false
		}
		return t + 1 + end + 2, target, text, true
	}
	return 0, "", "", false
}

func isTargetByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == 'e' || c == 'E' || c == '.'
}
