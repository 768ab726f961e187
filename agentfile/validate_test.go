package agentfile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

// TestConformanceAgent3md checks every agent3md/1 vector: valid files have
// no errors and no warnings; each invalid file breaks exactly its one rule.
func TestConformanceAgent3md(t *testing.T) {
	b, err := os.ReadFile("testdata/conformance/agent3md/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var expected map[string]struct {
		Valid    bool     `json:"valid"`
		Errors   []string `json:"errors"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal(b, &expected); err != nil {
		t.Fatal(err)
	}
	if len(expected) != 17 {
		t.Fatalf("want 17 vectors, got %d", len(expected))
	}
	for name, want := range expected {
		t.Run(name, func(t *testing.T) {
			r := validateFile(t, filepath.Join("testdata/conformance/agent3md", name))
			if r.OK() != want.Valid {
				t.Errorf("valid = %v, want %v (%+v)", r.OK(), want.Valid, r)
			}
			if got := rules(r.Errors); !reflect.DeepEqual(got, sorted(want.Errors)) {
				t.Errorf("errors = %v, want %v (%+v)", got, want.Errors, r.Errors)
			}
			if got := rules(r.Warnings); !reflect.DeepEqual(got, sorted(want.Warnings)) {
				t.Errorf("warnings = %v, want %v (%+v)", got, want.Warnings, r.Warnings)
			}
			for _, f := range append(r.Errors, r.Warnings...) {
				if f.Line <= 0 || f.Message == "" {
					t.Errorf("finding without line or message: %+v", f)
				}
			}
		})
	}
}

func validateFile(t *testing.T, path string) *Report {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cat, err := Parse(f, &Options{File: path})
	if err != nil {
		return ParseFailure(err)
	}
	return Validate(cat)
}

func rules(fs []Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, f.Rule)
	}
	sort.Strings(out)
	return out
}

func sorted(s []string) []string {
	out := append([]string{}, s...)
	sort.Strings(out)
	return out
}
