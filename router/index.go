package router

import (
	"context"
	"fmt"
	"math"
	"path"
	"strconv"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/character"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
)

// SchemaVersion identifies the index layout (mapping, fields, analyzers,
// cache files). Cache entries carry it in their key and manifest; bump it
// whenever any of those change so old entries are never trusted.
const SchemaVersion = 1

// Analysis names registered with bleve. They are part of the persisted
// mapping, so renaming one is a schema change.
const (
	wordsTokenizer = "agent3md_words"
	textAnalyzer   = "agent3md_en"   // words, lowercase, English stop words, Porter
	exactAnalyzer  = "agent3md_word" // words, lowercase
)

// Index fields and their query boosts (DESIGN.md §5: trigger phrases
// strongest, then name, description, the tool's binary, input names).
var fields = []struct {
	name     string
	analyzer string
	boost    float64
}{
	{"triggers", textAnalyzer, 3},
	{"name", textAnalyzer, 2},
	{"description", textAnalyzer, 1},
	{"tool", exactAnalyzer, 1},
	{"inputs", textAnalyzer, 0.5},
}

func init() {
	// The same letter/digit runs as agent3md/1 route, so the index and the
	// phrase matcher see the same words.
	err := registry.RegisterTokenizer(wordsTokenizer,
		func(map[string]interface{}, *registry.Cache) (analysis.Tokenizer, error) {
			return character.NewCharacterTokenizer(isWordRune), nil
		})
	if err != nil {
		panic(fmt.Sprintf("router: registering tokenizer: %v", err))
	}
}

// newMapping builds the index mapping from the typed field table above.
func newMapping() (*mapping.IndexMappingImpl, error) {
	im := mapping.NewIndexMapping()
	im.ScoringModel = index.BM25Scoring
	im.StoreDynamic, im.IndexDynamic, im.DocValuesDynamic = false, false, false
	analyzers := map[string][]string{
		textAnalyzer:  {lowercase.Name, en.StopName, porter.Name},
		exactAnalyzer: {lowercase.Name},
	}
	for name, filters := range analyzers {
		err := im.AddCustomAnalyzer(name, map[string]interface{}{
			"type":          custom.Name,
			"tokenizer":     wordsTokenizer,
			"token_filters": filters,
		})
		if err != nil {
			return nil, fmt.Errorf("router: analyzer %s: %w", name, err)
		}
	}
	im.DefaultAnalyzer = textAnalyzer
	dm := mapping.NewDocumentStaticMapping()
	for _, f := range fields {
		fm := mapping.NewTextFieldMapping()
		fm.Analyzer = f.analyzer
		fm.Store, fm.IncludeTermVectors, fm.IncludeInAll, fm.DocValues = false, false, false, false
		dm.AddFieldMappingsAt(f.name, fm)
	}
	im.DefaultMapping = dm
	return im, im.Validate()
}

// document is what the index holds about skill i; its id is i in decimal.
func document(s *Skill) map[string]interface{} {
	return map[string]interface{}{
		"triggers":    strings.Join(s.Triggers, " . "),
		"name":        s.Name,
		"description": s.Description,
		"tool":        toolBinary(s.Tool),
		"inputs":      strings.Join(s.Inputs, " "),
	}
}

// toolBinary is the base name of a command template's first word.
func toolBinary(tool string) string {
	f := strings.Fields(tool)
	if len(f) == 0 {
		return ""
	}
	return path.Base(f[0])
}

// analyzed is a request's terms per analyzer, each with the request word
// it came from.
type analyzed struct {
	text, exact []term
}

type term struct{ term, word string }

// analyze runs text through the index's analyzers.
func analyze(m mapping.IndexMapping, text string) analyzed {
	run := func(name string) []term {
		a := m.AnalyzerNamed(name)
		if a == nil {
			return nil
		}
		var out []term
		seen := map[string]bool{}
		src := []byte(text)
		for _, tok := range a.Analyze(src) {
			t := string(tok.Term)
			if seen[t] {
				continue
			}
			seen[t] = true
			out = append(out, term{t, lowerToken(string(src[tok.Start:tok.End]))})
		}
		return out
	}
	return analyzed{text: run(textAnalyzer), exact: run(exactAnalyzer)}
}

// relevanceQuery is the request as one disjunction of boosted term queries
// over every field; nil when the request has no indexable terms.
func relevanceQuery(a analyzed) query.Query {
	var qs []query.Query
	for _, f := range fields {
		terms := a.text
		if f.analyzer == exactAnalyzer {
			terms = a.exact
		}
		for _, t := range terms {
			q := query.NewTermQuery(t.term)
			q.SetField(f.name)
			q.SetBoost(f.boost)
			qs = append(qs, q)
		}
	}
	if len(qs) == 0 {
		return nil
	}
	return query.NewDisjunctionQuery(qs)
}

// scored is one search hit: a skill index and its bleve relevance.
type scored struct {
	skill int
	score float64
}

// search runs q, optionally restricted to the given skills, and returns
// up to size hits by relevance.
func search(ctx context.Context, idx bleve.Index, q query.Query, only []int, size int) ([]scored, error) {
	if only != nil {
		ids := make([]string, len(only))
		for i, s := range only {
			ids[i] = strconv.Itoa(s)
		}
		// The id query drives a conjunction, so only the given skills are
		// visited; its constant score is zeroed by a zero boost.
		filter := query.NewDocIDQuery(ids)
		filter.SetBoost(0)
		q = query.NewConjunctionQuery([]query.Query{filter, q})
		size = len(only)
	}
	req := bleve.NewSearchRequestOptions(q, size, 0, false)
	res, err := idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("router: searching the index: %w", err)
	}
	out := make([]scored, 0, len(res.Hits))
	for _, h := range res.Hits {
		i, err := strconv.Atoi(h.ID)
		if err != nil {
			return nil, fmt.Errorf("router: index holds foreign document %q; rebuild it (agent3md index)", h.ID)
		}
		out = append(out, scored{i, roundRelevance(h.Score)})
	}
	return out, nil
}

// roundRelevance drops the last bits of a bleve score. Bleve sums a
// disjunction's clauses in whatever order its heap yields them, so equal
// evidence can differ in the last place from run to run; rounding keeps
// ties ties and the order deterministic.
func roundRelevance(x float64) float64 {
	return math.Round(x*1e9) / 1e9
}
