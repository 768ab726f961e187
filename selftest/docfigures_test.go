package selftest

import (
	"testing"

	"github.com/agent3md/agent3md/internal/docscheck"
)

// TestDocsQuoteSelftestBounds: the harness's bounds that docs/selftest.md
// quotes are their values.
func TestDocsQuoteSelftestBounds(t *testing.T) {
	p := docscheck.Phrase
	n := docscheck.Count
	docscheck.Hold(t, "..", []docscheck.Fact{
		{Name: "selftest.maxCatalogPages", Values: []int64{maxCatalogPages}, Kind: n, Where: p("allows), at most {} pages")},
		{Name: "selftest.maxListPages", Values: []int64{maxListPages}, Kind: n, Where: p("are read for at most {} pages")},
		{Name: "selftest.maxTimeouts", Values: []int64{maxTimeouts}, Kind: n, Where: p("after {} timed-out sessions")},
		{Name: "selftest.maxProgressWaits", Values: []int64{maxProgressWaits}, Kind: n, Where: p("(up to {} timeouts in all)")},
		{Name: "selftest.maxCompletionValues", Values: []int64{maxCompletionValues}, Kind: n, Where: p("(strings, at most {})")},
		{Name: "selftest.maxFrontmatterBytes", Values: []int64{maxFrontmatterBytes}, Kind: docscheck.Bytes, Where: p("the harness reads at most {}")},
		{Name: "selftest.DefaultTimeout", Values: []int64{int64(DefaultTimeout)}, Kind: docscheck.Duration, Where: p("(`--timeout`, {})")},
	})
}
