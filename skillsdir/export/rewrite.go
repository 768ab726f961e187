package export

import (
	"strings"

	"github.com/agent3md/agent3md/agentfile"
)

// rewriteLine copies one body line to b, replacing each cross-plane link for
// which repl returns ok with repl's text. Links are recognised exactly as
// agentfile's scanner does (agentfile.MatchLink); a candidate that fails
// is skipped and the search goes on right after its "[[z=".
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
		n, target, text, hasText := agentfile.MatchLink(l)
		if n == 0 {
			// Not a link: keep "[[z=" and look again right after it.
			b.WriteString(open)
			l = l[len(open):]
			continue
		}
		if out, ok := repl(target, text, hasText); ok {
			b.WriteString(out)
		} else {
			b.WriteString(l[:n]) // a link, but not one to rewrite: as written
		}
		l = l[n:]
	}
}
