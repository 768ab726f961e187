package agentfile

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// limitCase is one bound exercised at its value N: build(n) makes an input
// whose measured size is n, set(n) sets the bound to n. The input at N must
// parse; the input at N+1 must fail with ErrLimit naming flag on line.
type limitCase struct {
	name  string
	flag  string
	n     int
	set   func(l *Limits, n int)
	build func(n int) string
	line  func(n int) int // line the N+1 refusal names
}

func fmDoc(fmLines []string, body string) string {
	return "---\n3md: 1.0\n" + strings.Join(fmLines, "") + "---\n" + body
}

func limitCases() []limitCase {
	const head = "---\n3md: 1.0\n---\n@plane z=0\n"
	return []limitCase{
		{name: "bytes", flag: "--max-bytes", n: 200,
			set:   func(l *Limits, n int) { l.MaxBytes = int64(n) },
			build: func(n int) string { return head + strings.Repeat("b", n-len(head)) },
			line:  func(int) int { return 5 }},
		{name: "bytes/crlf", flag: "--max-bytes", n: 300,
			set: func(l *Limits, n int) { l.MaxBytes = int64(n) },
			build: func(n int) string {
				s := strings.ReplaceAll(head, "\n", "\r\n") + "a\r\n"
				return s + strings.Repeat("b", n-len(s)-2) + "\r\n"
			},
			line: func(int) int { return 6 }},
		{name: "line", flag: "--max-line-bytes", n: 100,
			set:   func(l *Limits, n int) { l.MaxLineBytes = n },
			build: func(n int) string { return head + "x\n" + strings.Repeat("l", n) + "\nend\n" },
			line:  func(int) int { return 6 }},
		{name: "line/crlf", flag: "--max-line-bytes", n: 100,
			set:   func(l *Limits, n int) { l.MaxLineBytes = n },
			build: func(n int) string { return head + strings.Repeat("l", n) + "\r\nend\r\n" },
			line:  func(int) int { return 5 }},
		{name: "line/last-unterminated", flag: "--max-line-bytes", n: 100,
			set:   func(l *Limits, n int) { l.MaxLineBytes = n },
			build: func(n int) string { return head + strings.Repeat("l", n) },
			line:  func(int) int { return 5 }},
		{name: "line/past-read-buffer", flag: "--max-line-bytes", n: 200 << 10,
			set:   func(l *Limits, n int) { l.MaxLineBytes = n },
			build: func(n int) string { return head + strings.Repeat("l", n) + "\n" },
			line:  func(int) int { return 5 }},
		{name: "line/directive", flag: "--max-line-bytes", n: 80,
			set: func(l *Limits, n int) { l.MaxLineBytes = n },
			build: func(n int) string {
				return head + "@plane z=1 label=" + strings.Repeat("d", n-len("@plane z=1 label=")) + "\n"
			},
			line: func(int) int { return 5 }},
		{name: "frontmatter", flag: "--max-frontmatter-lines", n: 5,
			set: func(l *Limits, n int) { l.MaxFrontmatterLines = n },
			build: func(n int) string {
				var fm []string
				for i := 1; i < n; i++ { // plus the 3md line
					fm = append(fm, fmt.Sprintf("k%d: v\n", i))
				}
				return fmDoc(fm, "@plane z=0\nbody\n")
			},
			line: func(n int) int { return n + 1 }},
		{name: "planes", flag: "--max-planes", n: 4,
			set:   func(l *Limits, n int) { l.MaxPlanes = n },
			build: planes,
			line:  func(n int) int { return 2*n + 2 }},
		{name: "attributes", flag: "--max-attributes", n: 6,
			set: func(l *Limits, n int) { l.MaxAttributes = n },
			build: func(n int) string {
				d := "@plane z=1"
				for i := 1; i < n; i++ {
					d += fmt.Sprintf(" a%d=v", i)
				}
				return head + "zero\n" + d + "\none\n"
			},
			line: func(int) int { return 6 }},
		{name: "links", flag: "--max-links", n: 7,
			set: func(l *Limits, n int) { l.MaxLinks = n },
			build: func(n int) string {
				return head + strings.Repeat("see [[z=0]]\n", n-1) + "last [[z=9|x]]\n"
			},
			line: func(n int) int { return 4 + n }},
		{name: "attribute-bytes", flag: "--max-attribute-bytes", n: 32,
			set:   func(l *Limits, n int) { l.MaxAttributeBytes = n },
			build: func(n int) string { return head + "@plane z=1 note=" + strings.Repeat("v", n) + "\n" },
			line:  func(int) int { return 5 }},
		{name: "attribute-bytes/quoted", flag: "--max-attribute-bytes", n: 32,
			set: func(l *Limits, n int) { l.MaxAttributeBytes = n },
			build: func(n int) string {
				return head + `@plane z=1 label="` + strings.Repeat(`\"`, n/2) + strings.Repeat("q", n-n/2) + `"` + "\n"
			},
			line: func(int) int { return 5 }},
	}
}

// planes returns a document of n planes, one directive every other line.
func planes(n int) string {
	var b strings.Builder
	b.WriteString("---\n3md: 1.0\n---\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "@plane z=%d\nbody %d\n", i, i)
	}
	return b.String()
}

// TestLimitsAtBound covers every bound of Limits at N (accepted) and N+1
// (refused with ErrLimit, the bound's flag and the offending line).
func TestLimitsAtBound(t *testing.T) {
	for _, tc := range limitCases() {
		t.Run(tc.name, func(t *testing.T) {
			var lim Limits
			tc.set(&lim, tc.n)
			at := tc.build(tc.n)
			if _, err := Parse(strings.NewReader(at), &Options{Limits: lim}); err != nil {
				t.Fatalf("at the bound (%d): %v", tc.n, err)
			}
			past := tc.build(tc.n + 1)
			_, err := Parse(strings.NewReader(past), &Options{File: "a.3md", Limits: lim})
			checkLimitError(t, err, tc.flag, tc.line(tc.n+1))
			checkOffset(t, []byte(past), err)
		})
	}
}

// checkLimitError requires a limitExceeded *ParseError wrapping ErrLimit
// whose message names flag and line.
func checkLimitError(t *testing.T, err error, flag string, line int) {
	t.Helper()
	var pe *ParseError
	if !errors.Is(err, ErrLimit) || !errors.As(err, &pe) {
		t.Fatalf("want a limit error naming %s, got %v", flag, err)
	}
	if pe.Name != LimitExceeded || pe.Line != line {
		t.Errorf("got %s on line %d, want %s on line %d", pe.Name, pe.Line, LimitExceeded, line)
	}
	var le *LimitError
	if !errors.As(err, &le) || le.Flag != flag {
		t.Errorf("want *LimitError for %s, got %#v", flag, le)
	}
	msg := pe.Error()
	if !strings.Contains(msg, flag) || !strings.Contains(msg, fmt.Sprintf(":%d:", line)) {
		t.Errorf("message %q does not name %s and line %d", msg, flag, line)
	}
}

// TestDescriptionBound: the description prefix is a bound on work, not on
// input: a first paragraph longer than the prefix gives no description and
// no error.
func TestDescriptionBound(t *testing.T) {
	para := "Reads the logs and finds the first failure."
	src := "---\n3md: 1.0\n---\n@plane z=0\n# Title\n" + para + "\n\nmore text\n"
	need := len("# Title\n") + len(para) + 1
	for _, tt := range []struct {
		budget int
		want   string
	}{
		{need, para},
		{need - 1, ""},
	} {
		cat, err := Parse(strings.NewReader(src), &Options{Limits: Limits{MaxDescriptionBytes: tt.budget}})
		if err != nil {
			t.Fatalf("budget %d: %v", tt.budget, err)
		}
		if got := cat.Planes[0].Description; got != tt.want {
			t.Errorf("budget %d: description %q, want %q", tt.budget, got, tt.want)
		}
	}
}

// TestLimitDefaults: a zero or negative field means the documented default.
func TestLimitDefaults(t *testing.T) {
	got := (&Limits{MaxBytes: -1, MaxPlanes: -5}).withDefaults()
	want := Limits{DefaultMaxBytes, DefaultMaxLineBytes, DefaultMaxFrontmatterLines, DefaultMaxPlanes,
		DefaultMaxAttributes, DefaultMaxAttributeBytes, DefaultMaxDescriptionBytes, DefaultMaxLinks}
	if got != want {
		t.Fatalf("defaults: got %+v, want %+v", got, want)
	}
	if got := (&Limits{MaxPlanes: 1 << 40}).withDefaults().MaxPlanes; got != MaxPlanesCeiling {
		t.Errorf("--max-planes 2^40 gives %d planes, want the ceiling %d", got, MaxPlanesCeiling)
	}
	src := planes(3)
	if _, err := Parse(bytes.NewReader([]byte(src)), &Options{}); err != nil {
		t.Fatal(err)
	}
}

// TestDescriptionCap: a first paragraph longer than MaxDescriptionRunes
// characters becomes a description of at most that many, the "…"
// included, cut between words when a space is near the end; multi-byte
// text counts characters.
func TestDescriptionCap(t *testing.T) {
	for _, tc := range []struct {
		word string
		sep  string
	}{
		{"word", " "}, {"wörd", " "}, {"語語語", " "},
		{"x", ""}, {"語", ""}, // one long token: no word to cut at
	} {
		reps := MaxDescriptionRunes/utf8.RuneCountInString(tc.word+tc.sep) + 10 // just over the cap, inside the byte budget
		para := strings.TrimSpace(strings.Repeat(tc.word+tc.sep, reps))
		src := "---\n3md: 1.0\n---\n@plane z=0\n" + para + "\n"
		cat, err := Parse(strings.NewReader(src), &Options{})
		if err != nil {
			t.Fatal(err)
		}
		d := cat.Planes[0].Description
		if n := utf8.RuneCountInString(d); n > MaxDescriptionRunes || !strings.HasSuffix(d, "…") {
			t.Fatalf("%q: description of %d characters, want at most %d ending with …", tc.word, n, MaxDescriptionRunes)
		}
		if tc.sep != "" && !strings.HasSuffix(d, " "+tc.word+"…") {
			t.Errorf("%q: description ends %q, want a whole word before the …", tc.word, d[max(0, len(d)-16):])
		}
	}
}
