package agentfile

import (
	"bytes"
	"testing"
)

// FuzzDescription holds the describer's fast path to its promise: whenever
// plainFast accepts a prefix, its text equals goldmark's.
func FuzzDescription(f *testing.F) {
	for _, s := range []string{
		"# Title\nReads the logs and finds the first failure.\n",
		"Plain words\non two lines\n\nsecond paragraph\n",
		"## Heading\n\nText after a blank line.\n",
		"Émile écrit\tavec des tabulations  \n",
		"word\rword\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		var d describer
		d.reset(DefaultMaxDescriptionBytes)
		for _, l := range bytes.Split(src, []byte("\n")) {
			d.line(l)
		}
		fast, ok := plainFast(d.buf)
		if !ok {
			return
		}
		if slow := plainGoldmark(d.buf); fast != slow {
			t.Fatalf("plainFast %q, goldmark %q for %q", fast, slow, d.buf)
		}
	})
}
