package agentfile

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkValidate runs the validator over synthetic agents already
// scanned, so the figure is the validator's own cost.
func BenchmarkValidate(b *testing.B) {
	for _, n := range []int{4000, 100000} {
		b.Run(fmt.Sprintf("skills=%d", n), func(b *testing.B) {
			cat := synthCatalog(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if r := Validate(cat); !r.OK() {
					b.Fatalf("synthetic agent invalid: %+v", r.Errors[0])
				}
			}
		})
	}
}

// BenchmarkValidateManyCycles: a 3,000-skill chain whose every skill links
// back to the first (3,000 cycles), the case bounded cycle reporting fixed.
func BenchmarkValidateManyCycles(b *testing.B) {
	cat, err := Parse(strings.NewReader(chainSrc(3000, true)), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Validate(cat)
	}
}

// BenchmarkHostileLinkLine scans one 1 MB line of unclosed link openings
// ("[[z=1|" repeated), the case the bounded ']' search fixed.
func BenchmarkHostileLinkLine(b *testing.B) {
	src := []byte("---\n3md: 1.0\n---\n@plane z=1\n" + strings.Repeat("[[z=1|", (1<<20-64)/6) + "]]\n")
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Parse(bytes.NewReader(src), nil); err != nil {
			b.Fatal(err)
		}
	}
}
