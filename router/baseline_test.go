package router

import (
	"math"
	"slices"
	"testing"
)

func TestBaselineTokens(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"Write a Semgrep-rule, v2!", []string{"write", "a", "semgrep", "rule", "v2"}},
		{"查订单status", []string{"查", "订", "单", "status"}},
		{"  ", nil},
	} {
		if got := baselineTokens(nil, c.in); !slices.Equal(got, c.want) {
			t.Errorf("baselineTokens(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestPlainBM25 checks the baseline's scores against BM25 worked by hand:
// two one-word-name skills, a request word only the first holds.
func TestPlainBM25(t *testing.T) {
	p := newPlainBM25(Skills{
		{Name: "pdf", Description: "read pdf files"},
		{Name: "csv", Description: "read csv files quickly"},
	})
	got := p.rank(baselineTokens(nil, "pdf please"), 0)
	if len(got) != 1 || got[0].skill != 0 {
		t.Fatalf("rank = %v, want skill 0 alone", got)
	}
	// pdf: n=1 of N=2, tf 2, length 4, average 4.5.
	idf := math.Log(1 + (2-1+0.5)/(1+0.5))
	norm := 1.2 * (1 - 0.75 + 0.75*4/4.5)
	want := idf * 2 * 2.2 / (2 + norm)
	if math.Abs(got[0].score-want) > 1e-12 {
		t.Errorf("score %v, want %v", got[0].score, want)
	}
	if r := p.rank(baselineTokens(nil, "read files"), 0); len(r) != 2 || r[0].skill != 0 || r[1].skill != 1 {
		t.Errorf("a tie on common words goes to the shorter document first: %v", r)
	}
}
