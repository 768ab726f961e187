package router

import (
	"testing"

	"github.com/blevesearch/bleve/v2/search/searcher"

	"github.com/agent3md/agent3md/internal/docscheck"
)

// TestDocsQuoteRouterBounds: the router's unexported bounds that the docs
// quote are their values (cmd/agent3md holds the exported ones).
func TestDocsQuoteRouterBounds(t *testing.T) {
	p := docscheck.Phrase
	n := docscheck.Count
	docscheck.Hold(t, "..", []docscheck.Fact{
		{Name: "router.fieldTermsMax", Values: []int64{fieldTermsMax}, Kind: n, Where: p("a store the router keeps for up to {} skills")},
		{Name: "router.backgroundMaxSkills", Values: []int64{backgroundMaxSkills}, Kind: n, Where: p("the phrase index are done, up to {} skills")},
		{Name: "router.maxTieHits", Values: []int64{int64(maxTieHits)}, Kind: n, Where: p("Once a router has those statistics, up to {} skills")},
		{Name: "router.relaxedLimit", Values: []int64{relaxedLimit}, Kind: n, Where: p("at most {} when a caller asks for no limit (0)")},
		{Name: "router.relaxedLimit", Values: []int64{relaxedLimit}, Kind: n, Where: p("(`--limit 0`: up to {})")},
		{Name: "bleve's searcher.DisjunctionHeapTakeover", Values: []int64{int64(searcher.DisjunctionHeapTakeover)}, Kind: n, Where: p("than bleve's slice disjunction takes ({})")},
	})
}
