package agentfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// vector is one 3md conformance vector: exactly one of Expected, Error and
// Links is set.
type vector struct {
	Name     string          `json:"name"`
	Source   string          `json:"source"`
	Expected json.RawMessage `json:"expected"`
	Error    string          `json:"error"`
	Links    json.RawMessage `json:"links"`
}

func loadVectors(t *testing.T) map[string]vector {
	t.Helper()
	files, err := filepath.Glob("testdata/conformance/3md/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no vectors: %v", err)
	}
	out := map[string]vector{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v vector
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = v
	}
	return out
}

// normalJSON round-trips a value through JSON into generic form, so numbers
// compare as numbers (1 equals 1.0).
func normalJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestConformance3md(t *testing.T) {
	vecs := loadVectors(t)
	if len(vecs) != 45 {
		t.Fatalf("want 45 vectors, found %d", len(vecs))
	}
	for name, v := range vecs {
		t.Run(name, func(t *testing.T) {
			src := []byte(v.Source)
			cat, err := Parse(bytes.NewReader(src), &Options{File: name})
			if v.Error != "" {
				var pe *ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("want error %s, got %v", v.Error, err)
				}
				if pe.Name != v.Error {
					t.Fatalf("want error %s, got %s (%v)", v.Error, pe.Name, pe)
				}
				if pe.Line < 0 || pe.Msg == "" {
					t.Fatalf("error lacks a position or message: %#v", pe)
				}
				return
			}
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if v.Expected != nil {
				doc, err := cat.Document(bytes.NewReader(src))
				if err != nil {
					t.Fatal(err)
				}
				var want any
				if err := json.Unmarshal(v.Expected, &want); err != nil {
					t.Fatal(err)
				}
				if got := normalJSON(t, doc); !reflect.DeepEqual(got, want) {
					gb, _ := json.Marshal(got)
					t.Fatalf("document mismatch\n got: %s\nwant: %s", gb, v.Expected)
				}
			}
			if v.Links != nil {
				var want any
				if err := json.Unmarshal(v.Links, &want); err != nil {
					t.Fatal(err)
				}
				if got := normalJSON(t, cat.DocLinks()); !reflect.DeepEqual(got, want) {
					gb, _ := json.Marshal(got)
					t.Fatalf("links mismatch\n got: %s\nwant: %s", gb, v.Links)
				}
			}
		})
	}
}
