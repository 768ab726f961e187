package router

import (
	"testing"

	"github.com/agent3md/agent3md/internal/docscheck"
)

// TestDocsQuoteRouterBounds: the router's unexported bounds that the docs
// quote are their values (cmd/agent3md holds the exported ones).
func TestDocsQuoteRouterBounds(t *testing.T) {
	p := docscheck.Phrase
	n := docscheck.Count
	docscheck.Hold(t, "..", []docscheck.Fact{
		{Name: "router.fieldTermsMax", Values: []int64{fieldTermsMax}, Kind: n, Where: p("a store the router keeps for up to {} skills")},
		{Name: "router.backgroundMaxSkills", Values: []int64{backgroundMaxSkills}, Kind: n, Where: p("(`Options.Background`), up to {} skills")},
		{Name: "router.relaxedLimit", Values: []int64{relaxedLimit}, Kind: n, Where: p("(`--limit 0`: up to {})")},
	})
}
