package router

import (
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/stop"
	"github.com/blevesearch/bleve/v2/registry"
)

// stopFilter is the text analyzers' stop-word filter (index.go): it drops
// stopWords, the one list the route's own word checks read too.
const stopFilter = "agent3md_stop"

// contractionTails are what is left of a contraction once the tokenizer
// splits it at its apostrophe ("what's" → what, s; "don't" → don, t): the
// English list holds the whole forms, which no token ever is, so without
// these a possessive's "s" was a request word every description with a
// possessive held.
var contractionTails = []string{"s", "t", "d", "ll", "re", "ve", "m"}

// stopWords are the English stop words (Snowball's list, as bleve ships
// it) and contractionTails.
var stopWords = func() analysis.TokenMap {
	m := analysis.NewTokenMap()
	if err := m.LoadBytes(en.EnglishStopWords); err != nil {
		panic("router: loading the English stop words: " + err.Error())
	}
	for _, w := range contractionTails {
		m.AddToken(w)
	}
	return m
}()

func init() {
	f := stop.NewStopTokensFilter(stopWords)
	if err := registry.RegisterTokenFilter(stopFilter, func(map[string]interface{}, *registry.Cache) (analysis.TokenFilter, error) { return f, nil }); err != nil {
		panic("router: registering analysis: " + err.Error())
	}
}
