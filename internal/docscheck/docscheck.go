package docscheck

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Kind is what a value counts: things, bytes or time.
type Kind int

const (
	Count Kind = iota
	Bytes
	Duration
)

// Fact is a constant the documentation quotes.
type Fact struct {
	// Name is the constant as Go names it ("router.DefaultLimit"), or the
	// flag ("--max-bytes of parse, validate"), for the failure message.
	Name string
	// Values are what a figure may be: the constant's value, or, for a
	// flag that several commands define with different defaults, each of
	// them. A Duration is in nanoseconds (time.Duration's int64).
	Values []int64
	Kind   Kind
	// Where finds the mentions; its group "fig" (or its first group) is
	// the figure. Phrase builds one from words.
	Where *regexp.Regexp
	// Optional: no mention is not a problem (flags, found by a pattern
	// built for every flag, most of which the docs do not quote).
	Optional bool
}

// Doc is one document: its slash path from the root and its text.
type Doc struct {
	Name, Text string
	joined     string
}

// wrap is a line break and the indent, quote or list marker after it:
// Check matches phrases across wrapped lines, with every byte offset kept.
var wrap = regexp.MustCompile(`\n[ \t]*(?:>[ \t]*)?`)

// NewDoc is a document named name (for file:line) with text.
func NewDoc(name, text string) Doc {
	joined := wrap.ReplaceAllStringFunc(text, func(m string) string { return strings.Repeat(" ", len(m)) })
	return Doc{Name: name, Text: text, joined: joined}
}

// Load reads README.md and every docs/*.md under root.
func Load(root string) ([]Doc, error) {
	names, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, fmt.Errorf("listing docs: %w", err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no docs/*.md under %s", root)
	}
	names = append([]string{filepath.Join(root, "README.md")}, names...)
	docs := make([]Doc, 0, len(names))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return nil, fmt.Errorf("reading docs: %w", err)
		}
		rel, err := filepath.Rel(root, n)
		if err != nil {
			return nil, fmt.Errorf("reading docs: %w", err)
		}
		docs = append(docs, NewDoc(filepath.ToSlash(rel), string(b)))
	}
	return docs, nil
}

// Fig is the pattern of a figure: digits (with thousands separators or a
// decimal part) and an optional unit, or a number word.
const Fig = `(?P<fig>\d[\d,_]*(?:\.\d+)?(?:\s?(?:KiB|MiB|GiB|TiB|KB|MB|GB|TB|bytes|ms|µs|seconds|second|minutes|minute|min|hours|hour|s|h|B)\b)?|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|sixteen|twenty)\b)`

// Phrase is a pattern that finds words around a figure: "{}" stands for
// the figure, a space for any run of spaces (a line may wrap there), and
// everything else is literal.
func Phrase(words string) *regexp.Regexp {
	before, after, ok := strings.Cut(words, "{}")
	if !ok {
		panic("docscheck.Phrase: " + strconv.Quote(words) + " has no {}")
	}
	lit := func(s string) string {
		fields := strings.Split(s, " ")
		for i, f := range fields {
			fields[i] = regexp.QuoteMeta(f)
		}
		return strings.Join(fields, `\s+`)
	}
	return regexp.MustCompile(lit(before) + Fig + lit(after))
}

var numberWords = map[string]int64{
	"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
	"nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "sixteen": 16, "twenty": 20,
}

var units = map[string]struct {
	kind Kind
	mult float64
}{
	"": {Count, 1}, "B": {Bytes, 1}, "bytes": {Bytes, 1},
	"KB": {Bytes, 1 << 10}, "KiB": {Bytes, 1 << 10}, "MB": {Bytes, 1 << 20}, "MiB": {Bytes, 1 << 20},
	"GB": {Bytes, 1 << 30}, "GiB": {Bytes, 1 << 30}, "TB": {Bytes, 1 << 40}, "TiB": {Bytes, 1 << 40},
	"µs": {Duration, float64(time.Microsecond)}, "ms": {Duration, float64(time.Millisecond)},
	"s": {Duration, float64(time.Second)}, "second": {Duration, float64(time.Second)}, "seconds": {Duration, float64(time.Second)},
	"min": {Duration, float64(time.Minute)}, "minute": {Duration, float64(time.Minute)}, "minutes": {Duration, float64(time.Minute)},
	"h": {Duration, float64(time.Hour)}, "hour": {Duration, float64(time.Hour)}, "hours": {Duration, float64(time.Hour)},
}

// Figure reads a figure as Fig matches it: "4,096" is (4096, Count),
// "64 KiB" (65536, Bytes; KB and the like are binary, as the flags read
// them), "20 s" (20e9, Duration), "five" (5, Count).
func Figure(s string) (int64, Kind, error) {
	s = strings.TrimSpace(s)
	if n, ok := numberWords[s]; ok {
		return n, Count, nil
	}
	i := strings.IndexFunc(s, func(r rune) bool { return !(r >= '0' && r <= '9' || r == ',' || r == '_' || r == '.') })
	num, unit := s, ""
	if i >= 0 {
		num, unit = s[:i], strings.TrimSpace(s[i:])
	}
	u, ok := units[unit]
	if !ok {
		return 0, 0, fmt.Errorf("figure %q: unknown unit %q", s, unit)
	}
	f, err := strconv.ParseFloat(strings.NewReplacer(",", "", "_", "").Replace(num), 64)
	if err != nil {
		return 0, 0, fmt.Errorf("figure %q: %w", s, err)
	}
	v := f * u.mult
	if v != math.Trunc(v) || v > math.MaxInt64 {
		return 0, 0, fmt.Errorf("figure %q is not a whole number of %s", s, [...]string{"things", "bytes", "nanoseconds"}[u.kind])
	}
	return int64(v), u.kind, nil
}

// Mention is one figure a fact's pattern found.
type Mention struct {
	Doc  string
	Line int
	Text string // the figure as written
}

// Find is every mention of f in docs, in order.
func Find(docs []Doc, f Fact) []Mention {
	group := 1
	if i := f.Where.SubexpIndex("fig"); i > 0 {
		group = i
	}
	var out []Mention
	for _, d := range docs {
		for _, m := range f.Where.FindAllStringSubmatchIndex(d.joined, -1) {
			if m[2*group] < 0 {
				continue
			}
			line := strings.Count(d.Text[:m[2*group]], "\n") + 1
			out = append(out, Mention{d.Name, line, d.joined[m[2*group]:m[2*group+1]]})
		}
	}
	return out
}

// Check finds every fact's mentions in docs and returns the problems, each
// "file:line: …" (or "name: …" for a fact nothing mentions), sorted, and
// how many figures it compared.
func Check(docs []Doc, facts []Fact) (problems []string, checked int) {
	for _, f := range facts {
		found := Find(docs, f)
		for _, at := range found {
			if p := compare(f, at); p != "" {
				problems = append(problems, p)
			}
		}
		checked += len(found)
		if len(found) == 0 && !f.Optional {
			problems = append(problems, fmt.Sprintf("%s: no document mentions it as %q any more; reword the pattern to the docs' new words, or drop the fact if the docs no longer quote it", f.Name, strings.Replace(f.Where.String(), Fig, "{}", 1)))
		}
	}
	sort.Strings(problems)
	return problems, checked
}

// compare is the problem with one mention of f, or "".
func compare(f Fact, at Mention) string {
	n, kind, err := Figure(at.Text)
	if err != nil {
		return fmt.Sprintf("%s:%d: %v (quoting %s)", at.Doc, at.Line, err, f.Name)
	}
	if kind != f.Kind && !(kind == Count && f.Kind == Bytes) {
		return fmt.Sprintf("%s:%d: %q quotes %s, which counts %s", at.Doc, at.Line, at.Text, f.Name, [...]string{"things", "bytes", "time"}[f.Kind])
	}
	for _, v := range f.Values {
		if n == v {
			return ""
		}
	}
	return fmt.Sprintf("%s:%d: says %s for %s, which is %s", at.Doc, at.Line, at.Text, f.Name, show(f))
}

// show writes f's values as the code has them.
func show(f Fact) string {
	var out []string
	for _, v := range f.Values {
		switch f.Kind {
		case Duration:
			out = append(out, time.Duration(v).String())
		case Bytes:
			out = append(out, fmt.Sprintf("%d bytes", v))
		default:
			out = append(out, strconv.FormatInt(v, 10))
		}
	}
	return strings.Join(out, " or ")
}

// Hold is the test a package runs on its facts: the documents under root
// (the module root) are loaded, and every problem fails tb.
func Hold(tb testing.TB, root string, facts []Fact) {
	tb.Helper()
	docs, err := Load(root)
	if err != nil {
		tb.Fatal(err)
	}
	problems, checked := Check(docs, facts)
	for _, p := range problems {
		tb.Error(p)
	}
	if os.Getenv("DOCSCHECK_DUMP") != "" {
		for _, f := range facts {
			for _, m := range Find(docs, f) {
				tb.Logf("%s:%d %q %s", m.Doc, m.Line, m.Text, f.Name)
			}
		}
	}
	tb.Logf("%d figures quoted in the docs checked for %d facts", checked, len(facts))
}
