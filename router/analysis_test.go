package router

import (
	"maps"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
)

// TestDocAnalyzerRepeats: a marked document analyses to exactly the terms,
// with exactly the frequencies and length, of its fields' text written out
// as many times as their weight, which is what BM25 sees.
func TestDocAnalyzerRepeats(t *testing.T) {
	m, err := newMapping()
	if err != nil {
		t.Fatal(err)
	}
	doc, text := m.AnalyzerNamed(docAnalyzer), m.AnalyzerNamed(textAnalyzer)
	skills := append(genSkills(20),
		Skill{Name: "odd \uE0009 mark", Triggers: []string{"the 3 of us", "9 lives", "x\uE0003y"}, Description: "Runs 1 2 3 things.", Tool: "/usr/bin/tool9 {a}", Inputs: []string{"a", "b2"}},
		Skill{Name: "only-name"},
	)
	for _, s := range skills {
		var repeated strings.Builder
		for _, f := range fields {
			v := strings.ReplaceAll(fieldValue(&s, f.name), string(repeatMark), " ")
			if v == "" {
				continue
			}
			for i := 0; i < f.repeat; i++ {
				repeated.WriteString(v + " . ")
			}
		}
		got := doc.Analyze([]byte(document(&s)[indexField].(string)))
		want := text.Analyze([]byte(repeated.String()))
		if len(got) != len(want) {
			t.Errorf("%q: %d tokens, want %d", s.Name, len(got), len(want))
		}
		if g, w := freqs(got), freqs(want); !maps.Equal(g, w) {
			t.Errorf("%q: term frequencies %v, want %v", s.Name, g, w)
		}
		for _, tok := range got {
			if tok.Type >= repeatBase {
				t.Errorf("%q: token %q keeps its repeat tag", s.Name, tok.Term)
			}
		}
	}
}

func freqs(ts analysis.TokenStream) map[string]int {
	out := map[string]int{}
	for _, t := range ts {
		out[string(t.Term)]++
	}
	return out
}
