package agentfile

import (
	"strings"
	"testing"
)

// TestWriteSummary: the file line, then a line a plane, a missing label
// as "-", a description cut to 60 characters (runes, not bytes).
func TestWriteSummary(t *testing.T) {
	long := strings.Repeat("漢", 70)
	c := mustParse(t, "---\n3md: 1.0\ntitle: Demo\n---\n\n@plane z=0\nwho we are\n\n@plane z=1 label=search\n"+long+"\n")
	var b strings.Builder
	if err := c.WriteSummary(&b, "demo.3md"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("want a file line and two plane lines:\n%s", b.String())
	}
	if !strings.HasPrefix(lines[0], "demo.3md: 3md 1.0, axis layer, title Demo, 2 planes, ") {
		t.Errorf("file line %q", lines[0])
	}
	if !strings.HasPrefix(lines[1], "  z=0      line 6     -  ") {
		t.Errorf("identity line %q", lines[1])
	}
	if want := strings.Repeat("漢", 59) + "…"; !strings.Contains(lines[2], "search") || !strings.HasSuffix(lines[2], "  "+want) {
		t.Errorf("skill line %q, want the description cut to %q", lines[2], want)
	}
	untitled := mustParse(t, "---\n3md: 1.0\n---\n\n@plane z=0\nx\n")
	b.Reset()
	untitled.WriteSummary(&b, "-")
	if !strings.Contains(b.String(), "title (none)") {
		t.Errorf("no title: %q", b.String())
	}
}
