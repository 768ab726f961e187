package memlimit

import (
	"testing"

	"github.com/agent3md/agent3md/internal/docscheck"
)

// TestDocsQuoteBuildGCSkills: the docs give the size from which a build
// runs at the lower GC target as buildGCSkills.
func TestDocsQuoteBuildGCSkills(t *testing.T) {
	p := docscheck.Phrase
	docscheck.Hold(t, "../..", []docscheck.Fact{
		{Name: "memlimit.buildGCSkills", Values: []int64{buildGCSkills}, Kind: docscheck.Count, Where: p("a build of more than {} skills runs at a GC target")},
		{Name: "memlimit.buildGCSkills", Values: []int64{buildGCSkills}, Kind: docscheck.Count, Where: p("an index build of more than {} skills runs with")},
	})
}
