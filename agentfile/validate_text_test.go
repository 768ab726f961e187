package agentfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"testing/iotest"
)

// ruleVerdict is what testdata/rules/expected.json says of one file: its
// errors and warnings as [rule, line] pairs, and text the messages (or the
// parse error) must contain.
type ruleVerdict struct {
	Errors   [][2]any `json:"errors"`
	Warnings [][2]any `json:"warnings"`
	Contains []string `json:"contains"`
}

// TestRuleFiles validates every file under testdata/rules and compares the
// findings, with their lines, to expected.json: one file per rule and
// shape (names that are not UTF-8, NUL bytes, stray carriage returns,
// YAML frontmatter, clashing skill-<z> names, messages of parse errors).
func TestRuleFiles(t *testing.T) {
	b, err := os.ReadFile("testdata/rules/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]ruleVerdict
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("testdata/rules/*.3md")
	if len(files) != len(want) {
		t.Fatalf("%d files but %d verdicts", len(files), len(want))
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			v, ok := want[name]
			if !ok {
				t.Fatal("no verdict in expected.json")
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			r := validateBytes(src, name)
			if got, w := pairs(r.Errors), verdictPairs(v.Errors); !reflect.DeepEqual(got, w) {
				t.Errorf("errors %v, want %v\n%+v", got, w, r.Errors)
			}
			if got, w := pairs(r.Warnings), verdictPairs(v.Warnings); !reflect.DeepEqual(got, w) {
				t.Errorf("warnings %v, want %v\n%+v", got, w, r.Warnings)
			}
			all := messages(r)
			for _, c := range v.Contains {
				if !strings.Contains(all, c) {
					t.Errorf("no message contains %q: %.2000s", c, all)
				}
			}
		})
	}
}

// validateBytes is what `agent3md validate` does with one file.
func validateBytes(src []byte, name string) *Report {
	cat, err := Parse(bytes.NewReader(src), &Options{File: name})
	if err != nil {
		return ParseFailure(err)
	}
	return Validate(cat)
}

func pairs(fs []Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s@%d", f.Rule, f.Line))
	}
	sort.Strings(out)
	return out
}

func verdictPairs(ps [][2]any) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, fmt.Sprintf("%v@%v", p[0], p[1]))
	}
	sort.Strings(out)
	return out
}

func messages(r *Report) string {
	var b strings.Builder
	for _, f := range append(r.Errors, r.Warnings...) {
		b.WriteString(f.Message + "\n")
	}
	return b.String()
}

// TestLongValuesAreCut: a value quoted in an error or finding is cut to
// its first bytes and its length, wherever it appears.
func TestLongValuesAreCut(t *testing.T) {
	big := strings.Repeat("x", 60000)
	fm := "---\n3md: 1.0\ntitle: T\n---\n@plane z=0 kind=identity\nI.\n"
	for _, tt := range []struct{ name, src string }{
		{"unique-skill", fm + "@plane z=1 label=\"" + big + "\" triggers=a\nA\n@plane z=2 label=\"" + big + "\" triggers=b\nB\n"},
		{"missing triggers", fm + "@plane z=1 label=\"" + big + "\"\nA\n"},
		{"input type", fm + "@plane z=1 label=a triggers=a inputs=\"q:" + big + "\"\nA\n"},
		{"z not a number", fm + "@plane z=" + big + "y\n"},
		{"token without =", fm + "@plane z=1 " + big + "\n"},
		{"unterminated quote", fm + "@plane z=1 label=\"" + big + "\n"},
		{"frontmatter line", "---\n3md: 1.0\n" + big + "\n---\n"},
		{"no frontmatter", big + "\n"},
		{"duplicate z", fm + "@plane z=1\n@plane z=" + strings.Repeat("0", 60000) + "1\n"},
		{"entry", "---\n3md: 1.0\ntitle: T\nentry: " + big + "\n---\n@plane z=0 kind=identity\nI.\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := validateBytes([]byte(tt.src), "t.3md")
			all := messages(r)
			if all == "" {
				t.Fatal("no findings")
			}
			for _, f := range append(r.Errors, r.Warnings...) {
				if len(f.Message) > 600 {
					t.Errorf("%s: a %d-byte message: %.120s…", f.Rule, len(f.Message), f.Message)
				}
			}
			if !strings.Contains(all, " bytes)") {
				t.Errorf("no message says how long the cut value was: %.300s", all)
			}
		})
	}
}

// TestQuotedCut: quoted keeps short values whole and cuts long ones at a
// rune boundary, saying how long they were.
func TestQuotedCut(t *testing.T) {
	if got := quoted("abc"); got != `"abc"` {
		t.Errorf("quoted(abc) = %s", got)
	}
	long := strings.Repeat("é", 40) // 80 bytes; byte 60 starts a rune
	if got, want := quoted(long), fmt.Sprintf("%q… (80 bytes)", strings.Repeat("é", 30)); got != want {
		t.Errorf("quoted = %s, want %s", got, want)
	}
	odd := "a" + strings.Repeat("é", 40) // byte 60 splits a rune
	if got, want := quoted(odd), fmt.Sprintf("%q… (81 bytes)", "a"+strings.Repeat("é", 29)); got != want {
		t.Errorf("quoted = %s, want %s", got, want)
	}
	if got := bare(strings.Repeat("k", 70)); !strings.HasSuffix(got, "… (70 bytes)") || strings.Contains(got, `"`) {
		t.Errorf("bare = %s", got)
	}
}

// TestNoticesBounded: a file with a NUL byte on every line keeps a
// bounded number of notices and one finding counts the rest.
func TestNoticesBounded(t *testing.T) {
	src := "---\n3md: 1.0\ntitle: T\n---\n@plane z=0 kind=identity\n" + strings.Repeat("a\x00b\n", 5000)
	cat := mustParse(t, src)
	if len(cat.Notices) != maxNotices || cat.NoticesDropped != 5000-maxNotices {
		t.Fatalf("%d notices, %d dropped", len(cat.Notices), cat.NoticesDropped)
	}
	r := Validate(cat)
	last := r.Warnings[len(r.Warnings)-1]
	if len(r.Warnings) != maxNotices+1 || !strings.Contains(last.Message, fmt.Sprint(5000-maxNotices)) {
		t.Fatalf("%d warnings, last %+v", len(r.Warnings), last)
	}
}

// TestNoticesSurviveTheCache: the notices travel in the encoded catalog, so
// a server started from the catalog cache reports the same findings.
func TestNoticesSurviveTheCache(t *testing.T) {
	src, err := os.ReadFile("testdata/rules/hidden-directive.3md")
	if err != nil {
		t.Fatal(err)
	}
	cat := mustParse(t, string(src))
	b, err := cat.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	back, err := UnmarshalCatalog(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Notices, cat.Notices) || back.TitleLine != cat.TitleLine || len(cat.Notices) == 0 {
		t.Fatalf("notices %+v / title line %d after the round trip; want %+v / %d", back.Notices, back.TitleLine, cat.Notices, cat.TitleLine)
	}
	if !reflect.DeepEqual(Validate(back), Validate(cat)) {
		t.Fatal("the decoded catalog validates differently")
	}
}

// TestNoticesWhateverTheChunks: the scanner skips the per-line checks in
// stretches of input it has already seen are clean; the notices must not
// depend on where the reads split the input (a rune split between two
// reads included), nor on how far into a large file the bad line is.
func TestNoticesWhateverTheChunks(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\n3md: 1.0\ntitle: T\n---\n@plane z=0 kind=identity\n")
	line := 5
	bad := map[int]string{}
	for i := 0; i < 40000; i++ {
		line++
		switch i {
		case 9000:
			b.WriteString("a NUL \x00 here\n")
			bad[line] = NoticeNUL
		case 20000:
			b.WriteString("latin-1 caf\xe9\n")
			bad[line] = NoticeUTF8
		case 39999:
			b.WriteString("one\rtwo\n")
			bad[line] = NoticeCR
		default:
			b.WriteString("a clean line — with a dash, and ünïcödé\n")
		}
	}
	src := b.String()
	readers := map[string]func() io.Reader{
		"whole":    func() io.Reader { return strings.NewReader(src) },
		"one byte": func() io.Reader { return iotest.OneByteReader(strings.NewReader(src)) },
		"halves":   func() io.Reader { return iotest.HalfReader(strings.NewReader(src)) },
	}
	for name, r := range readers {
		cat, err := Parse(r(), nil)
		if err != nil {
			t.Fatal(err)
		}
		got := map[int]string{}
		for _, n := range cat.Notices {
			got[n.Line] = n.Kind
		}
		if !reflect.DeepEqual(got, bad) {
			t.Errorf("%s: notices %v, want %v", name, got, bad)
		}
	}
}
