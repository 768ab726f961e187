package agentfile

import (
	"bytes"
	"errors"
	"testing"
)

// docPlane is what a hostile-input case expects of one plane.
type docPlane struct {
	z     float64
	label string
	body  string
}

// hostileCase is one awkward input with its expected error or planes.
type hostileCase struct {
	name     string
	src      string
	err      string // canonical error name, or ""
	line     int
	preamble string
	planes   []docPlane
}

// hostileCases is a table of awkward bytes, each with its expected error or
// its planes and their bodies exactly as ReadSpan returns them. The fuzz
// tests use the sources as seeds too.
func hostileCases() []hostileCase {
	const fm = "---\n3md: 1.0\n---\n"
	return []hostileCase{
		{name: "unterminated double quote", src: fm + "@plane z=1 label=\"abc\nbody\n", err: InvalidPlaneDirective, line: 4},
		{name: "unterminated single quote", src: fm + "@plane z=1\nok\n@plane z=2 label='abc\n", err: InvalidPlaneDirective, line: 6},
		{name: "quote closed only by an escape", src: fm + "@plane z=1 label=\"abc\\\"\n", err: InvalidPlaneDirective, line: 4},
		{name: "backslash at end of quote", src: fm + "@plane z=1 label=\"abc\\\n", err: InvalidPlaneDirective, line: 4},
		{name: "quote in a frontmatter value is fine", src: "---\n3md: 1.0\ntitle: \"open\n---\n@plane z=1\nx\n",
			planes: []docPlane{{1, "", "x"}}},
		{name: "z overflows", src: fm + "@plane z=1e400\n", err: InvalidPlaneDirective, line: 4},
		{name: "negative z overflows", src: fm + "@plane z=-1e400\n", err: InvalidPlaneDirective, line: 4},
		{name: "x overflows", src: fm + "@plane z=1 x=1e400\n", err: InvalidPlaneDirective, line: 4},
		{name: "z as large as allowed", src: fm + "@plane z=1.7976931348623157e308\nbig\n", planes: []docPlane{{1.7976931348623157e308, "", "big"}}},
		{name: "NUL and invalid UTF-8 in a body", src: fm + "@plane z=1\n\x00a\xff\xfe\x00\n\x80\n",
			planes: []docPlane{{1, "", "\x00a\xff\xfe\x00\n\x80"}}},
		{name: "invalid UTF-8 in a label", src: fm + "@plane z=1 label=\"\xff\xc3\"\nb\n", planes: []docPlane{{1, "\xff\xc3", "b"}}},
		{name: "NUL in a directive is a token byte", src: fm + "@plane z=1\x00\n", err: InvalidPlaneDirective, line: 4},
		{name: "CRLF normalised, lone CR kept", src: "---\r\n3md: 1.0\r\n---\r\n@plane z=1\r\na\r\nb\rc\r\n\r\nd\re\n\r\n",
			planes: []docPlane{{1, "", "a\nb\rc\n\nd\re"}}},
		{name: "a lone CR line is content, not blank", src: fm + "@plane z=1\n\r\r\nx\n\r",
			planes: []docPlane{{1, "", "\r\nx\n\r"}}},
		{name: "CR before CRLF", src: fm + "@plane z=1\nx\r\r\ny\n", planes: []docPlane{{1, "", "x\r\ny"}}},
		{name: "CRLF directive", src: fm + "@plane z=1 label=a\r\nx\r\n@plane z=2\r\ny", planes: []docPlane{{1, "a", "x"}, {2, "", "y"}}},
		{name: "lone CR does not end a directive", src: fm + "@plane z=1\rlabel=a\nx\n", err: InvalidPlaneDirective, line: 4},
		{name: "BOM", src: "\xef\xbb\xbf---\n3md: 1.0\n---\n@plane z=1\nx\n", planes: []docPlane{{1, "", "x"}}},
		{name: "BOM before blank lines", src: "\xef\xbb\xbf\n \n---\n3md: 1.0\n---\n@plane z=1\nx\n", planes: []docPlane{{1, "", "x"}}},
		{name: "BOM inside a body stays", src: fm + "@plane z=1\n\xef\xbb\xbfx\n", planes: []docPlane{{1, "", "\xef\xbb\xbfx"}}},
		{name: "second BOM is content", src: "\xef\xbb\xbf\xef\xbb\xbf---\n3md: 1.0\n---\n", err: MissingFrontmatter, line: 1},
		{name: "tilde fence inside backtick fence",
			src:    fm + "@plane z=1\n```\n~~~\n@plane z=2\n~~~\n```\n@plane z=3\ny\n",
			planes: []docPlane{{1, "", "```\n~~~\n@plane z=2\n~~~\n```"}, {3, "", "y"}}},
		// 3md closes a fence with any line starting with the same
		// character three times (docs/format.md §3), so ``` closes ````: unlike
		// CommonMark, the @plane after it is a directive.
		{name: "backtick fence inside a longer one",
			src:    fm + "@plane z=1\n````\n```\n@plane z=2\n```\n````\n",
			planes: []docPlane{{1, "", "````\n```"}, {2, "", "```\n````"}}},
		{name: "unclosed fence swallows the rest", src: fm + "@plane z=1\n~~~\n@plane z=2\n", planes: []docPlane{{1, "", "~~~\n@plane z=2"}}},
		{name: "indented fence", src: fm + "@plane z=1\n  ```\n@plane z=2\n  ```\n", planes: []docPlane{{1, "", "  ```\n@plane z=2\n  ```"}}},
		{name: "two backticks are no fence", src: fm + "@plane z=1\n``\n@plane z=2\nb\n", planes: []docPlane{{1, "", "``"}, {2, "", "b"}}},
		{name: "fence in the preamble", src: fm + "```\n@plane z=1\n```\n@plane z=2\nb\n",
			preamble: "```\n@plane z=1\n```", planes: []docPlane{{2, "", "b"}}},
		{name: "tab-separated directive", src: fm + "@plane\tz=1\tlabel=a\nb\n", planes: []docPlane{{1, "a", "b"}}},
		{name: "bare @plane", src: fm + "@plane\nb\n", err: MissingPlanePosition, line: 4},
		{name: "empty file", src: "", err: MissingFrontmatter, line: 1},
		{name: "only blank lines", src: "\n \t\n\n", err: MissingFrontmatter, line: 1},
		{name: "directive inside the frontmatter", src: "---\n3md: 1.0\n@plane z=1\n", err: InvalidFrontmatter, line: 3},
		{name: "frontmatter never closed", src: "\n---\n3md: 1.0\n# note\n", err: InvalidFrontmatter, line: 2},
		{name: "numeric duplicate", src: fm + "@plane z=10\n@plane z=1e1\n", err: DuplicatePlane, line: 5},
		{name: "negative zero duplicates zero", src: fm + "@plane z=0\n@plane z=-0.0\n", err: DuplicatePlane, line: 5},
	}
}

// TestHostileContent runs hostileCases.
func TestHostileContent(t *testing.T) {
	for _, tt := range hostileCases() {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte(tt.src)
			cat, err := Parse(bytes.NewReader(src), nil)
			if tt.err != "" {
				var pe *ParseError
				if !errors.As(err, &pe) || pe.Name != tt.err || pe.Line != tt.line {
					t.Fatalf("want %s on line %d, got %v", tt.err, tt.line, err)
				}
				checkOffset(t, src, err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkDoc(t, src, cat, tt.preamble, tt.planes)
		})
	}
}

// checkDoc compares a catalog, bodies read back with ReadSpan, with the
// expected preamble and planes. A nil planes slice skips the plane check.
func checkDoc(t *testing.T, src []byte, cat *Catalog, preamble string, planes []docPlane) {
	t.Helper()
	r := bytes.NewReader(src)
	if cat.HasPreamble != (preamble != "") {
		t.Fatalf("preamble present = %v, want %q", cat.HasPreamble, preamble)
	}
	if cat.HasPreamble {
		if b, err := ReadSpan(r, cat.Preamble, cat.PreambleCRC); err != nil || string(b) != preamble {
			t.Fatalf("preamble %q (%v), want %q", b, err, preamble)
		}
	}
	if planes == nil {
		return
	}
	if len(cat.Planes) != len(planes) {
		t.Fatalf("%d planes, want %d", len(cat.Planes), len(planes))
	}
	for i, want := range planes {
		pl := cat.Planes[i]
		b, err := ReadSpan(r, pl.Body, pl.CRC)
		if err != nil {
			t.Fatalf("plane %d: %v", i, err)
		}
		if pl.Z != want.z || pl.Label != want.label || string(b) != want.body {
			t.Errorf("plane %d: z=%v label=%q body=%q, want z=%v label=%q body=%q", i, pl.Z, pl.Label, b, want.z, want.label, want.body)
		}
	}
}
