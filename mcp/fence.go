package mcp

import (
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// fenceProbe is text no Markdown source holds by chance: appended after a
// blank line, it lands in a fenced code block only when one is still open.
const fenceProbe = "a3md-fence-probe-7f3c"

// openFence returns the line that closes the fenced code block kept ends
// inside ("\n```", "\n~~~~"), or "" when kept ends outside any. goldmark
// (the CommonMark parser agentfile reads bodies with) decides whether a
// fence is open; the closer repeats the fence characters of the block's
// opening line.
func openFence(kept string) string {
	if !strings.Contains(kept, "```") && !strings.Contains(kept, "~~~") {
		return ""
	}
	src := []byte(kept + "\n\n" + fenceProbe)
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	closer := ""
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		fb, ok := n.(*ast.FencedCodeBlock)
		if !entering || !ok || fb.Lines().Len() == 0 {
			return ast.WalkContinue, nil
		}
		last := fb.Lines().At(fb.Lines().Len() - 1)
		if !strings.Contains(string(last.Value(src)), fenceProbe) {
			return ast.WalkContinue, nil
		}
		// The opening fence is the line before the block's first line.
		line := strings.LastIndexByte(string(src[:fb.Lines().At(0).Start]), '\n')
		open := strings.LastIndexByte(string(src[:max(line, 0)]), '\n') + 1
		closer = "\n" + fenceRun(string(src[open:max(line, open)]))
		return ast.WalkStop, nil
	})
	return closer
}

// fenceRun is the run of three or more ` or ~ that opens a fence line.
func fenceRun(line string) string {
	for i := 0; i+2 < len(line); i++ {
		c := line[i]
		if (c == '`' || c == '~') && line[i+1] == c && line[i+2] == c {
			j := i
			for j < len(line) && line[j] == c {
				j++
			}
			return line[i:j]
		}
	}
	return "```"
}
