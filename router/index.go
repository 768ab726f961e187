package router

import (
	"fmt"

	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
)

// SchemaVersion identifies the index layout (mapping, fields, analyzers,
// cache files). Cache entries carry it in their key and manifest; bump it
// whenever any of those change so old entries are never trusted.
const SchemaVersion = 12

// Analysis names registered with bleve. They are part of the persisted
// mapping, so renaming one is a schema change.
const (
	textAnalyzer  = "agent3md_en"   // words, lowercase, English stop words, Porter
	exactAnalyzer = "agent3md_word" // words, lowercase
	docAnalyzer   = "agent3md_doc"  // textAnalyzer over marked documents, repeats expanded
)

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
		textAnalyzer:  {wordsTokenizer, []string{lowercase.Name, stopFilter, porterFilter}},
		exactAnalyzer: {wordsTokenizer, []string{lowercase.Name}},
		docAnalyzer:   {docTokenizer, []string{lowercase.Name, stopFilter, porterFilter, repeatFilterN}},
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

func newAnalyzers(m mapping.IndexMapping) (*analyzers, error) {
	an := &analyzers{text: m.AnalyzerNamed(textAnalyzer), exact: m.AnalyzerNamed(exactAnalyzer)}
	if an.text == nil || an.exact == nil {
		return nil, fmt.Errorf("router: analyzers %s and %s are not registered", textAnalyzer, exactAnalyzer)
	}
	return an, nil
}
