package cases

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestReadGood(t *testing.T) {
	want := map[string][]Case{
		"good.tsv": {
			{Line: 3, Request: "the tests are failing on main", Expect: "run-tests"},
			{Line: 5, Request: "find parseConfig", Expect: "search-code"},
			{Line: 6, Request: "what is the weather"},
			{Line: 7, Request: "给我开发票", Expect: "invoice"},
		},
		"good.jsonl": {
			{Line: 2, Request: "the tests are failing", Expect: "run-tests"},
			{Line: 4, Request: "what is the weather"},
			{Line: 5, Request: "book a flight"},
			{Line: 6, Request: "给我开发票", Expect: "invoice"},
		},
	}
	for name, w := range want {
		got, err := ReadFile(filepath.Join("testdata", name), Limits{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, w)
		}
	}
}

// TestReadErrors holds each grammar mistake to an error naming its line
// and the fix.
func TestReadErrors(t *testing.T) {
	for _, c := range []struct {
		name, text string
		ft         Format
		lim        Limits
		line       int
		want       string
	}{
		{"spaces for tab", "ok\tx\nrun the tests    run-tests\n", TSV, Limits{}, 2, "no tab between the request and the skill"},
		{"json in tsv", `{"request": "a", "expect": "b"}` + "\n", TSV, Limits{}, 1, "name it .jsonl"},
		{"two tabs", "a\tb\tc\n", TSV, Limits{}, 1, "more than one tab"},
		{"empty request", "\trun-tests\n", TSV, Limits{}, 1, "request before the tab is empty"},
		{"empty skill", "run the tests\t \n", TSV, Limits{}, 1, "write - for none"},
		{"bad utf8", "caf\xe9\tx\n", TSV, Limits{}, 1, "not valid UTF-8"},
		{"no cases", "# only a comment\n\n", TSV, Limits{}, 0, "no cases"},
		{"too many", "a\tb\nc\td\ne\tf\n", TSV, Limits{MaxCases: 2}, 3, "raise --max-cases"},
		{"too long", "a\tb\n" + strings.Repeat("x", 100) + "\tb\n", TSV, Limits{MaxLineBytes: 50}, 2, "raise --max-case-bytes"},
		{"bad json", `{"request": "a", "expect": }` + "\n", JSONL, Limits{}, 1, "not a JSON case"},
		{"unknown key", `{"request": "a", "expected": "b"}` + "\n", JSONL, Limits{}, 1, `unknown field "expected"`},
		{"no request", `{"expect": "b"}` + "\n", JSONL, Limits{}, 1, `no "request"`},
		{"empty expect", `{"request": "a", "expect": ""}` + "\n", JSONL, Limits{}, 1, `"expect" is empty`},
		{"two values", `{"request": "a"} {"request": "b"}` + "\n", JSONL, Limits{}, 1, "more than one JSON value"},
		{"array", `["a", "b"]` + "\n", JSONL, Limits{}, 1, "not a JSON case"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(c.text), "c.tsv", c.ft, c.lim)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want a *cases.Error", err)
			}
			if e.Line != c.line || !strings.Contains(e.Msg, c.want) {
				t.Errorf("got %q (line %d), want line %d and %q", err, e.Line, c.line, c.want)
			}
		})
	}
}

func TestFormatOf(t *testing.T) {
	for name, want := range map[string]Format{"a.jsonl": JSONL, "A.JSONL": JSONL, "a.tsv": TSV, "cases": TSV, "a.json": TSV} {
		if got := FormatOf(name); got != want {
			t.Errorf("FormatOf(%q) = %v, want %v", name, got, want)
		}
	}
}

// FuzzRead: any bytes give cases or a *cases.Error, never a panic, and
// every case read has a request and a line.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"good.tsv", "good.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, name == "good.jsonl")
	}
	f.Add([]byte("a\tb\tc\n{\"request\":1}\n"), false)
	f.Fuzz(func(t *testing.T, b []byte, jsonl bool) {
		ft := TSV
		if jsonl {
			ft = JSONL
		}
		cs, err := Read(strings.NewReader(string(b)), "f", ft, Limits{MaxLineBytes: 1 << 10})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is no *cases.Error", err)
			}
			return
		}
		for _, c := range cs {
			if c.Request == "" || c.Line < 1 || c.Expect == None {
				t.Fatalf("bad case %+v", c)
			}
		}
	})
}
