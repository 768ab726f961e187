package router

import (
	"maps"
	"slices"
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

// TestRequestTermsLikeAnalyze: terms read from a request's tokens and
// stems are the analyzers' own, word for word, in both analyzers and in
// order, for ASCII requests of every shape (case, stop words, repeats,
// short words, British spellings, punctuation, more distinct terms than
// analyze scans) and for the non-ASCII ones that go through the
// analyzers.
func TestRequestTermsLikeAnalyze(t *testing.T) {
	an := testAnalyzers(t)
	texts := append(wordRequests(genSkills(50), 300, 9),
		"", "the a of", "Deploy the DEPLOYS deployed, deploying!", "go to it: is up", "summarise the analysed organisation",
		"crash-looping pods — roll back ‘now’", "naïve café résumé", "İstanbul ΣΟΦΟΣ Ⱥ", "x\xffy", "v1.2.3 a1b2 42",
		strings.Repeat("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau ", 3))
	for _, text := range texts {
		toks := appendTokens(nil, text)
		for _, exact := range []bool{false, true} {
			got, want := requestTerms(an, text, toks, appendStems(nil, toks), exact, nil), analyze(an, text, exact)
			if !slices.Equal(got.text, want.text) || !slices.Equal(got.exact, want.exact) {
				t.Errorf("%q (exact %v):\n got %q\nwant %q", text, exact, got, want)
			}
		}
	}
}

// testAnalyzers are the mapping's analyzers, for tests that analyse text
// as the index does.
func testAnalyzers(t testing.TB) *analyzers {
	t.Helper()
	m, err := newMapping()
	if err != nil {
		t.Fatal(err)
	}
	an, err := newAnalyzers(m)
	if err != nil {
		t.Fatal(err)
	}
	return an
}
