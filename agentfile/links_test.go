package agentfile

import (
	"runtime"
	"strings"
	"testing"
)

// TestLinkBounds pins the base format's link bounds: a target of 1-40
// characters, a text of at most 400 characters (counted as characters, not
// bytes) without ']'.
func TestLinkBounds(t *testing.T) {
	for _, tt := range []struct {
		name string
		line string
		want []string // link texts ("-" for no text), in order
	}{
		{"target 40 chars", "[[z=" + strings.Repeat("0", 39) + "1]]", []string{"-"}},
		{"target 41 chars", "[[z=" + strings.Repeat("0", 40) + "1]]", nil},
		{"text 400 chars", "[[z=1|" + strings.Repeat("é", 400) + "]]", []string{strings.Repeat("é", 400)}},
		{"text 401 chars", "[[z=1|" + strings.Repeat("é", 401) + "]]", nil},
		{"text 400 four-byte chars", "[[z=1|" + strings.Repeat("😀", 400) + "]]", []string{strings.Repeat("😀", 400)}},
		{"text with ]", "[[z=1|a]b]]", nil},
		{"empty text", "[[z=1|]]", []string{""}},
		{"after a failed candidate", "[[z=x [[z=2]] [[z=3|t]]", []string{"-", "t"}},
		{"unclosed then closed", "[[z=1|" + strings.Repeat("a", 500) + " [[z=2]]", []string{"-"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cat := mustParse(t, "---\n3md: 1.0\n---\n@plane z=1\n"+tt.line+"\n")
			var got []string
			for _, l := range cat.AllLinks() {
				if !l.HasText {
					got = append(got, "-")
				} else {
					got = append(got, l.Text)
				}
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Fatalf("links %q, want %q", got, tt.want)
			}
		})
	}
}

// TestLinkCandidatesLinear: a line packed with link openings whose text
// never closes within the bound costs work and memory in proportion to the
// line, not to its square. Without a bounded search each of the 10,000
// candidates below copied the rest of the line (about 1.2 GB in all).
func TestLinkCandidatesLinear(t *testing.T) {
	const n = 10000
	src := "---\n3md: 1.0\n---\n@plane z=1\n" + strings.Repeat("[[z=1|", n) + "]]\n"
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cat := mustParse(t, src)
	runtime.ReadMemStats(&after)
	// The first opening whose text closes within 400 characters is the one
	// followed by 66 more openings (396 bytes); its link runs to the "]]".
	if len(cat.AllLinks()) != 1 || cat.AllLinks()[0].Text != strings.Repeat("[[z=1|", 66) {
		t.Errorf("got links %+v, want one whose text is 66 openings", cat.AllLinks())
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 16<<20 {
		t.Errorf("parsing a %d-byte line allocated %d MB", len(src), d>>20)
	}
}
