package skillsdir

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// The findings of the fixture tree, as `agent3md validate` will print
// them, are pinned: they are text a user reads.
func TestFindingsGolden(t *testing.T) {
	root, _ := filepath.Abs(filepath.Join("testdata", "tree"))
	c := scan(t, nil, root)
	var b strings.Builder
	for _, f := range c.Findings() {
		f.Path = filepath.ToSlash(strings.TrimPrefix(f.Path, root+string(filepath.Separator)))
		b.WriteString(f.String() + "\n")
	}
	golden := filepath.Join("testdata", "findings.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("findings differ from %s (run with -update to accept):\n%s", golden, b.String())
	}
}
