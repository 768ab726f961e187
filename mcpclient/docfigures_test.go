package mcpclient

import (
	"testing"

	"github.com/agent3md/agent3md/internal/docscheck"
	"github.com/agent3md/agent3md/internal/httpd"
)

// TestDocsQuoteClientBounds: the client's bounds that the docs quote are
// their values.
func TestDocsQuoteClientBounds(t *testing.T) {
	p := docscheck.Phrase
	docscheck.Hold(t, "..", []docscheck.Fact{
		{Name: "mcpclient.streamGrace", Values: []int64{int64(streamGrace)}, Kind: docscheck.Duration, Where: p("after waiting at most {} for the server to end it")},
		{Name: "mcpclient.maxTails", Values: []int64{maxTails}, Kind: docscheck.Count, Where: p("at most {} streams wait so at once")},
		{Name: "mcpclient.MaxCAFileBytes", Values: []int64{MaxCAFileBytes}, Kind: docscheck.Bytes, Where: p("never waited on), at most {}, within")},
		{Name: "httpd.DefaultCredentialTimeout (the CA file's read)", Values: []int64{int64(httpd.DefaultCredentialTimeout)}, Kind: docscheck.Duration, Where: p("never waited on), at most 1 MiB, within {}.")},
	})
}
