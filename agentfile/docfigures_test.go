package agentfile

import (
	"testing"

	"github.com/agent3md/agent3md/internal/docscheck"
)

// TestDocsQuoteLinkBounds: docs/format.md's bounds on a link are the
// parser's.
func TestDocsQuoteLinkBounds(t *testing.T) {
	p := docscheck.Phrase
	docscheck.Hold(t, "..", []docscheck.Fact{
		{Name: "agentfile.maxLinkTarget", Values: []int64{maxLinkTarget}, Kind: docscheck.Count, Where: p("written with 1 to {} characters from")},
		{Name: "agentfile.maxLinkText", Values: []int64{maxLinkText}, Kind: docscheck.Count, Where: p("newline and is at most {} characters")},
	})
}
