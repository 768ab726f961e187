package router

import (
	"fmt"
	"path"
	"strings"
	"unicode"

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
const SchemaVersion = 11

// Analysis names registered with bleve. They are part of the persisted
// mapping, so renaming one is a schema change.
const (
	textAnalyzer  = "agent3md_en"   // words, lowercase, English stop words, Porter
	exactAnalyzer = "agent3md_word" // words, lowercase
	docAnalyzer   = "agent3md_doc"  // textAnalyzer over marked documents, repeats expanded
)

// Skill fields and their weights (docs/architecture.md §5): in the one
// indexed field each skill field's terms count repeat times, so BM25
// weighs fields as query boosts would; weight is its relaxed evidence.
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

// indexField is the one indexed field (bodies: body.go).
const indexField = "skill"

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
	// No "_all" field: nothing queries it, and it doubled the indexing work.
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
// in decimal): every field's text after its repeat mark (docTokenizerImpl).
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

// splitCamelWords is withCamelParts without its shortcut.
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

// hasInnerUpper reports whether an upper-case letter follows a word rune,
// as every camel-case split needs.
func hasInnerUpper(text string) bool {
	prevWord := false
	for _, r := range text {
		if prevWord && unicode.IsUpper(r) {
			return true
		}
		prevWord = isWordRune(r)
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

// toolCommand is what a command template says: its binary's base name and
// the subcommands up to the first option or placeholder ("kubectl rollout
// history" of "kubectl rollout history deployment/{service} -n {ns}").
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

// maxSubcommands bounds toolCommand's words after the binary: real
// command trees are two or three deep ("gh pr create").
const maxSubcommands = 3

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
