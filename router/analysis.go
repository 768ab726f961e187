package router

import (
	"iter"
	"path"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/agent3md/agent3md/internal/segment"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/blevesearch/go-porterstemmer"
)

// Bleve analysis pieces of our own, registered by name in init and named
// by the persisted mapping.

// wordsTokenizerImpl splits text into maximal runs of letters and digits
// (agent3md/1 tokens), noting the runs on the stack and allocating the
// tokens in one block: indexing is mostly analysis.
type wordsTokenizerImpl struct{}

// Tokenize implements analysis.Tokenizer.
func (wordsTokenizerImpl) Tokenize(input []byte) analysis.TokenStream {
	var onStack [128][2]int
	spans := onStack[:0]
	start := -1
	wide := false // a word holds a rune of an unspaced script
	for i := 0; i < len(input); {
		w, size := asciiWord[input[i]&0x7f], 1
		if input[i] >= utf8.RuneSelf { // invalid UTF-8 is no word rune
			var r rune
			r, size = utf8.DecodeRune(input[i:])
			w = isWordRune(r) && !(r == utf8.RuneError && size == 1)
			wide = wide || w && segment.Unspaced(r)
		}
		if w && start < 0 {
			start = i
		} else if !w && start >= 0 {
			spans = append(spans, [2]int{start, i})
			start = -1
		}
		i += size
	}
	if start >= 0 {
		spans = append(spans, [2]int{start, len(input)})
	}
	if wide {
		spans = bigramSpans(input, spans)
	}
	block := make([]analysis.Token, len(spans))
	stream := make(analysis.TokenStream, len(spans))
	for k, sp := range spans {
		block[k] = analysis.Token{Term: input[sp[0]:sp[1]], Start: sp[0], End: sp[1], Position: k + 1, Type: analysis.AlphaNumeric}
		stream[k] = &block[k]
	}
	return stream
}

// bigramSpans rewrites the word spans: a run of an unspaced script
// becomes its overlapping pairs of runes (a one-rune run stays whole;
// "k8s" of "k8s部署" stays a word). A whole run is a word no request
// repeats ("帮我翻译这份文档" against "把文档翻译成英文"); its pairs are
// shared, as search engines index these scripts without a dictionary.
func bigramSpans(input []byte, spans [][2]int) [][2]int {
	out := make([][2]int, 0, 2*len(spans))
	var runes []int // byte offsets of the current run's runes
	flush := func(end int) {
		switch len(runes) {
		case 0:
		case 1:
			out = append(out, [2]int{runes[0], end})
		default:
			for j := 0; j+1 < len(runes); j++ {
				e := end
				if j+2 < len(runes) {
					e = runes[j+2]
				}
				out = append(out, [2]int{runes[j], e})
			}
		}
		runes = runes[:0]
	}
	for _, sp := range spans {
		other := -1 // start of the current run of other runes
		for i := sp[0]; i < sp[1]; {
			r, size := utf8.DecodeRune(input[i:sp[1]])
			if segment.Unspaced(r) {
				if other >= 0 {
					out = append(out, [2]int{other, i})
					other = -1
				}
				runes = append(runes, i)
			} else {
				flush(i)
				if other < 0 {
					other = i
				}
			}
			i += size
		}
		flush(sp[1])
		if other >= 0 {
			out = append(out, [2]int{other, sp[1]})
		}
	}
	return out
}

// joinPairs rejoins, for display, consecutive pairs of a match's hits
// (文档, 档翻, 翻译) into the run the request wrote (文档翻译).
func joinPairs(hits []string, text string) []string {
	if len(text) > maxJoinText {
		return hits // each join searches the text: keep a long request's cost bounded
	}
	if !slices.ContainsFunc(hits, func(h string) bool { return h != "" && h[0] >= utf8.RuneSelf && segment.AllUnspaced(h) }) {
		return hits
	}
	out := make([]string, 0, len(hits))
	for _, h := range hits {
		if n := len(out); n > 0 && continuesRun(out[n-1], h) {
			_, size := utf8.DecodeRuneInString(h)
			if joined := out[n-1] + h[size:]; strings.Contains(text, joined) {
				out[n-1] = joined
				continue
			}
		}
		out = append(out, h)
	}
	return out
}

// maxJoinText bounds the request text joinPairs searches (each join is a
// search, and 4,096 words can be padded to megabytes): past it, pairs.
const maxJoinText = 16 << 10

// asciiWord marks the ASCII bytes that are word runes (a table lookup).
var asciiWord = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = isWordRune(rune(c))
	}
	return t
}()

// stemCacheMax bounds the stem cache; past it, stems are computed each time.
const stemCacheMax = 1 << 16

// cachedPorter is the Porter stemmer behind a cache (agents repeat a small
// vocabulary), looked up under one read lock per stream.
type cachedPorter struct {
	mu    sync.RWMutex
	cache map[string][]byte
}

// Filter implements analysis.TokenFilter.
func (c *cachedPorter) Filter(input analysis.TokenStream) analysis.TokenStream {
	var missed []int // positions of the tokens the cache lacks
	c.mu.RLock()
	for i, tok := range input {
		if tok.KeyWord || len(tok.Term) <= 2 {
			continue
		}
		if v, ok := c.cache[string(tok.Term)]; ok {
			tok.Term = v
		} else {
			missed = append(missed, i)
		}
	}
	c.mu.RUnlock()
	if len(missed) == 0 {
		return input
	}
	words := make([]string, len(missed))
	for k, i := range missed {
		tok := input[i]
		words[k] = string(tok.Term)
		tok.Term = analysis.BuildTermFromRunes(porterstemmer.StemWithoutLowerCasing([]rune(americanSpelling(words[k]))))
	}
	c.mu.Lock()
	if c.cache == nil {
		c.cache = make(map[string][]byte, 1024)
	}
	for k, i := range missed {
		if len(c.cache) >= stemCacheMax {
			break
		}
		c.cache[words[k]] = input[i].Term
	}
	c.mu.Unlock()
	return input
}

// Documents weigh each field by repetition (fields, above) without
// analysing it again: repeatMark and a digit before a field make the doc
// tokenizer tag its tokens (in Type), and the repeat filter, last, emits
// each that many times, at a third of the work of repeating the text.
const (
	repeatMark = '\uE000' // private use: stripped from field text
	repeatBase = analysis.TokenType(100)
	markLen    = 3 // utf8.RuneLen(repeatMark)
)

// docTokenizerImpl is wordsTokenizerImpl over the marked document text.
type docTokenizerImpl struct{}

// Tokenize implements analysis.Tokenizer.
func (docTokenizerImpl) Tokenize(input []byte) analysis.TokenStream {
	stream := wordsTokenizerImpl{}.Tokenize(input)
	out := stream[:0]
	rep := analysis.TokenType(1)
	for i := 0; i < len(stream); i++ {
		tok := stream[i]
		if tok.Start >= markLen && string(input[tok.Start-markLen:tok.Start]) == string(repeatMark) &&
			len(tok.Term) == 1 && '1' <= tok.Term[0] && tok.Term[0] <= '9' {
			rep = analysis.TokenType(tok.Term[0] - '0')
			continue
		}
		if rep > 1 {
			tok.Type = repeatBase + rep
		}
		out = append(out, tok)
	}
	return out
}

// repeatFilter emits each token tagged by docTokenizerImpl its count of times.
type repeatFilter struct{}

// Filter implements analysis.TokenFilter.
func (repeatFilter) Filter(input analysis.TokenStream) analysis.TokenStream {
	n := 0
	for _, tok := range input {
		n += tokenRepeat(tok)
	}
	if n == len(input) {
		return input
	}
	out := make(analysis.TokenStream, 0, n)
	for _, tok := range input {
		r := tokenRepeat(tok)
		if tok.Type > repeatBase {
			tok.Type = analysis.AlphaNumeric
		}
		for ; r > 0; r-- {
			out = append(out, tok)
		}
	}
	return out
}

func tokenRepeat(tok *analysis.Token) int {
	if tok.Type > repeatBase {
		return int(tok.Type - repeatBase)
	}
	return 1
}

// Registered names; part of the persisted mapping.
const (
	wordsTokenizer = "agent3md_words"
	docTokenizer   = "agent3md_doc_words"
	porterFilter   = "agent3md_porter"
	repeatFilterN  = "agent3md_repeat"
)

func init() {
	for name, t := range map[string]analysis.Tokenizer{wordsTokenizer: wordsTokenizerImpl{}, docTokenizer: docTokenizerImpl{}} {
		if err := registry.RegisterTokenizer(name, func(map[string]interface{}, *registry.Cache) (analysis.Tokenizer, error) { return t, nil }); err != nil {
			panic("router: registering analysis: " + err.Error())
		}
	}
	for name, f := range map[string]analysis.TokenFilter{repeatFilterN: repeatFilter{}, porterFilter: &cachedPorter{}} {
		if err := registry.RegisterTokenFilter(name, func(map[string]interface{}, *registry.Cache) (analysis.TokenFilter, error) { return f, nil }); err != nil {
			panic("router: registering analysis: " + err.Error())
		}
	}
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

// Skill fields and their weights (docs/architecture.md §5): in the one
// indexed field each skill field's terms count repeat times, so BM25
// weighs fields as query boosts would; weight is its relaxed evidence.
var fields = []struct {
	name   string
	repeat int
	weight float64
}{
	{"triggers", 3, 3},
	{"name", 2, 2},
	{"description", 1, 1},
	{"tool", 2, 2},
	{"inputs", 1, 0.5},
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

// toolCommand is what a command template says: its binary's base name and
// the subcommands up to the first option or placeholder ("kubectl rollout
// history" of "kubectl rollout history deployment/{service} -n {ns}").
func toolCommand(tool string) string { return strings.Join(slices.Collect(commandWords(tool)), " ") }

// commandWords yields the words of toolCommand(tool).
func commandWords(tool string) iter.Seq[string] {
	return func(yield func(string) bool) {
		words := 0
		for w := range strings.FieldsSeq(tool) {
			if words == 0 {
				w = path.Base(w)
			} else if strings.HasPrefix(w, "-") || strings.ContainsAny(w, "{}=/$'\"") || words > maxSubcommands {
				return
			}
			if !yield(w) {
				return
			}
			words++
		}
	}
}

// maxSubcommands bounds toolCommand's words after the binary: real
// command trees are two or three deep ("gh pr create").
const maxSubcommands = 3

// analyzers are the mapping's analyzers, looked up once.
type analyzers struct {
	text, exact analysis.Analyzer
}
