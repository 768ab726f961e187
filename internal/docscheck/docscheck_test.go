package docscheck

import (
	"strings"
	"testing"
	"time"
)

func TestFigure(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int64
		kind Kind
		bad  bool
	}{
		{in: "4,096", n: 4096},
		{in: "100_000", n: 100_000},
		{in: "five", n: 5},
		{in: "64 KiB", n: 64 << 10, kind: Bytes},
		{in: "4MiB", n: 4 << 20, kind: Bytes},
		{in: "1 KB", n: 1 << 10, kind: Bytes},
		{in: "255 bytes", n: 255, kind: Bytes},
		{in: "20 s", n: int64(20 * time.Second), kind: Duration},
		{in: "2 minutes", n: int64(2 * time.Minute), kind: Duration},
		{in: "50 ms", n: int64(50 * time.Millisecond), kind: Duration},
		{in: "1h", n: int64(time.Hour), kind: Duration},
		{in: "1.5 KiB", n: 1536, kind: Bytes},
		{in: "1.5", bad: true},
		{in: "3 parsecs", bad: true},
	} {
		n, kind, err := Figure(tt.in)
		if tt.bad {
			if err == nil {
				t.Errorf("Figure(%q) = %d, want an error", tt.in, n)
			}
			continue
		}
		if err != nil || n != tt.n || kind != tt.kind {
			t.Errorf("Figure(%q) = %d, %v, %v; want %d, %v", tt.in, n, kind, err, tt.n, tt.kind)
		}
	}
}

// TestCheck: a figure that drifts, a mention in another unit, a mention
// wrapped across lines, and a fact nothing mentions.
func TestCheck(t *testing.T) {
	docs := []Doc{
		NewDoc("notes/a.md", "Intro.\n\nField terms are kept for up to 1,024\n  skills. The bound is 4 MiB by default.\n"),
		NewDoc("README.md", "They are kept for up to 4,096 skills. Waits at most 50 ms.\n"),
	}
	for _, tt := range []struct {
		name string
		fact Fact
		want []string // one substring per problem
		n    int      // figures compared
	}{
		{"drift, wrapped", Fact{Name: "router.fieldTermsMax", Values: []int64{4096}, Where: Phrase("kept for up to {} skills")},
			[]string{"notes/a.md:3: says 1,024 for router.fieldTermsMax, which is 4096"}, 2},
		{"bytes", Fact{Name: "mcp.DefaultMaxAnswerBytes", Values: []int64{4 << 20}, Kind: Bytes, Where: Phrase("is {} by default")}, nil, 1},
		{"bytes drift", Fact{Name: "x", Values: []int64{1 << 20}, Kind: Bytes, Where: Phrase("is {} by default")},
			[]string{"notes/a.md:4: says 4 MiB for x, which is 1048576 bytes"}, 1},
		{"wrong kind", Fact{Name: "d", Values: []int64{50}, Kind: Count, Where: Phrase("at most {}.")},
			[]string{`README.md:1: "50 ms" quotes d, which counts things`}, 1},
		{"any of several", Fact{Name: "f", Values: []int64{1, int64(50 * time.Millisecond)}, Kind: Duration, Where: Phrase("at most {}.")}, nil, 1},
		{"gone", Fact{Name: "g", Values: []int64{1}, Where: Phrase("never said {} times")},
			[]string{`g: no document mentions it as "never\\s+said\\s+{}\\s+times"`}, 0},
		{"gone but optional", Fact{Name: "g", Values: []int64{1}, Where: Phrase("never said {} times"), Optional: true}, nil, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, n := Check(docs, []Fact{tt.fact})
			if n != tt.n || len(got) != len(tt.want) {
				t.Fatalf("Check = %q, %d figures; want %d problems, %d figures", got, n, len(tt.want), tt.n)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %q lacks %q", got[i], w)
				}
			}
		})
	}
}

func TestLoad(t *testing.T) {
	docs, err := Load("../..")
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) < 5 || docs[0].Name != "README.md" || !strings.HasPrefix(docs[1].Name, "docs"+"/") {
		t.Fatalf("Load read %d documents, first %q", len(docs), docs[0].Name)
	}
	if _, err := Load(t.TempDir()); err == nil {
		t.Error("Load of a directory without docs/ gave no error")
	}
}
