package agentfile

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agent3md/agent3md/internal/allocs"
	"github.com/agent3md/agent3md/internal/synth"
)

// TestValidateAgentIsValidate: validating with the caller's own reading of
// a catalog reports exactly what Validate reports, on every conformance and
// rules vector.
func TestValidateAgentIsValidate(t *testing.T) {
	var files []string
	for _, glob := range []string{"testdata/conformance/agent3md/*.3md", "testdata/conformance/3md/*.3md", "testdata/rules/*.3md"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 20 {
		t.Fatalf("found %d vectors; the test data moved?", len(files))
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			cat, err := Parse(bytes.NewReader(src), &Options{File: path})
			if err != nil {
				t.Skip("does not parse: ", err) // Validate never sees it either
			}
			if got, want := ValidateAgent(cat, cat.Agent()), Validate(cat); !reflect.DeepEqual(got, want) {
				t.Errorf("ValidateAgent = %+v\nValidate      = %+v", got, want)
			}
		})
	}
}

// TestValidateAgentReadsNoSecondAgent holds ValidateAgent to what it is
// for: a server validating while its routing index builds must not read
// the catalog a second time. On a 2,000-skill agent it allocates less than
// Validate by at least half of what one reading of the catalog allocates
// (allocation, not time, so the figure does not depend on the machine).
func TestValidateAgentReadsNoSecondAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a synthetic agent")
	}
	if allocs.RaceEnabled {
		t.Skip("compares allocations, which the race detector inflates unevenly")
	}
	src, err := os.ReadFile(synth.Path(t, 2000))
	if err != nil {
		t.Fatal(err)
	}
	cat, err := Parse(bytes.NewReader(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	info := cat.Agent()
	reading := allocs.Bytes(func() { cat.Agent() })
	with := allocs.Bytes(func() { ValidateAgent(cat, info) })
	without := allocs.Bytes(func() { Validate(cat) })
	t.Logf("one reading %d KB; Validate %d KB, ValidateAgent %d KB", reading>>10, without>>10, with>>10)
	if with+reading/2 > without {
		t.Errorf("ValidateAgent allocated %d bytes, Validate %d: the difference is less than half a reading of the catalog (%d bytes)", with, without, reading)
	}
}
