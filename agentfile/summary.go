package agentfile

import (
	"bufio"
	"fmt"
	"io"

	"github.com/agent3md/agent3md/internal/textclip"
)

// WriteSummary writes the catalog for a person (`agent3md parse`): a line
// for the file (name as given), its frontmatter and size, then one line a
// plane with its z, line, label, body size and description, cut to 60
// characters. A label or title that is absent shows as "-" or "(none)".
func (c *Catalog) WriteSummary(out io.Writer, name string) error {
	// One write per line would be 100,000 syscalls on a large agent.
	w := bufio.NewWriter(out)
	title := "(none)"
	if c.HasTitle {
		title = c.Title
	}
	fmt.Fprintf(w, "%s: 3md %s, axis %s, title %s, %d planes, %d lines, %d bytes\n",
		name, c.Version, c.Axis, title, len(c.Planes), c.Lines, c.Size)
	for _, p := range c.Planes {
		label := "-"
		if p.HasLabel {
			label = p.Label
		}
		fmt.Fprintf(w, "  z=%-6s line %-5d %-24s %6d bytes  %s\n", p.ZText, p.Line, label, p.Body.Len(), textclip.Runes(p.Description, 60))
	}
	return w.Flush()
}
