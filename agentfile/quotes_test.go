package agentfile

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// quoteCase is one directive's attributes, or one frontmatter value, and
// how the reference parser reads it.
type quoteCase struct {
	name  string
	src   string            // the directive's text after "@plane z=1 ", or a frontmatter line
	label *string           // the expected label (directive cases)
	attrs map[string]string // the expected attributes other than z and label
	meta  map[string]string // the expected metadata (frontmatter cases)
	err   string            // the expected canonical error
}

func ptr(s string) *string { return &s }

// quoteCases: a directive value is unquoted only when its first and last
// bytes are the same quote; then, as in a quoted frontmatter value, every
// backslash escapes the byte after it. Anything else is kept verbatim.
func quoteCases() []quoteCase {
	return []quoteCase{
		{name: "one quoted span", src: `label="frame 3"`, label: ptr("frame 3")},
		{name: "quoted span with a suffix", src: `label="frame-3"~~~`, label: ptr(`"frame-3"~~~`)},
		{name: "quoted span with a prefix", src: `label=x"y"`, label: ptr(`x"y"`)},
		{name: "single quotes with a suffix", src: `kind='a'b`, label: nil, attrs: map[string]string{"kind": "'a'b"}},
		{name: "verbatim keeps backslashes", src: `label=a"b\"c"d`, label: ptr(`a"b\"c"d`)},
		{name: "two spans, same quote at both ends", src: `label="a"b"c"`, label: ptr(`a"b"c`)},
		{name: "two spans, different quotes", src: `label="a"'b'`, label: ptr(`"a"'b'`)},
		{name: "escaped quote", src: `label="say \"hi\""`, label: ptr(`say "hi"`)},
		{name: "escaped single quote", src: `label='it\'s'`, label: ptr(`it's`)},
		{name: "any escaped byte", src: `label="\=\╲\\"`, label: ptr(`=╲\`)},
		{name: "escaped space stays in the token", src: `label="a\ b" x=1`, label: ptr("a b"), attrs: map[string]string{}},
		{name: "quoted space in a verbatim value", src: `note=x"a b"y`, attrs: map[string]string{"note": `x"a b"y`}},
		{name: "equals inside quotes ends the key", src: `"a=b"`, attrs: map[string]string{`"a`: `b"`}},
		{name: "quoted key", src: `K"e y"=v`, attrs: map[string]string{`k"e y"`: "v"}},
		{name: "empty quoted value", src: `label=""`, label: ptr("")},
		{name: "lone quote pair of the other kind", src: `label='"'`, label: ptr(`"`)},
		{name: "unterminated after a span", src: `label="a"b"c`, err: InvalidPlaneDirective},
		{name: "escape outside quotes is text", src: `label=a\"b"`, label: ptr(`a\"b"`)},
		{name: "frontmatter escapes", src: `legend: "a\=b \\ c\"d"`, meta: map[string]string{"legend": `a=b \ c"d`}},
		{name: "frontmatter single quotes", src: `single: 'x\'y'`, meta: map[string]string{"single": "x'y"}},
		{name: "frontmatter unquoted keeps backslashes", src: `raw: p\=q`, meta: map[string]string{"raw": `p\=q`}},
		{name: "frontmatter trailing lone backslash", src: `trail: "end\"`, meta: map[string]string{"trail": `end\`}},
		{name: "frontmatter escaped box drawing", src: `box: "\=╲"`, meta: map[string]string{"box": "=╲"}},
		{name: "frontmatter quotes with a suffix", src: `s: "a" b`, meta: map[string]string{"s": `"a" b`}},
	}
}

// source returns the document a quote case is read from.
func (c quoteCase) source() string {
	if c.meta != nil {
		return "---\n3md: 1.0\n" + c.src + "\n---\n@plane z=1\nbody\n"
	}
	return "---\n3md: 1.0\n---\n@plane z=1 " + c.src + "\nbody\n"
}

func TestQuotes(t *testing.T) {
	for _, c := range quoteCases() {
		t.Run(c.name, func(t *testing.T) {
			cat, err := Parse(strings.NewReader(c.source()), nil)
			if c.err != "" {
				var pe *ParseError
				if !asParseError(err, &pe) || pe.Name != c.err || pe.Line != 4 {
					t.Fatalf("err = %v, want %s on line 4", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.meta != nil {
				if !reflect.DeepEqual(cat.Metadata, c.meta) {
					t.Fatalf("metadata %q, want %q", cat.Metadata, c.meta)
				}
				return
			}
			pl := cat.Planes[0]
			if !sameStringPtr(pl.HasLabel, pl.Label, c.label) {
				t.Fatalf("label %v/%q, want %v", pl.HasLabel, pl.Label, deref(c.label))
			}
			if c.attrs != nil && !equalMaps(pl.Attributes.Map(), c.attrs) {
				t.Fatalf("attributes %q, want %q", pl.Attributes.Map(), c.attrs)
			}
			// The independent reading agrees, so the fuzzer starts from
			// a shared understanding of every case.
			doc, rerr, _ := refParse([]byte(c.source()))
			if rerr != nil || !sameStringPtr(pl.HasLabel, pl.Label, doc.planes[0].label) {
				t.Fatalf("reference reads %v / %v", rerr, doc)
			}
		})
	}
}

func deref(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func asParseError(err error, pe **ParseError) bool {
	e, ok := err.(*ParseError)
	*pe = e
	return ok
}

// TestQuotedValueLimit: the attribute-bytes bound counts the value as it
// is kept: unquoted for one span, verbatim (quotes included) otherwise.
func TestQuotedValueLimit(t *testing.T) {
	lim := &Options{Limits: Limits{MaxAttributeBytes: 5}}
	for src, ok := range map[string]bool{
		`label="abcde"`:  true,  // 5 bytes once unquoted
		`label="abcd"x`:  false, // 7 bytes kept verbatim
		`label="a\\\\b"`: true,  // a\\b: 4 bytes
	} {
		_, err := Parse(bytes.NewReader([]byte("---\n3md: 1\n---\n@plane z=1 "+src+"\n")), lim)
		if (err == nil) != ok {
			t.Errorf("%s: err = %v, want ok=%v", src, err, ok)
		}
	}
}
