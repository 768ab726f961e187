package metrics

import (
	"testing"

	"github.com/agent3md/agent3md/internal/docscheck"
)

// TestDocsQuoteScrapeBounds: docs/http.md's scrape bounds are the
// registry's.
func TestDocsQuoteScrapeBounds(t *testing.T) {
	p := docscheck.Phrase
	docscheck.Hold(t, "../..", []docscheck.Fact{
		{Name: "metrics.maxScrapes", Values: []int64{maxScrapes}, Kind: docscheck.Count, Where: p("at most {} at once, each within")},
		{Name: "metrics.scrapeTimeout", Values: []int64{int64(scrapeTimeout)}, Kind: docscheck.Duration, Where: p("at once, each within {}, else 503")},
	})
}
