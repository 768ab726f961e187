package cachedir

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRecordSources: an entry lists the agents it served, most recent
// first, each path once, at most maxSources, and pruning the entry takes
// its record with it.
func TestRecordSources(t *testing.T) {
	root, _ := cache(t)
	a := strings.Repeat("a", 64)
	Record(root, a, Source{Path: "/agents/one.3md", Name: "One"})
	Record(root, a, Source{Path: "/agents/two.3md", Name: "Two\twith a tab"})
	Record(root, a, Source{Path: "/agents/one.3md", Name: "One"})
	for i := range maxSources + 3 {
		Record(root, strings.Repeat("b", 64), Source{Path: fmt.Sprintf("/many/%d.3md", i), Name: "n"})
	}
	Record(root, "../escape", Source{Path: "/x", Name: "x"}) // not a hash: ignored
	ents, err := Entries(root)
	if err != nil {
		t.Fatal(err)
	}
	var ea, eb *Entry
	for i := range ents {
		switch ents[i].Key {
		case a:
			ea = &ents[i]
		case strings.Repeat("b", 64):
			eb = &ents[i]
		}
		if ents[i].Stamp != strings.HasPrefix(ents[i].Key, "stamp-") {
			t.Errorf("%s: Stamp = %v", ents[i].Key, ents[i].Stamp)
		}
	}
	if ea == nil || eb == nil {
		t.Fatalf("entries a and b missing: %+v", ents)
	}
	want := []Source{{"/agents/one.3md", "One"}, {"/agents/two.3md", "Two with a tab"}}
	if !slices.Equal(ea.Sources, want) {
		t.Errorf("a's sources = %+v, want %+v", ea.Sources, want)
	}
	if len(eb.Sources) != maxSources || eb.Sources[0].Path != fmt.Sprintf("/many/%d.3md", maxSources+2) {
		t.Errorf("b's sources: %d, first %+v; want %d, newest first", len(eb.Sources), eb.Sources[0], maxSources)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(root), "escape")); err == nil {
		t.Error("a key with a path separator wrote outside the cache")
	}
	if _, err := Prune(root, 0, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, sourcePrefix+a)); err == nil {
		t.Error("pruning a's entry left its source record")
	}
}
