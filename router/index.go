package router

import (
	"fmt"
	"math"
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
)

// SchemaVersion identifies the index layout (mapping, fields, analyzers,
// cache files). Cache entries carry it in their key and manifest; bump it
// whenever any of those change so old entries are never trusted.
const SchemaVersion = 9

// Analysis names registered with bleve. They are part of the persisted
// mapping, so renaming one is a schema change.
const (
	textAnalyzer  = "agent3md_en"   // words, lowercase, English stop words, Porter
	exactAnalyzer = "agent3md_word" // words, lowercase
	docAnalyzer   = "agent3md_doc"  // textAnalyzer over marked documents, repeats expanded
)

// Skill fields and their weights (docs/architecture.md §5). The index
// holds one field, indexField, in which each skill field's terms count
// repeat times (docTokenizerImpl), so BM25 weighs fields as query boosts
// would at one clause per word. Weight is the field's share of relaxed
// evidence.
var fields = []struct {
	name     string
	analyzer string
	repeat   int
	weight   float64
}{
	{"triggers", textAnalyzer, 3, 3},
	{"name", textAnalyzer, 2, 2},
	{"description", textAnalyzer, 1, 1},
	{"tool", textAnalyzer, 2, 2},
	{"inputs", textAnalyzer, 1, 0.5},
}

// bodyRelevance is the share of a skill's body relevance (bodyIndex.score)
// added to its relaxed relevance: a body also names other skills and
// says everyday words. bodyEvidence is what a request word only its body
// holds adds to relaxed evidence (a description word's), and it counts
// as a request word unless common English; a word at most bodyFewBodies
// bodies hold adds bodyFewEvidence, so two of them make a match alone
// ("税号填错了能重开吗": 税号 and 重开 are the invoice body's).
const (
	bodyRelevance   = 0.5
	bodyEvidence    = 1
	bodyFewEvidence = 1.5
	bodyFewBodies   = 2
)

// indexField is the one indexed field. Bodies have an index of their
// own (bodyindex.go).
const indexField = "skill"

// newMapping builds the index mapping from the typed field table above.
func newMapping() (*mapping.IndexMappingImpl, error) {
	im := mapping.NewIndexMapping()
	im.ScoringModel = index.BM25Scoring
	im.StoreDynamic, im.IndexDynamic, im.DocValuesDynamic = false, false, false
	analyzers := map[string]struct {
		tokenizer string
		filters   []string
	}{
		textAnalyzer:  {wordsTokenizer, []string{lowercase.Name, en.StopName, porterFilter}},
		exactAnalyzer: {wordsTokenizer, []string{lowercase.Name}},
		docAnalyzer:   {docTokenizer, []string{lowercase.Name, en.StopName, porterFilter, repeatFilterN}},
	}
	for name, a := range analyzers {
		err := im.AddCustomAnalyzer(name, map[string]interface{}{
			"type":          custom.Name,
			"tokenizer":     a.tokenizer,
			"token_filters": a.filters,
		})
		if err != nil {
			return nil, fmt.Errorf("router: analyzer %s: %w", name, err)
		}
	}
	im.DefaultAnalyzer = textAnalyzer
	dm := mapping.NewDocumentStaticMapping()
	fm := mapping.NewTextFieldMapping()
	fm.Analyzer = docAnalyzer
	fm.Store, fm.IncludeTermVectors, fm.IncludeInAll, fm.DocValues = false, false, false, false
	dm.AddFieldMappingsAt(indexField, fm)
	// No "_all" composite field: nothing queries it, and it doubled the
	// indexing work.
	dm.AddSubDocumentMapping("_all", mapping.NewDocumentDisabledMapping())
	im.DefaultMapping = dm
	return im, im.Validate()
}

// fieldValue is the text of skill s's field called name.
func fieldValue(s *Skill, name string) string {
	switch name {
	case "triggers":
		return strings.Join(s.Triggers, " . ")
	case "name":
		return s.Name
	case "description":
		return withCamelParts(s.Description)
	case "tool":
		return toolCommand(s.Tool)
	case "inputs":
		return strings.Join(s.Inputs, " ")
	}
	return ""
}

// document is what the index holds about skill s (its id is s's position
// in decimal): every field's text after a mark giving its repeat count
// (see docTokenizerImpl), which weighs it as if it were written that many
// times.
func document(s *Skill) map[string]interface{} {
	var b strings.Builder
	for _, f := range fields {
		v := fieldValue(s, f.name)
		if v == "" {
			continue
		}
		b.WriteRune(repeatMark)
		b.WriteByte(byte('0' + f.repeat))
		b.WriteByte(' ')
		b.WriteString(strings.ReplaceAll(v, string(repeatMark), " "))
		b.WriteString(" . ")
	}
	return map[string]interface{}{indexField: b.String()}
}

// withCamelParts is text followed by the parts of each of its camel-case
// words ("CrashLoopBackOff" adds "crash loop back off"), so that a request
// that spells the idea out ("crash-looping") meets the identifier.
func withCamelParts(text string) string {
	if !hasInnerUpper(text) {
		return text // no word can split: most descriptions, and the common case
	}
	return splitCamelWords(text)
}

// splitCamelWords is withCamelParts without its shortcut: every word of
// text is tried.
func splitCamelWords(text string) string {
	var extra []string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !isWordRune(r) }) {
		if parts := camelParts(w); len(parts) > 1 {
			extra = append(extra, parts...)
		}
	}
	if len(extra) == 0 {
		return text
	}
	return text + " . " + strings.Join(extra, " ")
}

// hasInnerUpper reports whether some upper-case letter of text follows a
// word rune, which every camel-case split needs (camelParts); it reads the
// text once, without allocating.
func hasInnerUpper(text string) bool {
	prevWord := false
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			if prevWord && 'A' <= c && c <= 'Z' {
				return true
			}
			prevWord = isWordRune(rune(c))
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if prevWord && unicode.IsUpper(r) {
			return true
		}
		prevWord = isWordRune(r)
		i += size
	}
	return false
}

// camelParts splits a word at each lower-to-upper case change and before
// the last capital of a run of capitals followed by a lower-case letter
// ("HTTPServer" is "HTTP", "Server").
func camelParts(w string) []string {
	rs := []rune(w)
	var out []string
	start := 0
	for i := 1; i < len(rs); i++ {
		lowerToUpper := unicode.IsLower(rs[i-1]) && unicode.IsUpper(rs[i])
		acronymEnd := unicode.IsUpper(rs[i-1]) && unicode.IsUpper(rs[i]) && i+1 < len(rs) && unicode.IsLower(rs[i+1])
		if lowerToUpper || acronymEnd {
			out = append(out, string(rs[start:i]))
			start = i
		}
	}
	return append(out, string(rs[start:]))
}

// toolCommand is what a command template says about the skill: the base
// name of its binary and the subcommand words that follow it, up to the
// first option or placeholder ("kubectl rollout history" of
// "kubectl rollout history deployment/{service} -n {namespace}"). Options
// and arguments are how, not what.
func toolCommand(tool string) string {
	f := strings.Fields(tool)
	if len(f) == 0 {
		return ""
	}
	out := []string{path.Base(f[0])}
	for _, w := range f[1:] {
		if strings.HasPrefix(w, "-") || strings.ContainsAny(w, "{}=/$'\"") || len(out) == maxSubcommands+1 {
			break
		}
		out = append(out, w)
	}
	return strings.Join(out, " ")
}

// maxSubcommands bounds the words after the binary that toolCommand keeps:
// real command trees are two or three deep ("gh pr create").
const maxSubcommands = 3

// analyzed is a request's terms per analyzer, each with the request word
// it came from.
type analyzed struct {
	text, exact []term
}

type term struct{ term, word string }

// analyze runs text through the text analyzer and, when exact is set, the
// exact one, keeping each distinct term once, in first-seen order: by a
// scan of the few kept for a short request, through a set for a long one.
func analyze(an *analyzers, text string, exact bool) analyzed {
	run := func(a analysis.Analyzer) []term {
		var out []term
		var seen map[string]struct{}
		src := []byte(text) // the analyzers lowercase it in place; words come from text
		for _, tok := range a.Analyze(src) {
			t := string(tok.Term)
			if seen == nil && len(out) == analyzeScanMax {
				seen = make(map[string]struct{}, 2*analyzeScanMax)
				for _, o := range out {
					seen[o.term] = struct{}{}
				}
			}
			if seen != nil {
				if _, dup := seen[t]; dup {
					continue
				}
				seen[t] = struct{}{}
			} else if slices.ContainsFunc(out, func(o term) bool { return o.term == t }) {
				continue
			}
			out = append(out, term{t, lowerToken(text[tok.Start:tok.End])})
		}
		return out
	}
	a := analyzed{text: run(an.text)}
	if exact {
		a.exact = run(an.exact)
	}
	return a
}

// requestTerms is analyze(an, text, exact) for a request read as toks and
// their stems: over ASCII the analyzers are appendTokens, stopWords and
// stem, so the terms come from those without running bleve's analyzers;
// any other request goes through them. Terms are appended to buf.
func requestTerms(an *analyzers, text string, toks, stems []string, exact bool, buf []term) analyzed {
	for _, tok := range toks {
		for i := 0; i < len(tok); i++ {
			if tok[i] >= utf8.RuneSelf {
				return analyze(an, wordsText(text, toks), exact)
			}
		}
	}
	a := analyzed{text: slices.Grow(buf[:0], len(toks))}
	var seen map[string]struct{}
	for i, tok := range toks {
		if !stopWords[tok] {
			a.text, seen = appendDistinct(a.text, seen, term{stems[i], tok})
		}
	}
	if exact {
		seen = nil
		a.exact = make([]term, 0, len(toks))
		for _, tok := range toks {
			a.exact, seen = appendDistinct(a.exact, seen, term{tok, tok})
		}
	}
	return a
}

// appendDistinct appends t to out unless out holds its term, scanning
// out while it is short and keeping seen (made here) once it is not, as
// analyze does.
func appendDistinct(out []term, seen map[string]struct{}, t term) ([]term, map[string]struct{}) {
	if seen == nil && len(out) == analyzeScanMax {
		seen = make(map[string]struct{}, 2*analyzeScanMax)
		for _, o := range out {
			seen[o.term] = struct{}{}
		}
	}
	if seen != nil {
		if _, dup := seen[t.term]; dup {
			return out, seen
		}
		seen[t.term] = struct{}{}
	} else if slices.ContainsFunc(out, func(o term) bool { return o.term == t.term }) {
		return out, seen
	}
	return append(out, t), seen
}

// analyzeScanMax is how many distinct terms analyze de-duplicates by
// scanning before it switches to a set: below it a scan is cheaper than
// hashing, and every ordinary request stays below it.
const analyzeScanMax = 16

// analyzers are the mapping's analyzers, looked up once.
type analyzers struct {
	text, exact analysis.Analyzer
}

func newAnalyzers(m mapping.IndexMapping) (*analyzers, error) {
	an := &analyzers{text: m.AnalyzerNamed(textAnalyzer), exact: m.AnalyzerNamed(exactAnalyzer)}
	if an.text == nil || an.exact == nil {
		return nil, fmt.Errorf("router: analyzers %s and %s are not registered", textAnalyzer, exactAnalyzer)
	}
	return an, nil
}

// scored is one search hit: a skill index and its relevance.
type scored struct {
	skill int
	score float64
}

// roundRelevance drops the last bits of a relevance: scores summed in
// another order (the body index's added to the field's) stay equal when
// their evidence is, so ties stay ties and the order deterministic.
func roundRelevance(x float64) float64 {
	return math.Round(x*1e9) / 1e9
}
