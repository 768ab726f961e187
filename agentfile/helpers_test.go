package agentfile

import (
	"strings"
	"testing"
)

// mustParse parses src with default limits and fails the test on error.
func mustParse(t *testing.T, src string) *Catalog {
	t.Helper()
	cat, err := Parse(strings.NewReader(src), nil)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return cat
}
