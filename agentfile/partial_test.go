package agentfile

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestPartialScan: a scan stopped after k planes holds exactly the first k
// planes of the whole scan, with the same metadata, and says it is partial;
// a document with at most k planes is read whole.
func TestPartialScan(t *testing.T) {
	files, err := filepath.Glob("../examples/*.3md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	docs := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs[filepath.Base(f)] = b
	}
	// A directive inside a fence does not open a plane, so it must not stop
	// the scan either.
	docs["fenced"] = []byte("---\n3md: 1.0\nagent: f\n---\n@plane z=0 kind=identity\n# F\n\n```\n@plane z=5\n```\nstill identity\n\n@plane z=1 kind=skill triggers=\"x\"\n# X\n")
	docs["preamble-only"] = []byte("---\n3md: 1.0\n---\nJust text.\n")
	for name, src := range docs {
		full, err := Parse(bytes.NewReader(src), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for k := 1; k <= len(full.Planes)+1; k++ {
			part, err := Parse(bytes.NewReader(src), &Options{Planes: k})
			if err != nil {
				t.Fatalf("%s, %d planes: %v", name, k, err)
			}
			want := min(k, len(full.Planes))
			if len(part.Planes) != want {
				t.Fatalf("%s, %d planes: got %d planes, want %d", name, k, len(part.Planes), want)
			}
			if part.Partial != (k < len(full.Planes)) {
				t.Errorf("%s, %d of %d planes: Partial = %v", name, k, len(full.Planes), part.Partial)
			}
			if part.Partial == (part.SHA256 != "") {
				t.Errorf("%s, %d planes: Partial %v with SHA256 %q", name, k, part.Partial, part.SHA256)
			}
			for i := range part.Planes {
				// Whether a link's target exists is unknown for targets
				// past the stop; everything else must match.
				got, want := part.Planes[i], full.Planes[i]
				got.Links, want.Links = noExists(got.Links), noExists(want.Links)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s, %d planes: plane %d differs:\n got %+v\nwant %+v", name, k, i, got, want)
				}
			}
			if !reflect.DeepEqual(part.Metadata, full.Metadata) || part.Title != full.Title {
				t.Errorf("%s, %d planes: metadata differs", name, k)
			}
			if part.Partial {
				if _, err := part.MarshalBinary(); err == nil || !strings.Contains(err.Error(), "partial") {
					t.Errorf("%s: encoding a partial catalog: %v, want a refusal", name, err)
				}
			}
		}
	}
}

func noExists(links []Link) []Link {
	out := make([]Link, len(links))
	for i, l := range links {
		l.TargetExists = false
		out[i] = l
	}
	return out
}
