package export

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/agentfile"
)

// TestRewriteLineAgreesWithScanner: in every agent file of the examples and
// of agentfile's test data, the links rewriteLine finds in each body are
// exactly the links agentfile's scanner reported for that plane, so the
// renderer rewrites every link there is and nothing else.
func TestRewriteLineAgreesWithScanner(t *testing.T) {
	var files []string
	for _, pattern := range []string{"../../examples/*.3md", "../../agentfile/testdata/*/*.3md", "../../agentfile/testdata/*/*/*.3md"} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	planes := 0
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		cat, err := agentfile.Parse(bytes.NewReader(src), nil)
		if err != nil {
			continue // a file that does not parse has no bodies to render
		}
		for p, pl := range cat.Planes {
			body, err := agentfile.ReadSpan(bytes.NewReader(src), pl.Body, pl.CRC)
			if err != nil {
				t.Fatalf("%s plane %d: %v", path, p, err)
			}
			var got []string
			for _, line := range strings.SplitAfter(string(body), "\n") {
				var b strings.Builder
				rewriteLine(&b, line, func(target, text string, hasText bool) (string, bool) {
					got = append(got, target+"|"+text)
					return "", false
				})
				if b.String() != line {
					t.Fatalf("%s: rewriteLine changed %q to %q without a replacement", path, line, b.String())
				}
			}
			want := []string{}
			for _, l := range pl.Links {
				want = append(want, l.Target+"|"+l.Text)
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("%s plane %d: the renderer sees links %q, the scanner %q", path, p, got, want)
			}
			planes++
		}
	}
	if planes < 100 {
		t.Fatalf("checked only %d planes", planes)
	}
}
