package skillsync

import (
	"strings"
	"testing"
)

// TestSummaryTextDryRun: a dry run's totals say what would happen, in the
// words of its list; a real pass's say what did.
func TestSummaryTextDryRun(t *testing.T) {
	for _, c := range []struct {
		dry        bool
		line, tots string
	}{
		{true, "  add       a\n", "would add 2, update 1, remove 0; 3 unchanged, 0 refused;"},
		{false, "  added     a\n", "2 added, 1 updated, 0 removed, 3 unchanged, 0 refused;"},
	} {
		s := &Summary{DryRun: c.dry, Source: "http://x/mcp/team", Dir: "skills", Via: "skills-extension",
			Added: []string{"a", "b"}, Updated: []string{"c"}, Unchanged: []string{"d", "e", "f"}}
		var b strings.Builder
		if err := s.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), c.line) || !strings.Contains(b.String(), c.tots) {
			t.Errorf("dry run %v:\n%s\nwant %q and %q", c.dry, b.String(), c.line, c.tots)
		}
	}
}
