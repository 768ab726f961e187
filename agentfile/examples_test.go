package agentfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestExamples loads every agent in examples/ and requires a clean bill:
// no parse error, no validator error, no warning, and every body readable
// back through its span and checksum.
func TestExamples(t *testing.T) {
	files, err := filepath.Glob("../examples/*.3md")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("examples/ holds no .3md agents; the repository ships at least three")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			cat, err := Parse(f, &Options{File: path})
			if err != nil {
				t.Fatal(err)
			}
			r := Validate(cat)
			for _, fd := range append(r.Errors, r.Warnings...) {
				t.Errorf("%s:%d: %s: %s", path, fd.Line, fd.Rule, fd.Message)
			}
			if _, err := cat.Document(f); err != nil {
				t.Errorf("reading bodies back: %v", err)
			}
			a := cat.Agent()
			if a.Identity < 0 || len(a.Skills) == 0 {
				t.Errorf("identity %d and %d skills: an example agent needs both", a.Identity, len(a.Skills))
			}
		})
	}
}
