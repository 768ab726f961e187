package mcp

import (
	"testing"

	"github.com/agent3md/agent3md/internal/docscheck"
)

// TestDocsQuoteServerBounds: the server's unexported bounds that the docs
// quote are their values (cmd/agent3md holds the exported ones).
func TestDocsQuoteServerBounds(t *testing.T) {
	p := docscheck.Phrase
	n, b := docscheck.Count, docscheck.Bytes
	fact := func(name string, v int64, k docscheck.Kind, where string) docscheck.Fact {
		return docscheck.Fact{Name: name, Values: []int64{v}, Kind: k, Where: p(where)}
	}
	docscheck.Hold(t, "..", []docscheck.Fact{
		fact("mcp.inlineChain", inlineChain, n, "resolve_skill chain of at most {} skills"),
		fact("mcp.inlineSkills", inlineSkills, n, "on an agent of at most {} skills"),
		fact("mcp.inlineArgsBytes", inlineArgsBytes, b, "for a request of at most {} of arguments"),
		fact("mcp.answerLead", answerLead, b, "Once {} of answers waits for the writer"),
		fact("mcp.answerLead", answerLead, b, "costs the server at most {} of answers waiting"),
		fact("mcp.maxCachedAnswers", maxCachedAnswers, n, "up to {} answers"),
		fact("mcp.maxCachedAnswerBytes", maxCachedAnswerBytes, b, "answers and {}. A key's hash"),
		fact("mcp.seenSlots", seenSlots, n, "in a {}-slot table"),
		fact("mcp.defaultListLimit", defaultListLimit, n, "characters, at most {})"),
		fact("mcp.defaultListLimit", defaultListLimit, n, "the default budget of §5 (at most {})"),
		fact("mcp.maxListLimit", maxListLimit, n, "`limit` (at most {};"),
		fact("mcp.maxListLimit", maxListLimit, n, "at most that many (up to {})"),
		fact("mcp.hostAnswerChars", hostAnswerChars, n, "what fits {} characters"),
		fact("mcp.hostAnswerChars", hostAnswerChars, n, "does not ask for more holds at most {} characters"),
		fact("mcp.maxInstructionsBytes", maxInstructionsBytes, b, "The instructions (§6) are at most {};"),
	})
}
