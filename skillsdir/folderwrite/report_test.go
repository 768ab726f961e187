package folderwrite

import (
	"strings"
	"testing"
)

// TestReportText: created, replaced and removed files are listed a line
// each in that order, unchanged ones only counted.
func TestReportText(t *testing.T) {
	r := &Report{Created: []string{"a/SKILL.md"}, Replaced: []string{"b/SKILL.md"}, Unchanged: []string{"c/SKILL.md", "c/x.md"}, Removed: []string{"d/SKILL.md"}}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if want := "created  a/SKILL.md\nreplaced b/SKILL.md\nremoved  d/SKILL.md\n"; b.String() != want {
		t.Errorf("WriteText:\n%q\nwant\n%q", b.String(), want)
	}
	if got, want := r.Summary(4, "out"), "4 skills under out: 1 files created, 1 replaced, 2 unchanged, 1 removed"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
}
